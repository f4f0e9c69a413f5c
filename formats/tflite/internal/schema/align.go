package schema

import flatbuffers "github.com/google/flatbuffers/go"

// createAlignedBytes writes a [ubyte] vector whose first element starts on
// an align-byte boundary of the finished buffer (the schema's force_align,
// which flatc's Go object API ignores; gen.sh makes the Pack methods call
// this). Like CreateByteString it also writes a zero byte after the data.
func createAlignedBytes(b *flatbuffers.Builder, data []byte, align int) flatbuffers.UOffsetT {
	b.StartVector(1, len(data)+1, align)
	b.PlaceByte(0)
	for i := len(data) - 1; i >= 0; i-- {
		b.PlaceByte(data[i])
	}
	return b.EndVector(len(data))
}
