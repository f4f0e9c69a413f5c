package tflite

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

const sharedModels = "../../../shared/models/tflite"

// sharedFiles lists the shared TFLite models, skipping when they are absent.
func sharedFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(sharedModels, "*.tflite"))
	if len(files) == 0 {
		t.Skipf("no TFLite models at %s (the shared folder beside the repository)", sharedModels)
	}
	return files
}

func TestLifetimesFollowTFLiteMicro(t *testing.T) {
	chain := gspec{
		tensors: []tspec{act("in", 1, 8), weight("w", 8, 8), act("a", 1, 8), act("b", 1, 8), act("out", 1, 8)},
		ops: []ospec{
			{code: schema.BuiltinOperatorFULLY_CONNECTED, in: []int32{0, 1, -1}, out: []int32{2}},
			{code: schema.BuiltinOperatorRELU, in: []int32{2}, out: []int32{3}},
			{code: schema.BuiltinOperatorRELU, in: []int32{3}, out: []int32{4}},
		},
		in: []int32{0}, out: []int32{4},
	}
	twoOuts := gspec{
		tensors: []tspec{act("in", 4), act("x", 4), act("unused", 4), act("out", 4)},
		ops: []ospec{
			{code: schema.BuiltinOperatorSPLIT, in: []int32{0}, out: []int32{1, 2}},
			{code: schema.BuiltinOperatorRELU, in: []int32{1}, out: []int32{3}},
		},
		in: []int32{0}, out: []int32{3},
	}
	branch := func() gspec {
		return gspec{tensors: []tspec{act("p", 4), act("q", 4)},
			ops: []ospec{{code: schema.BuiltinOperatorRELU, in: []int32{0}, out: []int32{1}}},
			in:  []int32{0}, out: []int32{1}}
	}
	withIf := gspec{
		tensors: []tspec{act("cond", 1), act("x", 4), act("y", 4)},
		ops:     []ospec{{code: schema.BuiltinOperatorIF, in: []int32{0, 1}, out: []int32{2}, callees: []int32{1, 2}}},
		in:      []int32{0, 1}, out: []int32{2},
	}
	tests := []struct {
		name   string
		data   []byte
		ops    int
		scopes [][2]int // per tensor: first, last
	}{
		// scopes worked out by hand from MarkAllocationLifetimes: inputs
		// at 0, op i at scope i+1, outputs of the subgraph to its last scope
		{"chain", buildModel(chain), 3, [][2]int{{0, 1}, {-1, 1}, {1, 2}, {2, 3}, {3, 3}}},
		{"output nobody reads", buildModel(twoOuts), 2, [][2]int{{0, 1}, {1, 2}, {1, 1}, {2, 2}}},
		// IF at scope 1 opens scope 2 for then (its op at 3) and 4 for
		// else (its op at 5); the IF's own inputs and outputs are used
		// after both, at 5
		{"if", buildModel(withIf, branch(), branch()), 5,
			[][2]int{{0, 5}, {0, 5}, {1, 5}, {2, 3}, {3, 3}, {4, 5}, {5, 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.data, tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.ops, m.Ops)
			require.Len(t, m.Tensors, len(tc.scopes))
			for i, want := range tc.scopes {
				assert.Equal(t, want, [2]int{m.Tensors[i].First, m.Tensors[i].Last}, "tensor %d %s", i, m.Tensors[i].Name)
			}
		})
	}
}

func TestArenaProblem(t *testing.T) {
	g := gspec{
		tensors: []tspec{act("in", 1, 10), weight("w", 10, 10), act("a", 1, 10),
			{name: "state", shape: []int32{1, 10}, typ: schema.TensorTypeFLOAT32, variable: true},
			{name: "out", shape: []int32{3}, typ: schema.TensorTypeFLOAT32}},
		ops: []ospec{
			{code: schema.BuiltinOperatorFULLY_CONNECTED, in: []int32{0, 1, 3}, out: []int32{2}},
			{code: schema.BuiltinOperatorRELU, in: []int32{2}, out: []int32{4}},
		},
		in: []int32{0}, out: []int32{4},
	}
	m, err := Decode(buildModel(g), "arena")
	require.NoError(t, err)
	a, err := m.Arena()
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 4}, a.Tensors, "constants and variables are not arena buffers")
	assert.Equal(t, int64(48), a.VariableBytes, "40 bytes of float32 state rounded up to 16")
	want := []model.Buffer{
		{ID: "in", Start: 1, End: 3, Size: 16, Align: 16, Kind: model.Input},
		{ID: "a", Start: 2, End: 4, Size: 16, Align: 16},
		{ID: "out", Start: 3, End: 4, Size: 16, Align: 16, Kind: model.Output},
	}
	assert.Equal(t, want, a.Problem.Buffers)
}

func TestDecodeRefuses(t *testing.T) {
	self := gspec{tensors: []tspec{act("c", 1), act("x", 4)},
		ops: []ospec{{code: schema.BuiltinOperatorCALL_ONCE, callees: []int32{0}}}, in: []int32{0}, out: []int32{1}}
	missing := gspec{tensors: []tspec{act("c", 1)},
		ops: []ospec{{code: schema.BuiltinOperatorCALL_ONCE, callees: []int32{7}}}, in: []int32{0}}
	badTensor := gspec{tensors: []tspec{act("x", 4)},
		ops: []ospec{{code: schema.BuiltinOperatorRELU, in: []int32{0}, out: []int32{3}}}, in: []int32{0}}
	dynamic := gspec{tensors: []tspec{act("x", -1, 4)}, in: []int32{0}}
	stringT := gspec{tensors: []tspec{{name: "s", shape: []int32{2}, typ: schema.TensorTypeSTRING}}, in: []int32{0}}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a TFLite model: 0 bytes"},
		{"not tflite", []byte("id,lower,upper,size\n"), "file identifier"},
		{"recursion", buildModel(self), "subgraph 0 calls itself"},
		{"missing subgraph", buildModel(missing), "calls subgraph 7, but the model has 1 subgraphs"},
		{"tensor out of range", buildModel(badTensor), "refers to tensor 3, but it has 1 tensors"},
		{"dynamic shape", buildModel(dynamic), "dimension 0 is -1"},
		{"string tensor", buildModel(stringT), "type STRING has no fixed size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.data, "x.tflite")
			if err == nil {
				_, err = m.Arena()
			}
			require.Error(t, err)
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "x.tflite")
		})
	}
}

// TestDamagedFilesNeverPanic truncates and corrupts the shared models:
// every result is a model or an InputError.
func TestDamagedFilesNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range sharedFiles(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		try := func(d []byte) {
			m, err := Decode(d, f)
			if err == nil {
				_, err = m.Arena()
			}
			if err != nil {
				var ie *model.InputError
				require.ErrorAs(t, err, &ie, "%s", f)
			}
		}
		for n := 0; n < len(data); n += 1 + len(data)/300 {
			try(data[:n])
		}
		for range 300 {
			d := append([]byte(nil), data...)
			for range 1 + rng.IntN(8) {
				d[8+rng.IntN(len(d)-8)] = byte(rng.Uint32())
			}
			try(d)
		}
	}
}

// TestTruncatedModelMessage: a model cut short is named as truncated, with
// the file's size, in one line.
func TestTruncatedModelMessage(t *testing.T) {
	for _, f := range sharedFiles(t) {
		if filepath.Base(f) != "person_detect.tflite" {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = Decode(data[:5000], "cut.tflite")
		require.Error(t, err)
		assert.Equal(t, "cut.tflite: truncated or corrupted flatbuffer: an offset points outside the 5000-byte file "+
			"(runtime error: slice bounds out of range [220180:5000])", err.Error())
		return
	}
	t.Skip("person_detect.tflite is absent")
}

// TestSharedModelsRoundTrip plans every shared model, writes the plan into
// a copy as TFLite Micro's offline plan, reads it back and checks that the
// offsets are the plan, the verifier accepts them, the data buffers keep
// their 16-byte alignment, and every other field of the model is unchanged.
func TestSharedModelsRoundTrip(t *testing.T) {
	for _, f := range sharedFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := ReadFile(f)
			require.NoError(t, err)
			// The tensors alone: the writer's round trip (the device's
			// arena with scratch is checked against tflm_run in
			// scratch_test.go and cmd/optalloc).
			a, err := m.ArenaWith(ArenaOptions{NoScratch: true})
			require.NoError(t, err)
			res, err := solve.Solve(context.Background(), a.Problem, solve.Options{TimeLimit: 5 * time.Second, Threads: 1})
			require.NoError(t, err)
			require.NotNil(t, res.Plan)
			greedy, _ := heuristics.ByName("tflm-greedy")
			gp, err := greedy.Plan(context.Background(), a.Problem)
			require.NoError(t, err)
			require.Empty(t, verify.Check(a.Problem, gp))
			assert.LessOrEqual(t, res.Peak, gp.Peak(a.Problem), "optalloc above TFLite Micro's greedy")

			off, err := a.OfflinePlan(m, res.Plan)
			require.NoError(t, err)
			data, err := m.WithOfflinePlan(off)
			require.NoError(t, err)
			back, err := Decode(data, "back.tflite")
			require.NoError(t, err)
			require.NotNil(t, back.Offline)
			assert.Equal(t, off.Offsets, back.Offline.Offsets)
			assert.Equal(t, int32(len(m.Subgraphs)), back.Offline.Subgraphs)
			ba, err := back.ArenaWith(ArenaOptions{NoScratch: true})
			require.NoError(t, err)
			assert.Equal(t, a.Problem.Buffers, ba.Problem.Buffers, "the written model plans the same")
			pl := model.NewPlan(ba.Problem)
			for j, i := range ba.Tensors {
				if ba.Problem.Buffers[j].Size == 0 {
					require.Equal(t, int32(Online), back.Offline.Offsets[i], "a zero-byte tensor is left to the runtime, which never allocates it")
					continue
				}
				require.GreaterOrEqual(t, back.Offline.Offsets[i], int32(0))
				pl.Placements[j].Offset = int64(back.Offline.Offsets[i])
			}
			require.Empty(t, verify.Check(ba.Problem, pl))
			assert.Equal(t, res.Peak, pl.Peak(ba.Problem))

			assertBuffersKeepAlignment(t, m, back)
			assertOnlyPlanChanged(t, m, data)
			assert.Equal(t, withoutPlan(m.root.UnPack()), withoutPlan(back.root.UnPack()), "a field other than the plan changed")
		})
	}
}

// withoutPlan drops the offline-plan metadata and its buffer.
func withoutPlan(mt *schema.ModelT) *schema.ModelT {
	for k, md := range mt.Metadata {
		if md.Name == OfflineMetadata {
			mt.Buffers[md.Buffer] = nil
			mt.Metadata = append(mt.Metadata[:k], mt.Metadata[k+1:]...)
			break
		}
	}
	for len(mt.Buffers) > 0 && mt.Buffers[len(mt.Buffers)-1] == nil {
		mt.Buffers = mt.Buffers[:len(mt.Buffers)-1]
	}
	if len(mt.Metadata) == 0 {
		mt.Metadata = nil
	}
	return mt
}

// dataStarts lists where each buffer's data starts in the file (-1: none).
func dataStarts(m *Model) []int {
	var b schema.Buffer
	var out []int
	for i := range m.root.BuffersLength() {
		m.root.Buffers(&b, i)
		at := -1
		if d := b.DataBytes(); len(d) > 0 {
			at = int(uintptr(unsafe.Pointer(&d[0])) - uintptr(unsafe.Pointer(&m.data[0])))
		}
		out = append(out, at)
	}
	return out
}

// assertBuffersKeepAlignment: every buffer of the written model starts at
// the same position modulo 16 as in the original (TFLite's converter
// writes them 16-byte aligned; older ones did not), and a new buffer (the
// plan's) is 16-byte aligned.
func assertBuffersKeepAlignment(t *testing.T, in, out *Model) {
	t.Helper()
	a, b := dataStarts(in), dataStarts(out)
	for i, at := range b {
		if at < 0 {
			continue
		}
		if i < len(a) && a[i] >= 0 {
			assert.Equal(t, a[i]%16, at%16, "buffer %d's alignment changed", i)
		} else {
			assert.Zero(t, at%16, "new buffer %d's data starts at byte %d", i, at)
		}
	}
}

// assertOnlyPlanChanged: the written file is the original with the plan's
// bytes overwritten in place, or the original byte for byte behind a new
// root table.
func assertOnlyPlanChanged(t *testing.T, in *Model, out []byte) {
	t.Helper()
	if len(out) == len(in.data) {
		var diff []int
		for i := range out {
			if out[i] != in.data[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 0 {
			return
		}
		back, err := Decode(out, "back")
		require.NoError(t, err)
		plan := back.Offline.Encode()
		at := bytes.Index(out, plan)
		require.GreaterOrEqual(t, at, 0)
		assert.GreaterOrEqual(t, diff[0], at, "a byte before the plan changed")
		assert.Less(t, diff[len(diff)-1], at+len(plan), "a byte after the plan changed")
		return
	}
	require.Greater(t, len(out), len(in.data))
	assert.True(t, bytes.Equal(in.data, out[len(out)-len(in.data):]), "the original is not carried byte for byte")
	assert.Zero(t, (len(out)-len(in.data))%16, "the original moved off its 16-byte alignment")
}

func TestWithOfflinePlanWantsEveryTensor(t *testing.T) {
	m, err := Decode(buildModel(gspec{tensors: []tspec{act("x", 4)}, in: []int32{0}, out: []int32{0}}), "one")
	require.NoError(t, err)
	_, err = m.WithOfflinePlan(&OfflinePlan{Offsets: []int32{0, 0}})
	assert.ErrorContains(t, err, "2 offsets for 1 tensors")
}

// TestOfflineAliases: operands of one CUSTOM operator that the carried
// plan nests inside each other while live become aliases; operands of a
// builtin operator, or overlaps that do not nest, stay apart.
func TestOfflineAliases(t *testing.T) {
	model := func(code schema.BuiltinOperator) []byte {
		return buildModel(gspec{
			tensors: []tspec{act("in", 64), act("scratch", 256), act("out", 32)},
			ops:     []ospec{{code: code, in: []int32{0, 1}, out: []int32{2}}},
			in:      []int32{0}, out: []int32{2},
		})
	}
	tests := []struct {
		name    string
		code    schema.BuiltinOperator
		offsets []int32
		aliases int
		parents map[string]string
	}{
		{"custom nested", schema.BuiltinOperatorCUSTOM, []int32{64, 0, 128}, 2, map[string]string{"in": "scratch", "out": "scratch"}},
		{"custom chain", schema.BuiltinOperatorCUSTOM, []int32{0, 0, 16}, 2, map[string]string{"in": "scratch", "out": "in"}},
		{"builtin nested", schema.BuiltinOperatorADD, []int32{64, 0, 128}, 0, nil},
		{"custom partial overlap", schema.BuiltinOperatorCUSTOM, []int32{240, 0, 512}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(model(tc.code), "m")
			require.NoError(t, err)
			data, err := m.WithOfflinePlan(&OfflinePlan{Offsets: tc.offsets})
			require.NoError(t, err)
			m, err = Decode(data, "m")
			require.NoError(t, err)
			a, err := m.Arena()
			require.NoError(t, err)
			assert.Equal(t, tc.aliases, a.Aliases)
			for _, b := range a.Problem.Buffers {
				if b.Alias != nil {
					assert.Equal(t, tc.parents[b.ID], b.Alias.Parent, b.ID)
				} else {
					assert.Empty(t, tc.parents[b.ID], b.ID)
				}
			}
			strict, err := m.ArenaWith(ArenaOptions{IgnoreOfflineAliases: true})
			require.NoError(t, err)
			assert.Zero(t, strict.Aliases)
		})
	}
}

// TestCellNetExampleUpToDate: examples/cellnet.tflite is what FromGraph
// writes for examples/cellnet.graph.json (INT8, stub weights), and it plans
// like the graph's tensors: every non-weight tensor an arena buffer.
func TestCellNetExampleUpToDate(t *testing.T) {
	f, err := os.Open("../../examples/cellnet.graph.json")
	require.NoError(t, err)
	defer f.Close()
	g, err := graph.Decode(f, "cellnet.graph.json")
	require.NoError(t, err)
	data, err := FromGraph(g, GraphOptions{Int8: true, StubWeights: true})
	require.NoError(t, err)
	have, err := os.ReadFile("../../examples/cellnet.tflite")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, have), "examples/cellnet.tflite differs from the converter's output; regenerate it (examples/README.md)")
	m, err := Decode(data, "cellnet.tflite")
	require.NoError(t, err)
	a, err := m.Arena()
	require.NoError(t, err)
	weights := 0
	for _, tt := range g.Tensors {
		if tt.Kind == "weight" {
			weights++
		}
	}
	assert.Len(t, a.Problem.Buffers, len(g.Tensors)-weights)
}

// hostile returns a crafted model of ../shared/hostile/tflite.
func hostile(t *testing.T, name string) *Model {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "hostile", "tflite", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent", path)
	}
	m, err := ReadFile(path)
	require.NoError(t, err)
	return m
}

// planAll places every planned tensor of m at offset 16·i (valid or not:
// the writer's business is the bytes).
func planAll(m *Model) *OfflinePlan {
	p := &OfflinePlan{Subgraphs: int32(len(m.Subgraphs)), Offsets: make([]int32, len(m.Tensors))}
	for i := range p.Offsets {
		p.Offsets[i] = Online
		if m.Tensors[i].Planned() {
			p.Offsets[i] = int32(16 * i)
		}
	}
	return p
}

// TestWriterHostileModels: D6, the plan's metadata buffer is a weight's:
// the plan goes elsewhere and every weight reads back unchanged; D7, two
// entries: the last one (TFLite Micro's) gets the plan, the first is kept;
// D17, a root field newer than the schema is carried with its value.
func TestWriterHostileModels(t *testing.T) {
	t.Run("shared_meta_weight", func(t *testing.T) {
		m := hostile(t, "shared_meta_weight.tflite")
		data, err := m.WithOfflinePlan(planAll(m))
		require.NoError(t, err)
		back, err := Decode(data, "back")
		require.NoError(t, err)
		assert.Equal(t, planAll(m).Offsets, back.Offline.Offsets)
		mt, bt := m.root.UnPack(), back.root.UnPack()
		for _, tt := range mt.Subgraphs[0].Tensors {
			if d := mt.Buffers[tt.Buffer].Data; len(d) > 0 {
				assert.Equal(t, d, bt.Buffers[tt.Buffer].Data, "weight %q changed", tt.Name)
			}
		}
		assertOnlyPlanChanged(t, m, data)
	})
	t.Run("two_plans_small", func(t *testing.T) {
		m := hostile(t, "two_plans_small.tflite")
		assert.Equal(t, 2, m.OfflineEntries)
		data, err := m.WithOfflinePlan(planAll(m))
		require.NoError(t, err)
		back, err := Decode(data, "back")
		require.NoError(t, err)
		assert.Equal(t, 2, back.OfflineEntries)
		assert.Equal(t, planAll(m).Offsets, back.Offline.Offsets)
		assertOnlyPlanChanged(t, m, data)
	})
	t.Run("unknown_field", func(t *testing.T) {
		m := hostile(t, "unknown_field.tflite")
		data, err := m.WithOfflinePlan(planAll(m))
		require.NoError(t, err)
		back, err := Decode(data, "back")
		require.NoError(t, err)
		f, err := back.layout()
		require.NoError(t, err)
		require.Greater(t, len(f.slots), 11)
		require.NotZero(t, f.slots[11], "field 11 dropped")
		assert.Equal(t, 0x00C0FFEE, le32(data, f.root+f.slots[11]))
		assertOnlyPlanChanged(t, m, data)
	})
}

// FuzzWithOfflinePlan: whatever Decode accepts, writing a plan into it
// gives a model that reads back with that plan, or an error — never a
// panic.
func FuzzWithOfflinePlan(f *testing.F) {
	for _, p := range []string{"hello_world_int8.tflite", "simple_add_model.tflite", "trained_lstm_int8.tflite"} {
		if data, err := os.ReadFile(filepath.Join(sharedModels, p)); err == nil {
			f.Add(data)
		}
	}
	f.Add(buildModel(gspec{tensors: []tspec{act("x", 4), act("y", 4)}, ops: []ospec{{code: schema.BuiltinOperatorRELU, in: []int32{0}, out: []int32{1}}}, in: []int32{0}, out: []int32{1}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, "fuzz")
		if err != nil {
			return
		}
		plan := planAll(m)
		out, err := m.WithOfflinePlan(plan)
		if err != nil {
			return
		}
		back, err := Decode(out, "back")
		require.NoError(t, err, "the written model does not read back")
		require.NotNil(t, back.Offline)
		require.Equal(t, plan.Offsets, back.Offline.Offsets)
		require.Equal(t, len(m.Tensors), len(back.Tensors))
	})
}

// TestIDsUniqueAndUTF8: D16, a tensor named like another's renaming
// ("x#1") no longer makes two buffers share an id; D9, a name that is not
// UTF-8 becomes an id with \xNN escapes that every plan format carries.
func TestIDsUniqueAndUTF8(t *testing.T) {
	for _, name := range []string{"id_hash_collision.tflite", "id_latin1.tflite"} {
		t.Run(name, func(t *testing.T) {
			m := hostile(t, name)
			a, err := m.Arena()
			require.NoError(t, err)
			seen := map[string]bool{}
			for _, b := range a.Problem.Buffers {
				assert.True(t, utf8.ValidString(b.ID), "id %q", b.ID)
				assert.False(t, seen[b.ID], "id %q twice", b.ID)
				seen[b.ID] = true
			}
		})
	}
	assert.Equal(t, `caf\xe9`, validName("caf\xe9"))
	assert.Equal(t, "café", validName("café"))
}

// TestWritableRefusesExternalBuffers: a model keeping a buffer outside the
// flatbuffer (the >2 GiB extension) is refused by Writable, so the CLI can
// say so before planning, and by WithOfflinePlan.
func TestWritableRefusesExternalBuffers(t *testing.T) {
	mt := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}, {Offset: 4096, Size: 64}},
		Subgraphs: []*schema.SubGraphT{{Tensors: []*schema.TensorT{{Name: "x", Shape: []int32{4}, Type: schema.TensorTypeINT8}}, Inputs: []int32{0}, Outputs: []int32{0}}}}
	b := flatbuffers.NewBuilder(256)
	b.FinishWithFileIdentifier(mt.Pack(b), []byte(Identifier))
	m, err := Decode(b.FinishedBytes(), "external.tflite")
	require.NoError(t, err)
	assert.ErrorContains(t, m.Writable(), "outside the flatbuffer (buffer 1)")
	_, err = m.WithOfflinePlan(planAll(m))
	assert.ErrorContains(t, err, "outside the flatbuffer")
	hello := hostile(t, "shared_meta_weight.tflite")
	assert.NoError(t, hello.Writable())
}

// TestDecodeIgnoresCapacity: a file whose last bytes a vector runs past
// decodes exactly as the same bytes alone do, even when the slice's
// capacity holds more bytes after them (a slice of a larger buffer). The
// generated accessors slice up to the capacity; FuzzWithOfflinePlan found a
// model that decoded only because of it, and whose plan then did not read
// back.
func TestDecodeIgnoresCapacity(t *testing.T) {
	data := buildModel(gspec{tensors: []tspec{act("x", 4), act("y", 4)}, ops: []ospec{{code: schema.BuiltinOperatorRELU, in: []int32{0}, out: []int32{1}}}, in: []int32{0}, out: []int32{1}})
	m, err := Decode(data, "ok")
	require.NoError(t, err)
	// Stretch the last tensor's name past the end of the file.
	var sg schema.SubGraph
	var tt schema.Tensor
	m.root.Subgraphs(&sg, 0)
	sg.Tensors(&tt, 1)
	name := tt.Name()
	at := int(uintptr(unsafe.Pointer(&name[0])) - uintptr(unsafe.Pointer(&data[0])))
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint32(bad[at-4:], uint32(len(bad)-at+8))
	roomy := make([]byte, len(bad), len(bad)+64)
	copy(roomy, bad)
	_, errAlone := Decode(bad, "bad")
	_, errRoomy := Decode(roomy, "bad")
	require.Error(t, errAlone, "the name runs past the file")
	assert.Error(t, errRoomy, "the bytes after the file's end were read")
}
