package tflite

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// WeightDigest returns a digest of constant tensor i's bytes (the buffer
// it points into, in the file), "" when it is not a constant or its data
// is not inside the flatbuffer. Two constants with the same digest and
// size hold the same bytes: a target that keeps weights in planned memory
// stores them once across models.
func (m *Model) WeightDigest(i int) string {
	if i < 0 || i >= len(m.Tensors) || !m.Tensors[i].Constant || m.root == nil {
		return ""
	}
	bi := m.Tensors[i].buffer
	if bi <= 0 || bi >= m.root.BuffersLength() {
		return ""
	}
	var b schema.Buffer
	if !m.root.Buffers(&b, bi) {
		return ""
	}
	data := b.DataBytes()
	if len(data) == 0 {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
