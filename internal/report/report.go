// Package report holds what the developer tools that write measurement
// tables (benchmarks/cmd/results, benchmarks/cmd/scale) share: the
// description of the machine and the revision in a table's header, the
// command that regenerates it, and writing it to a file or between two
// markers of a README.
package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/optalloc/optalloc/internal/atomicfile"
)

// Machine describes the machine: OS/arch, CPU count and CPU model.
func Machine() string {
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				s += " (" + strings.TrimSpace(v) + ")"
				break
			}
		}
	}
	return s
}

// Revision is "commit X" for the git commit of the working tree ("-dirty"
// when it has changes), or "unknown revision" when git cannot tell.
func Revision() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown revision"
	}
	return "commit " + strings.TrimSpace(string(out))
}

// LoadAverage is the machine's 1-minute load average, or "" when the
// system does not tell.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// CommandLine is the shell command that runs tool (e.g. "go run
// ./benchmarks/cmd/scale") with args, each quoted when the shell would
// split or expand it.
func CommandLine(tool string, args []string) string {
	s := tool
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		s += " " + a
	}
	return s
}

// Splice returns doc with the text between the lines begin and end
// replaced by text. It fails when the markers are missing or out of
// order, so that a document is never half-edited.
func Splice(doc, text []byte, begin, end string) ([]byte, error) {
	b := bytes.Index(doc, []byte(begin))
	e := bytes.Index(doc, []byte(end))
	if b < 0 || e < 0 || e < b {
		return nil, fmt.Errorf("the README needs the lines %s and %s (in this order) around the table", begin, end)
	}
	var out bytes.Buffer
	out.Write(doc[:b+len(begin)])
	out.WriteString("\n")
	out.Write(bytes.TrimSpace(text))
	out.WriteString("\n")
	out.Write(doc[e:])
	return out.Bytes(), nil
}

// Write writes md to out ("-" is standard output), or, when readme is set,
// between its markers begin and end (Splice); files are replaced whole
// (internal/atomicfile).
func Write(md []byte, out, readme, begin, end string) error {
	if readme != "" {
		old, err := os.ReadFile(readme)
		if err != nil {
			return err
		}
		text, err := Splice(old, md, begin, end)
		if err != nil {
			return fmt.Errorf("%s: %w", readme, err)
		}
		return atomicfile.Write(readme, text)
	}
	if out == "-" {
		_, err := os.Stdout.Write(md)
		return err
	}
	return atomicfile.Write(out, md)
}
