package tflite

import (
	"encoding/binary"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// OfflineMetadata is the name of the metadata entry that holds TFLite
// Micro's offline memory plan.
const OfflineMetadata = "OfflineMemoryAllocation"

// CompressionMetadata is the name of the metadata entry of a model whose
// tensors TFLite Micro's compression tools compressed
// (tensorflow/lite/micro/compression.h: kCompressionMetadataString).
const CompressionMetadata = "COMPRESSION_METADATA"

// Online is the offset of a tensor the offline plan leaves to the runtime.
const Online = -1

// OfflinePlan is TFLite Micro's offline memory plan: a little-endian int32
// buffer [version, subgraphs, N, offset_0 … offset_{N-1}] named by the
// OfflineMemoryAllocation metadata, with one byte offset per tensor of
// every subgraph in order, relative to the start of the arena's
// non-persistent section; Online (-1) leaves a tensor to the runtime's
// own planner.
type OfflinePlan struct {
	Version   int32
	Subgraphs int32
	Offsets   []int32
}

// Encode returns the metadata buffer's bytes.
func (p *OfflinePlan) Encode() []byte {
	b := make([]byte, 4*(3+len(p.Offsets)))
	binary.LittleEndian.PutUint32(b[0:], uint32(p.Version))
	binary.LittleEndian.PutUint32(b[4:], uint32(p.Subgraphs))
	binary.LittleEndian.PutUint32(b[8:], uint32(len(p.Offsets)))
	for i, o := range p.Offsets {
		binary.LittleEndian.PutUint32(b[12+4*i:], uint32(o))
	}
	return b
}

// offlinePlan decodes the plan a model carries, nil when it has none.
// Every OfflineMemoryAllocation entry must hold one offset per tensor, as
// TFLite Micro checks each one it meets; TFLite Micro keeps the last, and
// so does this (Model.OfflineEntries counts them).
func (d *decoder) offlinePlan() (*OfflinePlan, error) {
	root := d.m.root
	n, err := d.vecLen(root.MetadataLength(), 4, "the metadata list")
	if err != nil {
		return nil, err
	}
	var md schema.Metadata
	var plan *OfflinePlan
	for i := range n {
		root.Metadata(&md, i)
		if string(md.Name()) == CompressionMetadata {
			d.m.Compressed = true
		}
		if string(md.Name()) != OfflineMetadata {
			continue
		}
		p, err := d.offlineEntry(int(md.Buffer()))
		if err != nil {
			return nil, err
		}
		plan = p
		d.m.OfflineEntries++
	}
	return plan, nil
}

// offlineEntry decodes the plan in buffer bi.
func (d *decoder) offlineEntry(bi int) (*OfflinePlan, error) {
	root := d.m.root
	if bi >= root.BuffersLength() {
		return nil, d.fail("metadata %s names buffer %d, but the model has %d buffers", OfflineMetadata, bi, root.BuffersLength())
	}
	var b schema.Buffer
	root.Buffers(&b, bi)
	data := b.DataBytes()
	if len(data) < 12 || len(data)%4 != 0 {
		return nil, d.fail("metadata %s: %d bytes, want [version, subgraphs, N, N offsets] as int32", OfflineMetadata, len(data))
	}
	word := func(k int) int32 { return int32(binary.LittleEndian.Uint32(data[4*k:])) }
	p := &OfflinePlan{Version: word(0), Subgraphs: word(1)}
	count := int(word(2))
	if count != len(data)/4-3 {
		return nil, d.fail("metadata %s: says %d offsets but holds %d", OfflineMetadata, count, len(data)/4-3)
	}
	if count != len(d.m.Tensors) {
		return nil, d.fail("metadata %s: %d offsets for %d tensors (TFLite Micro refuses the model)", OfflineMetadata, count, len(d.m.Tensors))
	}
	p.Offsets = make([]int32, count)
	for k := range p.Offsets {
		p.Offsets[k] = word(3 + k)
		if p.Offsets[k] < Online {
			return nil, d.fail("metadata %s: tensor %d has offset %d", OfflineMetadata, k, p.Offsets[k])
		}
	}
	return p, nil
}
