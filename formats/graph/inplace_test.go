package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// g builds a single-model graph source from tensor and op lines.
func g(align int, tensors, ops []string) string {
	return fmt.Sprintf(`{"alignment": %d, "tensors": [%s], "ops": [%s]}`, align, strings.Join(tensors, ",\n"), strings.Join(ops, ",\n"))
}

func ten(name string, kind string, shape ...int) string {
	s := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shape)), ","), "[]")
	return fmt.Sprintf(`{"name": %q, "shape": [%s], "dtype": "float32", "kind": %q}`, name, s, kind)
}

func op(name, typ string, ins, outs []string, extra string) string {
	q := func(xs []string) string {
		var o []string
		for _, x := range xs {
			o = append(o, fmt.Sprintf("%q", x))
		}
		return strings.Join(o, ", ")
	}
	if extra != "" {
		extra = ", " + extra
	}
	return fmt.Sprintf(`{"name": %q, "type": %q, "inputs": [%s], "outputs": [%s]%s}`, name, typ, q(ins), q(outs), extra)
}

func l(xs ...string) []string { return xs }

// alias returns the alias of buffer id, or nil.
func aliasOf(t *testing.T, p *model.Problem, id string) *model.Alias {
	return bufOf(t, p, id).Alias
}

func TestReshapeAliasesWhenInputDies(t *testing.T) {
	tensors := l(ten("x", "input", 1, 8), ten("a", "", 1, 8), ten("r", "", 2, 4), ten("y", "output", 2, 4), ten("z", "output", 1, 8))
	// a dies at the reshape: r is a view of a.
	p, r := build(t, g(1, tensors[:4], l(op("f", "Relu", l("x"), l("a"), ""), op("rs", "Reshape", l("a"), l("r"), ""), op("h", "Relu", l("r"), l("y"), ""))))
	assert.Equal(t, &model.Alias{Parent: "a", Delta: 0}, aliasOf(t, p, "r"))
	assert.Equal(t, int64(32), r.CopyBytesRemoved)
	require.Len(t, r.Aliases, 1)
	assert.Equal(t, "reshape", r.Aliases[0].Rule)
	// a is read again after the reshape: copy.
	p, r = build(t, g(1, append(tensors[:4:4], ten("z", "output", 1, 8)), l(op("f", "Relu", l("x"), l("a"), ""), op("rs", "Flatten", l("a"), l("r"), ""),
		op("h", "Relu", l("r"), l("y"), ""), op("k", "Relu", l("a"), l("z"), ""))))
	assert.Nil(t, aliasOf(t, p, "r"))
	assert.Zero(t, r.CopyBytesRemoved)
	require.Len(t, r.Skipped, 1)
	assert.Contains(t, r.Skipped[0].Reason, "still live")
	// A weight never dies: no view of it.
	p, _ = build(t, g(1, l(ten("w", "weight", 1, 8), ten("r", "", 2, 4), ten("y", "output", 2, 4)),
		l(op("rs", "Squeeze", l("w"), l("r"), ""), op("h", "Relu", l("r"), l("y"), ""))))
	assert.Nil(t, aliasOf(t, p, "r"))
}

func TestConcatPlacesInputsBackToBack(t *testing.T) {
	base := l(ten("x", "input", 1, 4), ten("a", "", 1, 2), ten("b", "", 1, 3), ten("c", "output", 1, 5))
	p, r := build(t, g(1, base, l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Tanh", l("x"), l("b"), ""),
		op("cat", "Concat", l("a", "b"), l("c"), `"axis": -1`))))
	assert.Equal(t, &model.Alias{Parent: "c", Delta: 0}, aliasOf(t, p, "a"))
	assert.Equal(t, &model.Alias{Parent: "c", Delta: 8}, aliasOf(t, p, "b"))
	assert.Equal(t, int64(20), r.CopyBytesRemoved)
	// The alias group spans the inputs' lifetimes: max-live counts c's 20
	// bytes from step 0 (a is written into c) plus x.
	assert.Equal(t, int64(16+20), p.ComputeSweep().MaxLive)
}

func TestConcatConditions(t *testing.T) {
	tests := []struct {
		name    string
		align   int
		tensors []string
		ops     []string
		aliased map[string]model.Alias // child -> alias
		skipped []string               // reasons (substrings), in order
	}{
		{"axis not outermost", 1, l(ten("x", "input", 2, 2), ten("a", "", 2, 2), ten("b", "", 2, 2), ten("c", "output", 2, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""), op("cat", "Concat", l("a", "b"), l("c"), `"axis": 1`)),
			nil, l("not the outermost")},
		{"leading ones are fine", 1, l(ten("x", "input", 1, 1, 2), ten("a", "", 1, 1, 2), ten("b", "", 1, 1, 2), ten("c", "output", 1, 1, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""), op("cat", "Concat", l("a", "b"), l("c"), `"axis": 2`)),
			map[string]model.Alias{"a": al("c", 0), "b": al("c", 8)}, nil},
		{"graph input is copied", 1, l(ten("x", "input", 1, 2), ten("a", "", 1, 2), ten("c", "output", 1, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("cat", "Concat", l("x", "a"), l("c"), `"axis": 1`)),
			map[string]model.Alias{"a": al("c", 8)}, l("not produced by an op")},
		{"weight is copied", 1, l(ten("x", "input", 1, 2), ten("w", "weight", 1, 2), ten("a", "", 1, 2), ten("c", "output", 1, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("cat", "Concat", l("a", "w"), l("c"), `"axis": 1`)),
			map[string]model.Alias{"a": al("c", 0)}, l("not produced by an op")},
		{"same input twice", 1, l(ten("x", "input", 1, 2), ten("a", "", 1, 2), ten("c", "output", 1, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("cat", "Concat", l("a", "a"), l("c"), `"axis": 1`)),
			nil, l("more than once", "more than once")},
		{"input of two concats goes in the first", 1,
			l(ten("x", "input", 1, 2), ten("a", "", 1, 2), ten("b", "", 1, 2), ten("c", "output", 1, 4), ten("d", "output", 1, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""),
				op("cat1", "Concat", l("a", "b"), l("c"), `"axis": 1`), op("cat2", "Concat", l("b", "a"), l("d"), `"axis": 1`)),
			map[string]model.Alias{"a": al("c", 0), "b": al("c", 8)}, l("already lies inside", "already lies inside")},
		{"unaligned offset is copied", 64, l(ten("x", "input", 1, 2), ten("a", "", 1, 2), ten("b", "", 1, 16), ten("c", "output", 1, 18)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""), op("cat", "Concat", l("a", "b"), l("c"), `"axis": 1`)),
			map[string]model.Alias{"a": al("c", 0)}, l("not a multiple of the alignment")},
		{"view chain is rerooted", 1, l(ten("x", "input", 1, 4), ten("a", "", 4, 1), ten("r", "", 1, 4), ten("b", "", 1, 4), ten("c", "output", 2, 4)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("rs", "Reshape", l("a"), l("r"), ""), op("h", "Relu", l("x"), l("b"), ""),
				op("cat", "Concat", l("b", "r"), l("c"), `"axis": 0`)),
			map[string]model.Alias{"r": al("a", 0), "b": al("c", 0), "a": al("c", 16)}, nil},
		{"split view is copied", 1, l(ten("x", "input", 2, 2), ten("s1", "", 1, 2), ten("s2", "", 1, 2), ten("c", "output", 2, 2)),
			l(op("sp", "Split", l("x"), l("s1", "s2"), `"axis": 0`), op("cat", "Concat", l("s2", "s1"), l("c"), `"axis": 0`)),
			map[string]model.Alias{"s1": al("x", 0), "s2": al("x", 8)}, l("not produced by an op", "not produced by an op")},
		{"nested concats", 1, l(ten("x", "input", 1, 1), ten("a", "", 1, 1), ten("b", "", 1, 1), ten("c", "", 2, 1), ten("d", "", 1, 1), ten("e", "output", 3, 1)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""), op("cat", "Concat", l("a", "b"), l("c"), `"axis": 0`),
				op("k", "Relu", l("x"), l("d"), ""), op("cat2", "Concat", l("d", "c"), l("e"), `"axis": 0`)),
			map[string]model.Alias{"a": al("c", 0), "b": al("c", 4), "d": al("e", 0), "c": al("e", 4)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, r := build(t, g(tc.align, tc.tensors, tc.ops))
			got := map[string]model.Alias{}
			for _, b := range p.Buffers {
				if b.Alias != nil {
					got[b.ID] = *b.Alias
				}
			}
			if tc.aliased == nil {
				tc.aliased = map[string]model.Alias{}
			}
			assert.Equal(t, tc.aliased, got)
			var reasons []string
			for _, s := range r.Skipped {
				reasons = append(reasons, s.Reason)
			}
			require.Len(t, reasons, len(tc.skipped), "%q", reasons)
			for k := range reasons {
				assert.Contains(t, reasons[k], tc.skipped[k])
			}
			var copies int64
			for _, a := range r.Aliases {
				copies += a.Bytes
			}
			assert.Equal(t, copies, r.CopyBytesRemoved)
			simulate(t, p, mustDecode(t, g(tc.align, tc.tensors, tc.ops)), r)
		})
	}
}

func TestSplitAndSliceViews(t *testing.T) {
	tests := []struct {
		name    string
		tensors []string
		ops     []string
		aliased map[string]model.Alias
		skipped []string
	}{
		{"split outermost", l(ten("x", "input", 1, 6, 2), ten("a", "", 1, 2, 2), ten("b", "", 1, 4, 2), ten("y", "output", 1, 4, 2)),
			l(op("sp", "Split", l("x"), l("a", "b"), `"axis": 1`), op("f", "Add", l("a", "b"), l("y"), "")),
			map[string]model.Alias{"a": al("x", 0), "b": al("x", 16)}, nil},
		{"split inner axis", l(ten("x", "input", 2, 2), ten("a", "", 2, 1), ten("b", "", 2, 1), ten("y", "output", 2, 1)),
			l(op("sp", "Split", l("x"), l("a", "b"), `"axis": 1`), op("f", "Add", l("a", "b"), l("y"), "")),
			nil, l("not the outermost")},
		{"slice rows", l(ten("x", "input", 4, 3), ten("s", "", 2, 3), ten("y", "output", 2, 3)),
			l(op("sl", "Slice", l("x"), l("s"), `"begin": [1, 0]`), op("f", "Add", l("s", "x"), l("y"), "")),
			map[string]model.Alias{"s": al("x", 12)}, nil},
		{"slice one row part", l(ten("x", "input", 4, 3), ten("s", "", 1, 2), ten("y", "output", 1, 2)),
			l(op("sl", "Slice", l("x"), l("s"), `"begin": [2, 1]`), op("f", "Add", l("s", "x"), l("y"), "")),
			map[string]model.Alias{"s": al("x", 28)}, nil},
		{"slice columns", l(ten("x", "input", 4, 3), ten("s", "", 4, 1), ten("y", "output", 4, 1)),
			l(op("sl", "Slice", l("x"), l("s"), `"begin": [0, 1]`), op("f", "Relu", l("s"), l("y"), "")),
			nil, l("not contiguous")},
		{"overlapping slices", l(ten("x", "input", 4, 1), ten("s", "", 2, 1), ten("t", "", 2, 1), ten("y", "output", 2, 1)),
			l(op("sl", "Slice", l("x"), l("s"), `"begin": [0, 0]`), op("sl2", "Slice", l("x"), l("t"), `"begin": [1, 0]`), op("f", "Add", l("s", "t", "x"), l("y"), "")),
			map[string]model.Alias{"s": al("x", 0)}, l("would share bytes with")},
		{"slice outliving its input", l(ten("x", "input", 4, 1), ten("a", "", 4, 1), ten("s", "", 1, 1), ten("y", "output", 1, 1)),
			l(op("f", "Relu", l("x"), l("a"), ""), op("sl", "Slice", l("a"), l("s"), `"begin": [0, 0]`), op("h", "Relu", l("s"), l("y"), "")),
			nil, l("outlives")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, r := build(t, g(1, tc.tensors, tc.ops))
			got := map[string]model.Alias{}
			for _, b := range p.Buffers {
				if b.Alias != nil {
					got[b.ID] = *b.Alias
				}
			}
			if tc.aliased == nil {
				tc.aliased = map[string]model.Alias{}
			}
			assert.Equal(t, tc.aliased, got)
			require.Len(t, r.Skipped, len(tc.skipped))
			for k, s := range r.Skipped {
				assert.Contains(t, s.Reason, tc.skipped[k])
			}
			simulate(t, p, mustDecode(t, g(1, tc.tensors, tc.ops)), r)
		})
	}
}

func mustDecode(t *testing.T, src string) *File {
	f, err := Decode(strings.NewReader(src), "t.graph.json")
	require.NoError(t, err)
	return f
}

func al(parent string, delta int64) model.Alias { return model.Alias{Parent: parent, Delta: delta} }

func TestInPlaceRulesCanBeSwitchedOff(t *testing.T) {
	tensors := l(ten("x", "input", 1, 4), ten("a", "", 1, 2), ten("b", "", 1, 2), ten("c", "", 1, 4), ten("r", "output", 4))
	ops := l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""),
		op("cat", "Concat", l("a", "b"), l("c"), `"axis": 1`), op("rs", "Reshape", l("c"), l("r"), ""))
	src := g(1, tensors, ops)
	_, on := build(t, src)
	assert.Len(t, on.Aliases, 3)
	off := strings.Replace(src, `"alignment": 1,`, `"alignment": 1, "in_place": {"concat": false},`, 1)
	p, r := build(t, off)
	require.Len(t, r.Aliases, 1)
	assert.Equal(t, "reshape", r.Aliases[0].Rule)
	assert.Nil(t, aliasOf(t, p, "a"))
	require.Len(t, r.Skipped, 2)
	assert.Contains(t, r.Skipped[0].Reason, "in_place.concat is off")
	simulate(t, p, mustDecode(t, off), r)
	// Shapes are still checked when a rule is off.
	bad := strings.Replace(off, `[1,4], "dtype": "float32", "kind": ""}`, `[1,5], "dtype": "float32", "kind": ""}`, 1)
	_, _, err := Read(strings.NewReader(bad), "t.graph.json")
	assert.ErrorContains(t, err, "shape mismatch")
}
