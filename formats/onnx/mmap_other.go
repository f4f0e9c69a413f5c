//go:build !unix

package onnx

import "io"

// load reads r whole (memory mapping is used on Unix only).
func load(r io.Reader) ([]byte, func(), error) {
	data, err := io.ReadAll(r)
	return data, func() {}, err
}
