package viz

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// example12 is MiniMalloc's 5-buffer example with an optimal plan (peak 12).
func example12() (*model.Problem, *model.Plan) {
	p := &model.Problem{Name: "input.12.csv", Buffers: []model.Buffer{
		{ID: "b1", Start: 0, End: 3, Size: 4}, {ID: "b2", Start: 3, End: 9, Size: 4},
		{ID: "b3", Start: 0, End: 9, Size: 4}, {ID: "b4", Start: 9, End: 21, Size: 4},
		{ID: "b5", Start: 0, End: 21, Size: 4},
	}}
	pl := model.NewPlan(p)
	for i, off := range []int64{8, 8, 4, 4, 0} {
		pl.Placements[i].Offset = off
	}
	return p, pl
}

// stacked places every buffer above the previous one: always valid.
func stacked(p *model.Problem) *model.Plan {
	pl := model.NewPlan(p)
	var off int64
	for i := range p.Buffers {
		pl.Placements[i].Offset = off
		off += p.Buffers[i].Size
	}
	return pl
}

func randomProblem(rng *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "random"}
	for i := 0; i < n; i++ {
		s := rng.Int64N(int64(3 * n))
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("r", i), Start: s, End: s + 1 + rng.Int64N(int64(n)), Size: 1 + rng.Int64N(1<<20)})
	}
	return p
}

// svgRect is a parsed <rect class="buf">.
type svgRect struct {
	class, fill, title string
	i                  int
	x, y, w, h         float64
}

type svgPanel struct {
	pool    string
	w, h    float64
	t0, t1  float64
	ymax    float64
	rects   []svgRect
	hlines  int
	plotCnt int
}

// parseSVG walks the SVG with encoding/xml (so it must be well-formed) and
// collects the buffers' rectangles per panel.
func parseSVG(t *testing.T, r io.Reader) []svgPanel {
	t.Helper()
	dec := xml.NewDecoder(r)
	var panels []svgPanel
	var cur *svgRect
	inTitle := false
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		return v
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch se := tok.(type) {
		case xml.StartElement:
			cls := attr(se, "class")
			switch {
			case se.Name.Local == "g" && cls == "panel":
				panels = append(panels, svgPanel{pool: attr(se, "data-pool")})
			case se.Name.Local == "svg" && cls == "plot":
				pn := &panels[len(panels)-1]
				pn.plotCnt++
				pn.w, pn.h = num(attr(se, "width")), num(attr(se, "height"))
				pn.t0, pn.t1, pn.ymax = num(attr(se, "data-t0")), num(attr(se, "data-t1")), num(attr(se, "data-ymax"))
			case se.Name.Local == "rect" && strings.HasPrefix(cls, "buf"):
				i, err := strconv.Atoi(attr(se, "data-i"))
				require.NoError(t, err)
				cur = &svgRect{class: cls, fill: attr(se, "fill"), i: i, x: num(attr(se, "x")), y: num(attr(se, "y")), w: num(attr(se, "width")), h: num(attr(se, "height"))}
			case se.Name.Local == "line" && cls == "hl":
				panels[len(panels)-1].hlines++
			case se.Name.Local == "title":
				inTitle = true
			}
		case xml.CharData:
			if inTitle && cur != nil {
				cur.title += string(se)
			}
		case xml.EndElement:
			switch se.Name.Local {
			case "title":
				inTitle = false
			case "rect":
				if cur != nil {
					panels[len(panels)-1].rects = append(panels[len(panels)-1].rects, *cur)
					cur = nil
				}
			}
		}
	}
	return panels
}

func TestSVGOfFiveBufferPlanHasFiveRectangles(t *testing.T) {
	p, pl := example12()
	var buf bytes.Buffer
	require.NoError(t, WriteSVG(&buf, p, pl, Options{}))
	panels := parseSVG(t, &buf)
	require.Len(t, panels, 1)
	rects := panels[0].rects
	require.Len(t, rects, 5)
	assert.Equal(t, 2, panels[0].hlines, "max-live and peak lines")
	for k, r := range rects {
		assert.Equal(t, k, r.i)
		b := p.Buffers[k]
		assert.Contains(t, r.title, b.ID)
		assert.Contains(t, r.title, fmt.Sprintf("lifetime [%d, %d)", b.Start, b.End))
		assert.Contains(t, r.title, fmt.Sprintf("offset %d", pl.Placements[k].Offset))
	}
	// b4 sits at [4, 8) after b1 and b2 end: nothing above it reaches 12.
	crit := []bool{true, true, true, false, true}
	for k, r := range rects {
		assert.Equal(t, crit[k], strings.Contains(r.class, "crit"), p.Buffers[k].ID)
	}
	var s bytes.Buffer
	require.NoError(t, WriteSVG(&s, p, pl, Options{}))
	assert.Contains(t, s.String(), "peak 12 · max-live 12 · gap 0.00% · 5 buffers")
}

// TestSVGGeometryRandom maps every rectangle back to its buffer's lifetime,
// offset and size on random plans.
func TestSVGGeometryRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		p := randomProblem(rng, 1+rng.IntN(60))
		pl := stacked(p)
		require.Empty(t, verify.Check(p, pl))
		var buf bytes.Buffer
		require.NoError(t, WriteSVG(&buf, p, pl, Options{Width: 500 + rng.IntN(500)}))
		panels := parseSVG(t, &buf)
		require.Len(t, panels, 1)
		pn := panels[0]
		require.Len(t, pn.rects, len(p.Buffers))
		assert.GreaterOrEqual(t, pn.ymax, float64(pl.Peak(p)))
		seen := map[int]bool{}
		for _, r := range pn.rects {
			require.False(t, seen[r.i])
			seen[r.i] = true
			b, q := p.Buffers[r.i], pl.Placements[r.i]
			tol := 1e-3 * max(pn.w, pn.h)
			assert.InDelta(t, float64(b.Start), pn.t0+r.x/pn.w*(pn.t1-pn.t0), tol*(pn.t1-pn.t0)/pn.w+1e-6)
			assert.InDelta(t, float64(b.End-b.Start), r.w/pn.w*(pn.t1-pn.t0), tol*(pn.t1-pn.t0)/pn.w+1e-6)
			assert.InDelta(t, float64(q.Offset+q.Size), (pn.h-r.y)/pn.h*pn.ymax, tol*pn.ymax/pn.h)
			assert.InDelta(t, float64(q.Size), r.h/pn.h*pn.ymax, tol*pn.ymax/pn.h)
			assert.GreaterOrEqual(t, r.x, -1e-3)
			assert.LessOrEqual(t, r.x+r.w, pn.w+1e-3)
			assert.GreaterOrEqual(t, r.y, -1e-3)
		}
	}
}

// naiveCritical is the definition of Critical as a plain fixpoint.
func naiveCritical(p *model.Problem, pl *model.Plan) []bool {
	crit := make([]bool, len(p.Buffers))
	peaks := pl.PoolPeaks(p)
	for i, q := range pl.Placements {
		crit[i] = q.Size > 0 && q.Offset+q.Size == peaks[q.Pool]
	}
	for changed := true; changed; {
		changed = false
		for i := range crit {
			for j := range crit {
				a, b := pl.Placements[i], pl.Placements[j]
				if crit[i] && !crit[j] && b.Size > 0 && a.Pool == b.Pool && b.Offset+b.Size == a.Offset &&
					p.Buffers[i].Start < p.Buffers[j].End && p.Buffers[j].Start < p.Buffers[i].End {
					crit[j], changed = true, true
				}
			}
		}
	}
	return crit
}

func TestCriticalMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(12)
		p := &model.Problem{}
		for i := 0; i < n; i++ {
			s := rng.Int64N(8)
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(6), Size: rng.Int64N(4)})
		}
		// Offsets on a coarse grid make exact contacts frequent; validity
		// does not matter to the definition.
		pl := model.NewPlan(p)
		for i := range pl.Placements {
			pl.Placements[i].Offset = 2 * rng.Int64N(4)
		}
		assert.Equal(t, naiveCritical(p, pl), Critical(p, pl))
	}
}

func TestPoolsKindsAndOptions(t *testing.T) {
	p := &model.Problem{Name: "tiers.json", Pools: []model.Pool{{Name: "sram"}, {Name: "dram", Rank: 1}, {Name: "unused", Rank: 2}},
		Buffers: []model.Buffer{
			{ID: "w", Start: 0, End: 4, Size: 8, Kind: model.Weight},
			{ID: "a", Start: 0, End: 2, Size: 4},
			{ID: "s", Start: 2, End: 4, Size: 4, Kind: model.Scratch},
		}}
	pl := model.NewPlan(p)
	pl.Placements[0].Pool = 1
	var buf bytes.Buffer
	require.NoError(t, WriteSVG(&buf, p, pl, Options{}))
	panels := parseSVG(t, bytes.NewReader(buf.Bytes()))
	require.Len(t, panels, 2, "one panel per pool that holds buffers")
	assert.Equal(t, "sram", panels[0].pool)
	assert.Equal(t, "dram", panels[1].pool)
	assert.Len(t, panels[0].rects, 2)
	assert.Len(t, panels[1].rects, 1)
	assert.Equal(t, 1, panels[0].hlines, "several pools: only the peak line")
	assert.Equal(t, panels[0].rects[0].fill, panels[0].rects[1].fill, "coloured by pool")
	assert.NotEqual(t, panels[0].rects[0].fill, panels[1].rects[0].fill)
	assert.Contains(t, buf.String(), "colour by pool")

	buf.Reset()
	require.NoError(t, WriteSVG(&buf, p, pl, Options{ColorBy: "kind"}))
	for _, pn := range parseSVG(t, &buf) {
		for _, r := range pn.rects {
			assert.Equal(t, kindColors[kindOf(&p.Buffers[r.i])], r.fill)
		}
	}
	assert.Error(t, WriteSVG(io.Discard, p, pl, Options{ColorBy: "mood"}))
	assert.ErrorContains(t, WriteSVG(io.Discard, p, pl, Options{MaxBuffers: 2}), "3 buffers are too many")
	assert.Error(t, WriteSVG(io.Discard, p, &model.Plan{}, Options{}))
	// A stronger lower bound gets its own line.
	q, qpl := example12()
	buf.Reset()
	require.NoError(t, WriteSVG(&buf, q, qpl, Options{LowerBound: 11}))
	assert.Equal(t, 2, parseSVG(t, bytes.NewReader(buf.Bytes()))[0].hlines, "11 < max-live 12: no extra line")
	buf.Reset()
	qpl.Placements[4].Offset = 12 // peak 16
	require.NoError(t, WriteSVG(&buf, q, qpl, Options{LowerBound: 14}))
	assert.Equal(t, 3, parseSVG(t, bytes.NewReader(buf.Bytes()))[0].hlines)
	assert.Contains(t, buf.String(), "lower bound 14")
}

func TestHTMLIsSelfContained(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := randomProblem(rng, 25)
	p.Buffers[3].ID = `<b&"3">`
	pl := stacked(p)
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, p, pl, Options{}))
	page := buf.String()
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	assert.Equal(t, 1, strings.Count(page, "<script>"))
	assert.NotRegexp(t, `(src|href)=`, page, "nothing is loaded from elsewhere")
	assert.NotContains(t, page, `<b&"3">`, "ids are escaped")
	assert.Equal(t, len(p.Buffers), strings.Count(page, `<rect class="buf`))
	assert.NotContains(t, page, "<title>"+p.Buffers[0].ID, "the page has its own tooltip")
	m := regexp.MustCompile(`(?s)const B = (.*?);\n`).FindStringSubmatch(page)
	require.Len(t, m, 2)
	var data [][]any
	require.NoError(t, json.Unmarshal([]byte(m[1]), &data))
	require.Len(t, data, len(p.Buffers))
	assert.Equal(t, p.Buffers[3].ID, data[3][0])
	assert.EqualValues(t, pl.Placements[7].Offset, data[7][4])
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 21, 10, []float64{0, 5, 10, 15, 20}},
		{0, 1, 4, []float64{0, 0.5, 1}},
		{900000.0000001, 1400000, 6, []float64{900000, 1e6, 1.1e6, 1.2e6, 1.3e6, 1.4e6}},
		{5, 5, 3, []float64{5}},
	} {
		assert.Equal(t, tc.want, niceTicks(tc.lo, tc.hi, tc.n))
	}
	assert.Equal(t, "0.3", compact(0.1*3))
	assert.Equal(t, "950", compact(950))
	assert.Equal(t, "12.5k", compact(12500))
	assert.Equal(t, "1.049M", compact(1048576))
	assert.Equal(t, "15.73G", compact(15734934689))
}

// TestPictureDetails (issue 35 item 14): the time axis starts at "0", not
// "-0"; the labels of lines a few bytes apart are stacked, never drawn on
// top of each other; weights can be hidden, and the legend says so.
func TestPictureDetails(t *testing.T) {
	for _, v := range niceTicks(0, 100, 10) {
		assert.False(t, math.Signbit(v), "tick %v", v)
	}
	assert.Equal(t, "0", compact(niceTicks(0, 100, 10)[0]))
	ys := stackLabels([]float64{300, 299, 298}, 12)
	assert.Equal(t, []float64{300, 288, 276}, ys)
	assert.Equal(t, []float64{50, 300}, stackLabels([]float64{50, 300}, 12), "far apart lines keep their places")

	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "w", Start: 0, End: 4, Size: 900, Kind: model.Weight},
		{ID: "a", Start: 0, End: 2, Size: 100},
		{ID: "b", Start: 2, End: 4, Size: 100},
	}}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 900}, {Offset: 900, Size: 100}, {Offset: 900, Size: 100}}}
	var all, hidden bytes.Buffer
	require.NoError(t, WriteSVG(&all, p, pl, Options{}))
	require.NoError(t, WriteSVG(&hidden, p, pl, Options{HideWeights: true}))
	assert.NotContains(t, all.String(), "-0<")
	assert.Equal(t, 3, strings.Count(all.String(), `class="buf`))
	assert.Equal(t, 2, strings.Count(hidden.String(), `class="buf`))
	assert.Contains(t, hidden.String(), "1 weights hidden (900 B)")
	assert.Contains(t, hidden.String(), "peak 1000", "the peak stays the whole plan's")
}
