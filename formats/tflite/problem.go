package tflite

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

func init() {
	formats.Register(".tflite", readProblem)
	formats.RegisterSniffer(Sniff, readProblem)
}

// readProblem reads a model and returns its arena problem.
func readProblem(r io.Reader, name string) (*model.Problem, error) {
	m, err := Read(r, name)
	if err != nil {
		return nil, err
	}
	a, err := m.Arena()
	if err != nil {
		return nil, err
	}
	return a.Problem, nil
}

// Alignment is TFLite Micro's arena buffer alignment
// (MicroArenaBufferAlignment): every planned size is rounded up to it and
// every offset is a multiple of it.
const Alignment = 16

// Arena is the memory problem of a model's arena: one buffer per tensor
// that TFLite Micro's planner places (Tensor.Planned), in tensor order, then
// one per kernel scratch request (Scratch, in request order: TFLite Micro's
// AddBuffer order), each with its size rounded up to Alignment and its
// lifetime [First+1, Last+2) — so that two buffers are live together
// exactly when TFLite Micro's inclusive scopes intersect. Constants
// (weights) and variable tensors are not in it.
type Arena struct {
	Problem *model.Problem
	// Tensors[i] is the global tensor index of Problem.Buffers[i].
	Tensors []int
	// Scratch[k] is Problem.Buffers[len(Tensors)+k]: scratch buffers the
	// runtime places online, around the offline-planned tensors.
	Scratch []ScratchRequest
	// Kernels names where Scratch comes from: ReferenceKernels,
	// CMSISNNKernels, "recorded in FILE", or "" when scratch is left out
	// (ArenaOptions.NoScratch).
	Kernels string
	// Target is the device planned for (ArenaOptions.Target).
	Target Target
	// Unknown names what optalloc cannot know of the target's scratch
	// (Model.Scratch): custom operators it has no model of, compressed
	// tensors. The arena stated may then be smaller than the device's.
	Unknown []string
	// ScratchSkipped names the operators whose reference kernel would
	// refuse the model, so that no scratch is counted for them
	// (Model.ReferenceScratch).
	ScratchSkipped []string
	// VariableBytes sums the variable tensors, which TFLite Micro allocates
	// in its persistent section outside the plan.
	VariableBytes int64
	// Aliases counts the buffers placed inside another one because the
	// model's offline plan nests them there while both are live (see
	// ArenaOptions).
	Aliases int
}

// ArenaOptions tune Model.ArenaWith.
type ArenaOptions struct {
	// IgnoreOfflineAliases plans every tensor apart even where the model's
	// offline plan nests one operand of a CUSTOM operator inside another
	// while both are live. By default such nesting is kept as an alias
	// (the inner tensor at its delta inside the outer one): the compiler
	// that wrote the plan and the custom operator share a layout — Arm
	// Vela places its NPU operator's input and output inside the
	// operator's scratch area — and a new plan must neither pull them
	// apart (that would double Vela's arena) nor move them relative to
	// each other. Builtin operators never run in place, so nesting among
	// their tensors stays an overlap (verify reports it).
	IgnoreOfflineAliases bool
	// NoScratch leaves the kernels' scratch buffers out: the tensors alone,
	// an arena smaller than the device's wherever a kernel asks for scratch.
	NoScratch bool
	// Recorded, when not nil, is the scratch list of the target's kernel
	// library (ReadBufferList), planned instead of the reference kernels'
	// requests; RecordedFrom names its file.
	Recorded     []ScratchRequest
	RecordedFrom string
	// Target is the device planned for: its kernels' scratch requests
	// (Model.Scratch). The zero Target is the host's reference kernels.
	Target Target
	// PointerBytes overrides the target's pointer width when positive.
	PointerBytes int64
}

// Arena builds the arena problem with the default options: tensors and
// the reference kernels' scratch buffers.
func (m *Model) Arena() (*Arena, error) { return m.ArenaWith(ArenaOptions{}) }

// ArenaWith builds the arena problem. Buffer ids are the tensor names,
// prefixed by "sgN/" for tensors of subgraph N > 0, with "#INDEX" (the
// global tensor index) appended where a name is empty or repeated. A
// planned tensor without a fixed size (STRING, RESOURCE, VARIANT, INT4) is
// an error naming it.
func (m *Model) ArenaWith(opt ArenaOptions) (*Arena, error) {
	a := &Arena{Problem: &model.Problem{Name: m.Name}, Target: opt.Target.orHost()}
	ids := map[string]int{}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if t.Variable && t.Bytes > 0 {
			a.VariableBytes += alignUp(t.Bytes)
		}
		if !t.Planned() {
			continue
		}
		if t.Bytes < 0 {
			return nil, &model.InputError{File: m.Name, Msg: fmt.Sprintf("tensor %d (%q): type %s has no fixed size, so it cannot be planned offline", t.Index, t.Name, t.Type)}
		}
		ids[m.baseID(t)]++
		a.Tensors = append(a.Tensors, i)
	}
	kinds := map[int]model.Kind{}
	for _, i := range m.Inputs {
		kinds[i] = model.Input
	}
	for _, i := range m.Outputs {
		kinds[i] = model.Output
	}
	a.Problem.Buffers = make([]model.Buffer, len(a.Tensors))
	used := make(map[string]bool, len(a.Tensors))
	for j, i := range a.Tensors {
		t := &m.Tensors[i]
		id := m.baseID(t)
		if id == "" || ids[id] > 1 {
			id += "#" + strconv.Itoa(t.Index)
		}
		// A tensor may be named like another's renaming ("x#1"): the
		// renamed one moves on until its id is unique.
		for used[id] {
			id += "#" + strconv.Itoa(t.Index)
		}
		used[id] = true
		a.Problem.Buffers[j] = model.Buffer{
			ID:    id,
			Start: int64(t.First) + 1,
			End:   int64(t.Last) + 2,
			Size:  alignUp(t.Bytes),
			Align: Alignment,
			Kind:  kinds[i],
		}
	}
	if err := a.addScratch(m, opt); err != nil {
		return nil, err
	}
	if err := a.Problem.Validate(); err != nil {
		return nil, err
	}
	if m.Offline != nil && !opt.IgnoreOfflineAliases {
		a.offlineAliases(m)
	}
	return a, nil
}

// Online marks the buffers of Problem that TFLite Micro places itself,
// online, around the offline plan: the scratch buffers. It is nil when
// there are none.
func (a *Arena) Online() []bool {
	if len(a.Scratch) == 0 {
		return nil
	}
	on := make([]bool, len(a.Problem.Buffers))
	for k := len(a.Tensors); k < len(on); k++ {
		on[k] = true
	}
	return on
}

// addScratch appends the scratch buffers opt asks for.
func (a *Arena) addScratch(m *Model, opt ArenaOptions) error {
	switch {
	case opt.NoScratch:
		return nil
	case opt.Recorded != nil:
		a.Scratch, a.Kernels = opt.Recorded, "recorded in "+opt.RecordedFrom
	default:
		t := a.Target
		if opt.PointerBytes > 0 {
			t.ptr = opt.PointerBytes
		}
		reqs, skipped, unknown, err := m.Scratch(t)
		if err != nil {
			return err
		}
		a.Scratch, a.Kernels, a.ScratchSkipped, a.Unknown = reqs, t.Kernels(), skipped, unknown
	}
	used := map[string]bool{}
	for _, b := range a.Problem.Buffers {
		used[b.ID] = true
	}
	for k, r := range a.Scratch {
		// tflm_run's --dump-buffers calls request K "sK"; the operator's
		// name follows, and a tensor of the same name moves it aside.
		id := "s" + strconv.Itoa(k) + "/" + r.Op
		for used[id] {
			id += "#scratch"
		}
		used[id] = true
		a.Problem.Buffers = append(a.Problem.Buffers, model.Buffer{
			ID:    id,
			Start: int64(r.First) + 1,
			End:   int64(r.Last) + 2,
			Size:  alignUp(r.Bytes),
			Align: Alignment,
			Kind:  model.Scratch,
		})
	}
	return nil
}

func (m *Model) baseID(t *Tensor) string {
	name := validName(t.Name)
	if t.Subgraph > 0 {
		return "sg" + strconv.Itoa(t.Subgraph) + "/" + name
	}
	return name
}

// validName is a tensor name as an id: bytes that are not UTF-8 are
// written \xNN, so that every plan format (JSON needs UTF-8) carries the
// id unchanged and the plan reads back.
func validName(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&b, "\\x%02x", name[i])
			i++
			continue
		}
		b.WriteString(name[i : i+n])
		i += n
	}
	return b.String()
}

func alignUp(v int64) int64 { return (v + Alignment - 1) / Alignment * Alignment }

// OfflinePlan turns a plan of the arena problem into TFLite Micro's offline
// plan: each planned tensor at its offset, every other tensor Online, and
// so is every zero-byte tensor (the runtime never allocates one); scratch
// buffers have no slot (the runtime places them online). It
// fails when an offset does not fit in an int32 (TFLite Micro's format).
func (a *Arena) OfflinePlan(m *Model, pl *model.Plan) (*OfflinePlan, error) {
	op := &OfflinePlan{Version: 0, Subgraphs: int32(len(m.Subgraphs)), Offsets: make([]int32, len(m.Tensors))}
	for i := range op.Offsets {
		op.Offsets[i] = Online
	}
	for j, i := range a.Tensors {
		if a.Problem.Buffers[j].Size == 0 {
			continue // TFLite Micro never allocates a zero-byte tensor: Online
		}
		o := pl.Placements[j].Offset
		if o < 0 || o > 1<<31-1 || o+pl.Placements[j].Size > 1<<31-1 {
			return nil, fmt.Errorf("tensor %d (%q) at offset %d: TFLite Micro's offline plan holds int32 offsets", i, m.Tensors[i].Name, o)
		}
		op.Offsets[i] = int32(o)
	}
	return op, nil
}

// maxAliasScan bounds the offline-placed tensors offlineAliases compares
// pairwise.
const maxAliasScan = 4096

// offlineAliases makes every operand of a CUSTOM operator that the
// model's offline plan nests inside another operand of the same operator,
// live at the same time, an alias of the smallest such container (for equal ranges the lower tensor index is the outer one, so
// the containers form chains). When the aliases do not validate (two
// tensors of one group overlap without nesting) they are all dropped.
func (a *Arena) offlineAliases(m *Model) {
	p := a.Problem
	var placed []int // buffer indices with an offline offset
	for j, i := range a.Tensors {
		if m.Offline.Offsets[i] >= 0 {
			placed = append(placed, j)
		}
	}
	if len(placed) > maxAliasScan {
		return
	}
	lo := func(j int) int64 { return int64(m.Offline.Offsets[a.Tensors[j]]) }
	// ops[j] lists the CUSTOM operators buffer j is an operand of.
	ops := map[int][]int{}
	buffer := map[int]int{}
	for j, i := range a.Tensors {
		buffer[i] = j
	}
	for c, ts := range m.customOps {
		for _, i := range ts {
			if j, ok := buffer[i]; ok && !slices.Contains(ops[j], c) {
				ops[j] = append(ops[j], c)
			}
		}
	}
	outer := func(k, j int) bool { // k may hold j
		bk, bj := &p.Buffers[k], &p.Buffers[j]
		if k == j || !slices.ContainsFunc(ops[k], func(c int) bool { return slices.Contains(ops[j], c) }) || bk.Size == 0 || bj.Size == 0 || bk.End <= bj.Start || bj.End <= bk.Start {
			return false
		}
		if lo(k) > lo(j) || lo(k)+bk.Size < lo(j)+bj.Size {
			return false
		}
		return bk.Size > bj.Size || lo(k) < lo(j) || k < j
	}
	aliases := map[int]model.Alias{}
	for _, j := range placed {
		best := -1
		for _, k := range placed {
			if outer(k, j) && (best < 0 || p.Buffers[k].Size < p.Buffers[best].Size ||
				p.Buffers[k].Size == p.Buffers[best].Size && k > best) {
				best = k
			}
		}
		if best >= 0 {
			aliases[j] = model.Alias{Parent: p.Buffers[best].ID, Delta: lo(j) - lo(best)}
		}
	}
	if len(aliases) == 0 {
		return
	}
	q := &model.Problem{Name: p.Name, Buffers: append([]model.Buffer(nil), p.Buffers...)}
	for j, al := range aliases {
		q.Buffers[j].Alias = &al
	}
	if q.Validate() != nil {
		return
	}
	a.Problem, a.Aliases = q, len(aliases)
}
