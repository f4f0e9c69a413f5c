package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/graph/internal/zoo"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

const examplesDir = "../../examples"

func sortedNames(m map[string]*graph.File) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TestGenerateExamples rewrites examples/*.graph.json from the generators
// when OPTALLOC_GEN_EXAMPLES=1.
func TestGenerateExamples(t *testing.T) {
	if os.Getenv("OPTALLOC_GEN_EXAMPLES") != "1" {
		t.Skip("set OPTALLOC_GEN_EXAMPLES=1 to rewrite examples/*.graph.json")
	}
	all := zoo.All()
	for _, name := range sortedNames(all) {
		var buf bytes.Buffer
		require.NoError(t, graph.Write(&buf, all[name]))
		require.NoError(t, os.WriteFile(filepath.Join(examplesDir, name), buf.Bytes(), 0o644))
	}
}

// TestExamplesUpToDate checks that the shipped examples are exactly what
// the generators produce, and small.
func TestExamplesUpToDate(t *testing.T) {
	all := zoo.All()
	for _, name := range sortedNames(all) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, graph.Write(&buf, all[name]))
			have, err := os.ReadFile(filepath.Join(examplesDir, name))
			require.NoError(t, err, "run OPTALLOC_GEN_EXAMPLES=1 go test ./formats/graph/ -run TestGenerateExamples")
			assert.True(t, bytes.Equal(buf.Bytes(), have), "%s differs from its generator; regenerate it", name)
			assert.Less(t, len(have), 1<<20, "example files must stay under 1 MB")
		})
	}
}

func planExample(t *testing.T, name string) (*model.Problem, *graph.Report, *model.Plan) {
	t.Helper()
	p, err := formats.Load(filepath.Join(examplesDir, name))
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(examplesDir, name))
	require.NoError(t, err)
	defer f.Close()
	p2, rep, err := graph.Read(f, name)
	require.NoError(t, err)
	require.Equal(t, len(p.Buffers), len(p2.Buffers))
	require.NoError(t, p.Validate())
	pl, ok := heuristics.ByName("greedy-size")
	require.True(t, ok)
	plan, err := pl.Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan), "greedy-size plan of %s must verify", name)
	return p, rep, plan
}

func greedyPeak(p *model.Problem) (int64, error) {
	pl, _ := heuristics.ByName("greedy-size")
	plan, err := pl.Plan(context.Background(), p)
	if err != nil {
		return 0, err
	}
	if v := verify.Check(p, plan); len(v) > 0 {
		return 0, fmt.Errorf("invalid plan: %v", v[0])
	}
	return plan.Peak(p), nil
}

// TestExamplesPlanAndVerify loads every example through formats.Load, plans
// it with greedy-size, verifies the plan, and checks that every concat
// input the report says is zero-copy lies inside the concat output.
func TestExamplesPlanAndVerify(t *testing.T) {
	for _, name := range sortedNames(zoo.All()) {
		t.Run(name, func(t *testing.T) {
			p, rep, plan := planExample(t, name)
			idx := p.Index()
			for _, a := range rep.Aliases {
				c, par := plan.Placements[idx[a.Child]], plan.Placements[idx[a.Parent]]
				assert.Equal(t, par.Offset+a.Delta, c.Offset, "%s must sit at +%d in %s", a.Child, a.Delta, a.Parent)
				assert.LessOrEqual(t, c.Offset+c.Size, par.Offset+par.Size)
			}
			peak := plan.Peak(p)
			assert.GreaterOrEqual(t, peak, rep.MaxLive)
			assert.LessOrEqual(t, peak, rep.NaiveBytes)
		})
	}
}

// TestTwoModelsShareMemory: the serial two-model example plans below the
// sum of its models' separate arenas, and each shared weight is one buffer.
func TestTwoModelsShareMemory(t *testing.T) {
	p, rep, plan := planExample(t, "two-models-shared-weights.graph.json")
	require.Len(t, rep.Models, 2)
	require.NoError(t, rep.PlanSeparately(greedyPeak))
	sep, planned := rep.SeparateArenas()
	require.True(t, planned)
	assert.Less(t, plan.Peak(p), sep, "shared plan %d must be below the separate arenas %d", plan.Peak(p), sep)
	require.NotEmpty(t, rep.SharedWeights)
	idx := p.Index()
	for _, s := range rep.SharedWeights {
		assert.Contains(t, idx, s.Kept)
		for _, also := range s.Also {
			assert.NotContains(t, idx, also, "shared weight %s must not be stored again", also)
		}
	}
	// The backbone weights appear once: count weight buffers by hash.
	assert.Positive(t, rep.WeightBytesSaved)
	// Every weight stays resident over the whole timeline, so no plan can
	// put another model's activations over it.
	var end int64
	for _, b := range p.Buffers {
		end = max(end, b.End)
	}
	for _, b := range p.Buffers {
		if b.Kind == model.Weight {
			assert.Equal(t, [2]int64{0, end}, [2]int64{b.Start, b.End}, "weight %s", b.ID)
		}
	}
}

// withoutWeights drops the weight buffers (and anything placed inside
// them): what an arena holds when weights live in read-only memory.
func withoutWeights(p *model.Problem) *model.Problem {
	q := &model.Problem{Name: p.Name, Pools: p.Pools}
	drop := map[string]bool{}
	for _, b := range p.Buffers {
		if b.Kind == model.Weight || (b.Alias != nil && drop[b.Alias.Parent]) {
			drop[b.ID] = true
			continue
		}
		q.Buffers = append(q.Buffers, b)
	}
	return q
}

// inPlaceOff builds an example with every in-place rule switched off.
func inPlaceOff(t *testing.T, name string) *model.Problem {
	f, err := os.Open(filepath.Join(examplesDir, name))
	require.NoError(t, err)
	defer f.Close()
	gf, err := graph.Decode(f, name)
	require.NoError(t, err)
	no := false
	gf.InPlace = &graph.InPlace{Reshape: &no, Concat: &no, Split: &no, Slice: &no}
	p, rep, err := graph.Build(gf, name)
	require.NoError(t, err)
	require.Empty(t, rep.Aliases)
	return p
}

// TestExampleTable prints the README table:
//
//	go test ./formats/graph/ -run TestExampleTable -v
func TestExampleTable(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("| example | buffers | zero-copy aliases | naive sum | weights stored | planned peak (greedy-size) | max-live lower bound | copies removed | without weights: planned / lower bound | without weights, in-place off: planned / lower bound |\n")
	sb.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range sortedNames(zoo.All()) {
		p, rep, plan := planExample(t, name)
		act := withoutWeights(p)
		require.NoError(t, act.Validate())
		actPeak, err := greedyPeak(act)
		require.NoError(t, err)
		off := withoutWeights(inPlaceOff(t, name))
		offPeak, err := greedyPeak(off)
		require.NoError(t, err)
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d | %d | %d | %d | %d / %d | %d / %d |\n", name, len(p.Buffers), len(rep.Aliases),
			rep.NaiveBytes, rep.WeightBytes, plan.Peak(p), rep.MaxLive, rep.CopyBytesRemoved, actPeak, act.ComputeSweep().MaxLive,
			offPeak, off.ComputeSweep().MaxLive)
		if len(rep.Models) > 1 {
			require.NoError(t, rep.PlanSeparately(greedyPeak))
			sep, _ := rep.SeparateArenas()
			var sepLB int64
			for _, m := range rep.Models {
				sepLB += m.MaxLive
			}
			fmt.Fprintf(&sb, "| ↳ same models, one arena each (sum) | | | | | %d | %d | | | |\n", sep, sepLB)
		}
	}
	t.Log("\n" + sb.String())
}
