package benchmarks

import (
	"bytes"
	"fmt"
)

// The markers between which SpliceReadme puts the results.
const (
	BeginMarker = "<!-- results:begin -->"
	EndMarker   = "<!-- results:end -->"
)

// SpliceReadme returns readme with the text between BeginMarker and
// EndMarker (each on its own line) replaced by results. It fails when the
// markers are missing or out of order, so a README is never half-edited.
func SpliceReadme(readme, results []byte) ([]byte, error) {
	b := bytes.Index(readme, []byte(BeginMarker))
	e := bytes.Index(readme, []byte(EndMarker))
	if b < 0 || e < 0 || e < b {
		return nil, fmt.Errorf("the README needs the lines %s and %s (in this order) around the results", BeginMarker, EndMarker)
	}
	var out bytes.Buffer
	out.Write(readme[:b+len(BeginMarker)])
	out.WriteString("\n")
	out.Write(bytes.TrimSpace(results))
	out.WriteString("\n")
	out.Write(readme[e:])
	return out.Bytes(), nil
}
