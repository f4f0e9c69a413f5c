package tflite

import (
	"encoding/binary"
	"fmt"
	"runtime"
)

// WithOfflinePlan returns a copy of the model's file carrying plan as its
// OfflineMemoryAllocation metadata, changing nothing else the runtime
// reads. Of the entries named so, TFLite Micro uses the last; that one is
// replaced and the others are kept.
//
//   - When that entry's buffer belongs to it alone (no tensor, no other
//     metadata entry, no other buffer's bytes) and holds a plan of the same
//     length — re-planning a planned model — the offsets are written over
//     it in place: every other byte of the file is unchanged.
//   - Otherwise a new root table is written in front of the file, with a
//     buffer list and a metadata list that add the plan's buffer and entry;
//     the old file follows byte for byte, 16-byte aligned as before (a
//     FlatBuffers offset only points forward, so new tables in front can
//     point into the old file, while the old root table stays unused).
//     Every field of the root table is carried, fields this schema does not
//     know included, when they cannot be references (a value that would
//     point inside the file is refused rather than guessed at).
//
// A model whose buffers live outside the flatbuffer (offset/size, for
// models over 2 GiB) is refused, as is a malformed file.
func (m *Model) WithOfflinePlan(plan *OfflinePlan) (out []byte, err error) {
	if len(plan.Offsets) != len(m.Tensors) {
		return nil, fmt.Errorf("offline plan has %d offsets for %d tensors", len(plan.Offsets), len(m.Tensors))
	}
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				out, err = nil, fmt.Errorf("%s: malformed flatbuffer, cannot write a plan into it (%v)", m.Name, re)
				return
			}
			panic(r)
		}
	}()
	if err := m.Writable(); err != nil {
		return nil, err
	}
	f, err := m.layout()
	if err != nil {
		return nil, err
	}
	enc := plan.Encode()
	if f.entry >= 0 {
		if pos, ok := f.exclusive(f.metaBuffer[f.entry], len(enc)); ok {
			out = append([]byte(nil), m.data...)
			copy(out[pos:], enc)
			return out, nil
		}
	}
	return f.prepend(enc)
}

// Writable reports why WithOfflinePlan would refuse the model whatever the
// plan (buffers kept outside the flatbuffer), nil when it would not: a
// caller can say so before planning.
func (m *Model) Writable() error {
	f, err := m.layout()
	if err != nil {
		return err
	}
	if f.external >= 0 {
		return fmt.Errorf("%s keeps buffer data outside the flatbuffer (buffer %d): rewriting such a model is not supported", m.Name, f.external)
	}
	return nil
}

// Root table field ids (TFLite's schema, table Model).
const (
	modelBuffers        = 4
	modelMetadataBuffer = 5
	modelMetadata       = 6
	modelFields         = 10 // version … external_buffers
)

// fileLayout is where the parts of the file that a plan touches are.
type fileLayout struct {
	m    *Model
	b    []byte
	root int // the root table
	vt   int // its vtable
	// slots[id] is field id's offset in the root table, 0 when absent.
	slots []int
	tsize int
	// buffers[i] is Buffer table i; data[i] its data's start and length
	// (-1 without data).
	buffers []int
	data    [][2]int
	// meta[i] is Metadata table i, metaName and metaBuffer its fields;
	// entry is the last OfflineMemoryAllocation entry, -1 without one.
	meta       []int
	metaName   []string
	metaBuffer []int
	entry      int
	// external is a buffer whose data lives outside the flatbuffer, -1
	// when none does.
	external int
}

func le16(b []byte, p int) int { return int(binary.LittleEndian.Uint16(b[p:])) }
func le32(b []byte, p int) int { return int(binary.LittleEndian.Uint32(b[p:])) }

// deref follows the uoffset stored at p, checking it lands in the file.
func deref(b []byte, p int) (int, error) {
	t := p + le32(b, p)
	if t < p || t >= len(b) {
		return 0, fmt.Errorf("malformed flatbuffer: an offset at %d points outside the %d-byte file", p, len(b))
	}
	return t, nil
}

// table returns a table's field slots (offsets, 0 = absent) and size.
func table(b []byte, pos int) (slots []int, vt, size int, err error) {
	vt = pos - int(int32(binary.LittleEndian.Uint32(b[pos:])))
	if vt < 0 || vt+4 > len(b) {
		return nil, 0, 0, fmt.Errorf("malformed flatbuffer: a vtable at %d outside the file", vt)
	}
	vsize, size := le16(b, vt), le16(b, vt+2)
	if vsize < 4 || vsize%2 != 0 || vt+vsize > len(b) || pos+size > len(b) {
		return nil, 0, 0, fmt.Errorf("malformed flatbuffer: a vtable at %d of %d bytes", vt, vsize)
	}
	for k := 4; k < vsize; k += 2 {
		o := le16(b, vt+k)
		if o != 0 && (o < 4 || o+4 > size) {
			return nil, 0, 0, fmt.Errorf("malformed flatbuffer: field %d at %d of a %d-byte table", (k-4)/2, o, size)
		}
		slots = append(slots, o)
	}
	return slots, vt, size, nil
}

// vector returns the position of the elements of the vector field id of
// the table at pos (its length at pos-4), with its length; -1 if absent.
func vector(b []byte, pos int, slots []int, id, elem int) (int, int, error) {
	if id >= len(slots) || slots[id] == 0 {
		return -1, 0, nil
	}
	v, err := deref(b, pos+slots[id])
	if err != nil {
		return 0, 0, err
	}
	n := le32(b, v)
	if n < 0 || n > (len(b)-v-4)/elem {
		return 0, 0, fmt.Errorf("malformed flatbuffer: a vector of %d entries at %d", n, v)
	}
	return v + 4, n, nil
}

// tableAt is a table's position and field slots.
type tableAt struct {
	pos   int
	slots []int
}

// tables returns the tables of the vector field id of the table at pos.
func tables(b []byte, pos int, slots []int, id int) ([]tableAt, error) {
	v, n, err := vector(b, pos, slots, id, 4)
	if err != nil {
		return nil, err
	}
	out := make([]tableAt, n)
	for i := range out {
		if out[i].pos, err = deref(b, v+4*i); err != nil {
			return nil, err
		}
		if out[i].slots, _, _, err = table(b, out[i].pos); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// layout finds the root table, the buffers and the metadata entries.
func (m *Model) layout() (*fileLayout, error) {
	b := m.data
	f := &fileLayout{m: m, b: b, entry: -1, external: -1}
	var err error
	if f.root, err = deref(b, 0); err != nil {
		return nil, err
	}
	if f.slots, f.vt, f.tsize, err = table(b, f.root); err != nil {
		return nil, err
	}
	bufs, err := tables(b, f.root, f.slots, modelBuffers)
	if err != nil {
		return nil, err
	}
	for i, t := range bufs {
		if len(t.slots) > 1 && t.slots[1] != 0 && t.pos+t.slots[1]+8 <= len(b) && binary.LittleEndian.Uint64(b[t.pos+t.slots[1]:]) > 1 && f.external < 0 {
			f.external = i
		}
		d, n, err := vector(b, t.pos, t.slots, 0, 1)
		if err != nil {
			return nil, err
		}
		f.buffers = append(f.buffers, t.pos)
		f.data = append(f.data, [2]int{d, n})
	}
	metas, err := tables(b, f.root, f.slots, modelMetadata)
	if err != nil {
		return nil, err
	}
	for i, tab := range metas {
		t, slots := tab.pos, tab.slots
		name := ""
		if len(slots) > 0 && slots[0] != 0 {
			s, err := deref(b, t+slots[0])
			if err != nil {
				return nil, err
			}
			n := le32(b, s)
			if n < 0 || s+4+n > len(b) {
				return nil, fmt.Errorf("malformed flatbuffer: a metadata name of %d bytes at %d", n, s)
			}
			name = string(b[s+4 : s+4+n])
		}
		buf := 0
		if len(slots) > 1 && slots[1] != 0 {
			buf = le32(b, t+slots[1])
		}
		f.meta, f.metaName, f.metaBuffer = append(f.meta, t), append(f.metaName, name), append(f.metaBuffer, buf)
		if name == OfflineMetadata {
			f.entry = i
		}
	}
	return f, nil
}

// exclusive returns where buffer bi's data starts when the buffer belongs
// to the plan alone and holds n bytes: no tensor and no other metadata
// entry names it, the deprecated metadata_buffer list does not, and no
// other buffer's data shares its bytes.
func (f *fileLayout) exclusive(bi, n int) (int, bool) {
	if bi <= 0 || bi >= len(f.buffers) || f.data[bi][1] != n {
		return 0, false
	}
	for i, mb := range f.metaBuffer {
		if i != f.entry && mb == bi {
			return 0, false
		}
	}
	v, k, err := vector(f.b, f.root, f.slots, modelMetadataBuffer, 4)
	if err != nil {
		return 0, false
	}
	for i := range k {
		if le32(f.b, v+4*i) == bi {
			return 0, false
		}
	}
	for _, t := range f.m.Tensors {
		if t.buffer == bi {
			return 0, false
		}
	}
	lo, hi := f.data[bi][0], f.data[bi][0]+n
	for i, d := range f.data {
		if i != bi && d[1] > 0 && d[0] < hi && lo < d[0]+d[1] {
			return 0, false
		}
	}
	return lo, true
}

// front lays out the new tables that go in front of the old file, at
// absolute positions from 8 (after the root offset and the file
// identifier).
type front struct{ buf []byte }

func (w *front) pos() int { return 8 + len(w.buf) }

// take reserves n bytes at a position p with (p+extra) % a == 0.
func (w *front) take(n, a, extra int) int {
	for (w.pos()+extra)%a != 0 {
		w.buf = append(w.buf, 0)
	}
	p := w.pos()
	w.buf = append(w.buf, make([]byte, n)...)
	return p
}

func (w *front) put16(p, v int) { binary.LittleEndian.PutUint16(w.buf[p-8:], uint16(v)) }
func (w *front) put32(p, v int) { binary.LittleEndian.PutUint32(w.buf[p-8:], uint32(v)) }

// isOffsetField reports whether root table field id is a reference
// (everything TFLite's schema has there but the version).
func isOffsetField(id int) bool { return id > 0 && id < modelFields }

// prepend writes the file with a new root table in front: see
// WithOfflinePlan.
func (f *fileLayout) prepend(enc []byte) ([]byte, error) {
	b := f.b
	// The root table's slots, with buffers and metadata added if absent.
	slots := append([]int(nil), f.slots...)
	for len(slots) <= modelMetadata {
		slots = append(slots, 0)
	}
	tsize := f.tsize
	for _, id := range []int{modelBuffers, modelMetadata} {
		if slots[id] == 0 {
			tsize = (tsize + 3) &^ 3
			slots[id] = tsize
			tsize += 4
		}
	}
	for id, s := range f.slots {
		if s != 0 && id >= modelFields {
			if v := le32(b, f.root+s); f.root+s+v < len(b) {
				return nil, fmt.Errorf("%s: the model's root table has a field (id %d) that optalloc's TFLite schema does not know and whose value could be a reference: rewriting it could break it", f.m.Name, id)
			}
		}
	}
	nb := len(f.buffers)
	sentinel := nb == 0 // buffer 0 must be the empty buffer
	newBuf := nb
	if sentinel {
		newBuf = 1
	}
	metas := len(f.meta)
	replace := f.entry
	if replace < 0 {
		metas++
	}

	w := &front{}
	vsize := 4 + 2*len(slots)
	modelVT := w.take(vsize, 2, 0)
	bufVT := w.take(6, 2, 0)
	emptyVT := w.take(4, 2, 0)
	metaVT := w.take(8, 2, 0)
	model := w.take(tsize, 16, 16-f.root%16)
	bufVec := w.take(4+4*(newBuf+1), 4, 0)
	metaVec := w.take(4+4*metas, 4, 0)
	empty := -1
	if sentinel {
		empty = w.take(4, 4, 0)
	}
	bufTab := w.take(8, 4, 0)
	metaTab := w.take(12, 4, 0)
	name := w.take(4+len(OfflineMetadata)+1, 4, 0)
	data := w.take(4+len(enc), 16, 4)
	for w.pos()%16 != 0 {
		w.buf = append(w.buf, 0)
	}
	shift := w.pos() // where the old file starts

	w.put16(modelVT, vsize)
	w.put16(modelVT+2, tsize)
	for id, s := range slots {
		w.put16(modelVT+4+2*id, s)
	}
	copy(w.buf[model-8:], b[f.root:f.root+f.tsize])
	w.put32(model, model-modelVT)
	for id, s := range slots {
		at := model + s
		switch {
		case s == 0:
		case id == modelBuffers:
			w.put32(at, bufVec-at)
		case id == modelMetadata:
			w.put32(at, metaVec-at)
		case isOffsetField(id):
			t, err := deref(b, f.root+s)
			if err != nil {
				return nil, err
			}
			w.put32(at, t+shift-at)
		}
	}
	w.put32(bufVec, newBuf+1)
	for i, t := range f.buffers {
		e := bufVec + 4 + 4*i
		w.put32(e, t+shift-e)
	}
	if sentinel {
		e := bufVec + 4
		w.put32(e, empty-e)
		w.put16(emptyVT, 4)
		w.put16(emptyVT+2, 4)
		w.put32(empty, empty-emptyVT)
	}
	e := bufVec + 4 + 4*newBuf
	w.put32(e, bufTab-e)
	w.put16(bufVT, 6)
	w.put16(bufVT+2, 8)
	w.put16(bufVT+4, 4)
	w.put32(bufTab, bufTab-bufVT)
	w.put32(bufTab+4, data-(bufTab+4))
	w.put32(data, len(enc))
	copy(w.buf[data+4-8:], enc)

	w.put32(metaVec, metas)
	for i := range metas {
		e := metaVec + 4 + 4*i
		if i == replace || i == len(f.meta) {
			w.put32(e, metaTab-e)
			continue
		}
		w.put32(e, f.meta[i]+shift-e)
	}
	w.put16(metaVT, 8)
	w.put16(metaVT+2, 12)
	w.put16(metaVT+4, 4)
	w.put16(metaVT+6, 8)
	w.put32(metaTab, metaTab-metaVT)
	w.put32(metaTab+4, name-(metaTab+4))
	w.put32(metaTab+8, newBuf)
	w.put32(name, len(OfflineMetadata))
	copy(w.buf[name+4-8:], OfflineMetadata)

	out := make([]byte, 0, shift+len(b))
	out = binary.LittleEndian.AppendUint32(out, uint32(model))
	out = append(out, b[4:8]...) // the file identifier
	out = append(out, w.buf...)
	return append(out, b...), nil
}
