package corpus

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
	return SpliceBetween(readme, results, BeginMarker, EndMarker)
}

// SpliceBetween is SpliceReadme with other markers.
func SpliceBetween(readme, text []byte, begin, end string) ([]byte, error) {
	b := bytes.Index(readme, []byte(begin))
	e := bytes.Index(readme, []byte(end))
	if b < 0 || e < 0 || e < b {
		return nil, fmt.Errorf("the README needs the lines %s and %s (in this order) around the table", begin, end)
	}
	var out bytes.Buffer
	out.Write(readme[:b+len(begin)])
	out.WriteString("\n")
	out.Write(bytes.TrimSpace(text))
	out.WriteString("\n")
	out.Write(readme[e:])
	return out.Bytes(), nil
}
