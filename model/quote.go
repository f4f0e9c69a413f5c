package model

import "fmt"

// maxQuoted is the longest input text an error message repeats.
const maxQuoted = 40

// Quote quotes an input text for an error message, cut to a few dozen
// bytes: a 5 MB field makes a short message.
func Quote(s string) string {
	if len(s) <= maxQuoted {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:maxQuoted], len(s))
}
