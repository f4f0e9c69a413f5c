// Package jsonpos turns a JSON decoder's byte offsets into the lines the
// readers name in their messages (file:line: what is wrong).
package jsonpos

import "bytes"

// LineAt returns the 1-based line of byte offset off in data (offsets past
// the end count as the end).
func LineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// SkipSpace returns the offset of the first byte at or after off that is
// not white space or a comma: where a decoder's next value begins.
func SkipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',':
			off++
		default:
			return off
		}
	}
	return off
}
