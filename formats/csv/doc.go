// Package csv reads and writes problems and plans in MiniMalloc's CSV
// format: a header row, then one buffer per row, columns in any order.
// Read streams and validates; Write writes the problem back, with the
// offsets of a plan when one is given. Errors are *model.InputError naming
// the file and line.
package csv
