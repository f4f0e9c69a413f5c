// Package jsonfmt reads and writes optalloc's JSON problem format
// ({"pools": [...], "buffers": [...]}) and its JSON plan format ({"peak":
// ..., "placements": [...]}). Readers are strict: unknown fields, duplicate
// keys and missing required fields are errors naming the line. It is named
// jsonfmt so as not to shadow encoding/json.
package jsonfmt
