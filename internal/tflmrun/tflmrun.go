package tflmrun

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Report is what tflm_run says of one run.
type Report struct {
	// OK is "result ok": the model allocated and ran.
	OK bool
	// Verified is "flatbuffer_verify ok": the file passes the FlatBuffers
	// verifier of TFLite's schema.
	Verified bool
	// Head is arena_head: the planned section, tensors and kernel
	// scratch; -1 when not reported.
	Head int64
	// Placed and Mismatched count the offline offsets the model carries
	// and those TFLite Micro did not honour; -1 when it carries no plan.
	Placed, Mismatched int
	// Outputs are the output checksums, in order.
	Outputs []string
	// Text is the whole report.
	Text string
}

// Find returns the path of tflm_run if it exists at one of the paths.
func Find(paths ...string) (string, bool) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// Run runs tflm_run on a model with extra arguments and parses its report.
// A run that fails (exit 1: TFLite Micro refused the model) is a report
// with OK false, not an error; an error means tflm_run could not be run.
func Run(bin, model string, args ...string) (Report, error) {
	out, err := exec.Command(bin, append([]string{model}, args...)...).Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Report{}, err
	}
	return Parse(out), nil
}

// Parse reads tflm_run's report.
func Parse(out []byte) Report {
	r := Report{Head: -1, Placed: -1, Mismatched: -1, Text: string(out)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "result":
			r.OK = f[1] == "ok"
		case "flatbuffer_verify":
			r.Verified = f[1] == "ok"
		case "arena_head":
			r.Head, _ = strconv.ParseInt(f[1], 10, 64)
		case "offline_plan_check":
			for i := 1; i+1 < len(f); i++ {
				switch f[i] {
				case "placed":
					r.Placed, _ = strconv.Atoi(f[i+1])
				case "mismatched":
					r.Mismatched, _ = strconv.Atoi(f[i+1])
				}
			}
		case "output":
			r.Outputs = append(r.Outputs, f[len(f)-1])
		}
	}
	return r
}
