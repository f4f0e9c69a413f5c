package tflmrun

import (
	"bufio"
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// MultiReport is what tools/tflm_multi says of several models run on one
// MicroAllocator.
type MultiReport struct {
	// OK is "result ok": every model allocated and ran on the shared
	// allocator, with outputs identical to the model alone, no overlap
	// between models of one stage and the guards intact.
	OK bool
	// Head, Tail and Used are shared_head, shared_tail and shared_used
	// (-1 when not reported).
	Head, Tail, Used int64
	// ModelHeads and TailsAdded are each model's head on the shared
	// allocator and the persistent bytes its interpreter added.
	ModelHeads, TailsAdded []int64
	// AloneOutputs[k] and SharedOutputs[k] are model k's output
	// checksums alone and on the shared allocator (first round).
	AloneOutputs, SharedOutputs [][]string
	// Mismatches counts "match no" lines; Concurrent is the
	// concurrent_check result ("ok", "FAIL", "" without concurrent
	// stages).
	Mismatches int
	Concurrent string
	// MinArena is min_arena (-1 without --min-arena).
	MinArena int64
	Text     string
}

// RunMulti runs tflm_multi with the arguments (stages, flags).
func RunMulti(bin string, args ...string) (MultiReport, error) {
	out, err := exec.Command(bin, args...).Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return MultiReport{}, err
	}
	return ParseMulti(out), nil
}

// ParseMulti reads tflm_multi's report.
func ParseMulti(out []byte) MultiReport {
	r := MultiReport{Head: -1, Tail: -1, Used: -1, MinArena: -1, Text: string(out)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	num := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	grow := func(xs [][]string, k int) [][]string {
		for len(xs) <= k {
			xs = append(xs, nil)
		}
		return xs
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "result":
			r.OK = f[1] == "ok"
		case "shared_head":
			r.Head = num(f[1])
		case "shared_tail":
			r.Tail = num(f[1])
		case "shared_used":
			r.Used = num(f[1])
		case "min_arena":
			r.MinArena = num(f[1])
		case "concurrent_check":
			r.Concurrent = f[1]
		case "shared_model":
			if len(f) >= 6 {
				r.ModelHeads = append(r.ModelHeads, num(f[3]))
				r.TailsAdded = append(r.TailsAdded, num(f[5]))
			}
		case "shared_output":
			// shared_output K I bytes B fnv1a H alone A match yes|no
			if len(f) >= 11 {
				k := int(num(f[1]))
				r.SharedOutputs = grow(r.SharedOutputs, k)
				r.AloneOutputs = grow(r.AloneOutputs, k)
				if len(r.SharedOutputs[k]) == int(num(f[2])) {
					r.SharedOutputs[k] = append(r.SharedOutputs[k], f[6])
					r.AloneOutputs[k] = append(r.AloneOutputs[k], f[8])
				}
				if f[10] != "yes" {
					r.Mismatches++
				}
			}
		}
	}
	return r
}
