package tflite

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
)

// The options of custom operators (TFLite Micro's signal library, the
// detection post-processing op) are FlexBuffers maps. The flatbuffers
// module has no Go FlexBuffers reader, so flexMap reads the part of the
// format those operators use — a root map of scalars — following
// flatbuffers/flexbuffers.h (GetRoot, Reference::AsVector, Map::operator[],
// Reference::AsInt64) with every read bounds-checked: a malformed buffer is
// an error, never a panic or an out-of-range read.

// FlexBuffers types (flexbuffers.h, enum Type).
const (
	fbtNull          = 0
	fbtInt           = 1
	fbtUint          = 2
	fbtFloat         = 3
	fbtIndirectInt   = 6
	fbtIndirectUint  = 7
	fbtIndirectFloat = 8
	fbtMap           = 9
	fbtBool          = 26
)

var errFlex = errors.New("malformed FlexBuffers options")

// flexMap is a FlexBuffers map: values at data (one every width bytes),
// followed by one packed type byte each; its sorted keys elsewhere.
type flexMap struct {
	buf       []byte
	data      int // position of the first value
	width     int // bytes per value
	n         int // number of values
	keys      int // position of the first key offset
	keyWidth  int
	valueType int // position of the first packed type byte
}

// readUint reads a little-endian unsigned integer of w bytes at p.
func readUint(b []byte, p, w int) (uint64, error) {
	if p < 0 || w <= 0 || p+w > len(b) {
		return 0, errFlex
	}
	switch w {
	case 1:
		return uint64(b[p]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[p:])), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[p:])), nil
	case 8:
		return binary.LittleEndian.Uint64(b[p:]), nil
	}
	return 0, errFlex
}

// readInt reads a little-endian signed integer of w bytes at p.
func readInt(b []byte, p, w int) (int64, error) {
	u, err := readUint(b, p, w)
	if err != nil {
		return 0, err
	}
	switch w {
	case 1:
		return int64(int8(u)), nil
	case 2:
		return int64(int16(u)), nil
	case 4:
		return int64(int32(u)), nil
	}
	return int64(u), nil
}

// indirect follows the offset stored at p (w bytes wide) backwards.
func indirect(b []byte, p, w int) (int, error) {
	u, err := readUint(b, p, w)
	if err != nil || u > uint64(p) {
		return 0, errFlex
	}
	return p - int(u), nil
}

// parseFlexMap reads the root of a FlexBuffers buffer as a map.
func parseFlexMap(b []byte) (*flexMap, error) {
	if len(b) < 3 {
		return nil, errFlex
	}
	rootWidth := int(b[len(b)-1])
	packed := b[len(b)-2]
	root := len(b) - 2 - rootWidth
	if int(packed>>2) != fbtMap {
		return nil, errFlex
	}
	w := 1 << (packed & 3)
	data, err := indirect(b, root, rootWidth)
	if err != nil {
		return nil, err
	}
	n, err := readUint(b, data-w, w)
	if err != nil || n > uint64(len(b)) {
		return nil, errFlex
	}
	m := &flexMap{buf: b, data: data, width: w, n: int(n), valueType: data + int(n)*w}
	if m.valueType+m.n > len(b) {
		return nil, errFlex
	}
	// Keys: an offset to the keys vector at data-3w, its byte width at data-2w.
	keys, err := indirect(b, data-3*w, w)
	if err != nil {
		return nil, err
	}
	kw, err := readUint(b, data-2*w, w)
	if err != nil || (kw != 1 && kw != 2 && kw != 4 && kw != 8) {
		return nil, errFlex
	}
	kn, err := readUint(b, keys-int(kw), int(kw))
	if err != nil || kn != n || keys+int(kn)*int(kw) > len(b) {
		return nil, errFlex
	}
	m.keys, m.keyWidth = keys, int(kw)
	return m, nil
}

// key returns the i-th key.
func (m *flexMap) key(i int) (string, error) {
	p := m.keys + i*m.keyWidth
	s, err := indirect(m.buf, p, m.keyWidth)
	if err != nil {
		return "", err
	}
	for e := s; e < len(m.buf); e++ {
		if m.buf[e] == 0 {
			return string(m.buf[s:e]), nil
		}
	}
	return "", errFlex
}

// index returns the position of key (keys are sorted, as Map::operator[]
// searches them), -1 when absent.
func (m *flexMap) index(key string) (int, error) {
	var ferr error
	i := sort.Search(m.n, func(i int) bool {
		k, err := m.key(i)
		if err != nil {
			ferr = err
			return true
		}
		return k >= key
	})
	if ferr != nil {
		return -1, ferr
	}
	if i < m.n {
		if k, _ := m.key(i); k == key {
			return i, nil
		}
	}
	return -1, nil
}

// Int is the value of key as Reference::AsInt64 converts it; 0 for a
// missing key (a null reference), as in flexbuffers.h.
func (m *flexMap) Int(key string) (int64, error) {
	i, err := m.index(key)
	if err != nil || i < 0 {
		return 0, err
	}
	return m.element(i)
}

// RawInt is the i-th value read as a signed integer of the map's width,
// whatever its type: TFLite Micro's FlexbufferWrapper::ElementAsInt64.
func (m *flexMap) RawInt(i int) (int64, error) {
	if i < 0 || i >= m.n {
		return 0, errFlex
	}
	return readInt(m.buf, m.data+i*m.width, m.width)
}

// element converts the i-th value to an integer (Reference::AsInt64 for
// the scalar types; 0 for the others).
func (m *flexMap) element(i int) (int64, error) {
	packed := m.buf[m.valueType+i]
	typ, bw := int(packed>>2), 1<<(packed&3)
	p := m.data + i*m.width
	switch typ {
	case fbtInt, fbtBool:
		return readInt(m.buf, p, m.width)
	case fbtUint:
		u, err := readUint(m.buf, p, m.width)
		return int64(u), err
	case fbtFloat:
		f, err := readFloat(m.buf, p, m.width)
		return int64(f), err
	case fbtIndirectInt, fbtIndirectUint, fbtIndirectFloat:
		q, err := indirect(m.buf, p, m.width)
		if err != nil {
			return 0, err
		}
		switch typ {
		case fbtIndirectInt:
			return readInt(m.buf, q, bw)
		case fbtIndirectUint:
			u, err := readUint(m.buf, q, bw)
			return int64(u), err
		}
		f, err := readFloat(m.buf, q, bw)
		return int64(f), err
	}
	return 0, nil
}

func readFloat(b []byte, p, w int) (float64, error) {
	u, err := readUint(b, p, w)
	if err != nil {
		return 0, err
	}
	var f float64
	switch w {
	case 4:
		f = float64(math.Float32frombits(uint32(u)))
	case 8:
		f = math.Float64frombits(u)
	default:
		return 0, errFlex
	}
	if math.IsNaN(f) || math.Abs(f) > math.MaxInt64 {
		return 0, errFlex
	}
	return f, nil
}
