package jsonfmt

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// walkJSON scans a JSON text for object keys: open and close are called
// when an object starts and ends, key for every key (unescaped) with its
// byte offset. It does not validate the text (the decoder does); on
// malformed input it stops at the end without harm.
func walkJSON(data []byte, open, close func(), key func(k []byte, off int)) {
	// stack holds, per open container, whether it is an object and (for an
	// object) whether a key is expected next.
	type frame struct{ object, wantKey bool }
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{':
			stack = append(stack, frame{object: true, wantKey: true})
			open()
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) > 0 {
				if stack[len(stack)-1].object {
					close()
				}
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
		case '"':
			start := i
			escaped := false
			for i++; i < len(data); i++ {
				if data[i] == '\\' {
					escaped = true
					i++
					continue
				}
				if data[i] == '"' {
					break
				}
			}
			if len(stack) > 0 && stack[len(stack)-1].wantKey && i < len(data) {
				stack[len(stack)-1].wantKey = false
				k := data[start+1 : i]
				if escaped {
					var s string
					if json.Unmarshal(data[start:i+1], &s) == nil {
						k = []byte(s)
					}
				}
				key(k, start)
			}
		}
	}
}

// duplicateKey returns the first key that appears twice in one object, with
// its offset. Objects have few keys: each level keeps its keys in a slice,
// reused, so the scan allocates almost nothing.
func duplicateKey(data []byte) (string, int, bool) {
	var levels [][][]byte
	depth := 0
	dup, at, found := "", 0, false
	walkJSON(data, func() {
		if depth == len(levels) {
			levels = append(levels, nil)
		}
		levels[depth] = levels[depth][:0]
		depth++
	}, func() {
		if depth > 0 {
			depth--
		}
	}, func(k []byte, off int) {
		if found || depth == 0 {
			return
		}
		for _, seen := range levels[depth-1] {
			if bytes.Equal(seen, k) {
				dup, at, found = string(k), off, true
				return
			}
		}
		levels[depth-1] = append(levels[depth-1], k)
	})
	return dup, at, found
}

// topKeys returns the keys of the outermost object of raw.
func topKeys(raw []byte) map[string]bool {
	keys := map[string]bool{}
	depth := 0
	walkJSON(raw, func() { depth++ }, func() { depth-- }, func(k []byte, _ int) {
		if depth == 1 {
			keys[string(k)] = true
		}
	})
	return keys
}

// missingKey returns the first of want that raw's outer object lacks.
func missingKey(raw []byte, want ...string) (string, bool) {
	keys := topKeys(raw)
	for _, k := range want {
		if !keys[k] {
			return k, true
		}
	}
	return "", false
}

// jsonTypeName names a Go type as the JSON it expects.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer in the int64 range"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return "a " + t.Kind().String()
}

// maxQuoted is the longest input text an error message repeats (as in
// model.Quote).
const maxQuoted = 40
