package corpus

import "github.com/optalloc/optalloc/internal/report"

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
	return report.Splice(readme, text, begin, end)
}
