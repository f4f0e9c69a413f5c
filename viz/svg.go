package viz

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// Options control a picture. The zero value is ready to use.
type Options struct {
	// Title is shown at the top; empty means the problem's file name.
	Title string
	// ColorBy is "pool", "kind", "buffer" (a cycle of colours) or "" /
	// "auto": pool when the problem has several pools, else kind when the
	// buffers have several kinds, else buffer.
	ColorBy string
	// LowerBound is a proven lower bound to draw besides max-live when it is
	// larger; 0 means none.
	LowerBound int64
	// Width is the width of the plot area in pixels; 0 means 960.
	Width int
	// Height is the height of each pool's plot area in pixels; 0 means 480
	// for one pool, 300 for several.
	Height int
	// MaxBuffers refuses plans with more buffers (a browser chokes on a few
	// hundred thousand elements); 0 means 200000, negative means no limit.
	MaxBuffers int
	// HideWeights leaves the weight buffers (kind weight: constants that
	// live throughout) out of the picture, so that the activations show;
	// the legend says how many were hidden. Peak and bounds stay the whole
	// plan's.
	HideWeights bool
}

// Colours of the kinds, the pools (a cycle) and the lines.
var (
	kindColors = map[model.Kind]string{
		model.Activation: "#4e79a7", model.Scratch: "#f28e2b", model.Input: "#59a14f",
		model.Output: "#e15759", model.Weight: "#b07aa1", model.Code: "#9c755f",
	}
	cycle = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
		"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
)

const (
	peakColor    = "#d62728"
	maxLiveColor = "#2ca02c"
	boundColor   = "#1f77b4"
	marginLeft   = 80
	marginRight  = 170
	marginTop    = 56
	panelGap     = 58 // below a plot: x tick labels, axis title, pool title
)

// picture is the computed layout of a plan.
type picture struct {
	p       *model.Problem
	pl      *model.Plan
	opt     Options
	title   string
	colorBy string
	t0, t1  int64
	maxLive int64
	peaks   []int64
	crit    []bool
	panels  []panel
	width   int // total
	height  int // total
	// hidden counts the weight buffers left out (Options.HideWeights),
	// hiddenBytes their bytes.
	hidden      int
	hiddenBytes int64
}

type panel struct {
	pool int
	name string
	peak int64
	ymax float64 // address at the top of the plot
	top  int     // y of the plot area in the whole picture
	h    int     // height of the plot area
	bufs []int
}

func newPicture(p *model.Problem, pl *model.Plan, opt Options) (*picture, error) {
	n := len(p.Buffers)
	if pl == nil || len(pl.Placements) != n {
		return nil, fmt.Errorf("viz: the plan does not have one placement per buffer")
	}
	limit := opt.MaxBuffers
	if limit == 0 {
		limit = 200000
	}
	if limit > 0 && n > limit {
		return nil, fmt.Errorf("viz: %d buffers are too many to draw (limit %d)", n, limit)
	}
	if opt.Width <= 0 {
		opt.Width = 960
	}
	pic := &picture{p: p, pl: pl, opt: opt, title: opt.Title, peaks: pl.PoolPeaks(p), crit: Critical(p, pl)}
	if pic.title == "" {
		pic.title = "plan"
		if p.Name != "" {
			pic.title = filepath.Base(p.Name)
		}
	}
	pic.maxLive = p.ComputeSweep().MaxLive
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if i == 0 || b.Start < pic.t0 {
			pic.t0 = b.Start
		}
		if i == 0 || b.End > pic.t1 {
			pic.t1 = b.End
		}
	}
	if pic.t1 <= pic.t0 {
		pic.t1 = pic.t0 + 1
	}
	pools := p.PoolList()
	byPool := make([][]int, len(pools))
	for i, q := range pl.Placements {
		if q.Pool < 0 || q.Pool >= len(pools) {
			return nil, fmt.Errorf("viz: buffer %q: pool %d does not exist", p.Buffers[i].ID, q.Pool)
		}
		if opt.HideWeights && kindOf(&p.Buffers[i]) == model.Weight {
			pic.hidden++
			pic.hiddenBytes += q.Size
			continue
		}
		byPool[q.Pool] = append(byPool[q.Pool], i)
	}
	h := opt.Height
	if h <= 0 {
		h = 480
		if len(pools) > 1 {
			h = 300
		}
	}
	y := marginTop
	for k, bufs := range byPool {
		if len(bufs) == 0 && !(k == 0 && n == 0) {
			continue
		}
		top := float64(pic.peaks[k])
		if len(pools) == 1 {
			top = float64(max(pic.peaks[k], pic.maxLive, opt.LowerBound))
		}
		top = max(top*1.04, 1)
		if len(pools) > 1 {
			y += 18 // pool title
		}
		pic.panels = append(pic.panels, panel{pool: k, name: pools[k].Name, peak: pic.peaks[k], ymax: top, top: y, h: h, bufs: bufs})
		y += h + panelGap
	}
	pic.width, pic.height = marginLeft+opt.Width+marginRight, y
	pic.colorBy = opt.ColorBy
	if pic.colorBy == "" || pic.colorBy == "auto" {
		kinds := map[model.Kind]bool{}
		for i := range p.Buffers {
			kinds[kindOf(&p.Buffers[i])] = true
		}
		switch {
		case len(pools) > 1:
			pic.colorBy = "pool"
		case len(kinds) > 1:
			pic.colorBy = "kind"
		default:
			pic.colorBy = "buffer"
		}
	}
	switch pic.colorBy {
	case "pool", "kind", "buffer":
	default:
		return nil, fmt.Errorf("viz: colour by %q: want auto, pool, kind or buffer", opt.ColorBy)
	}
	return pic, nil
}

func kindOf(b *model.Buffer) model.Kind {
	if b.Kind == "" {
		return model.Activation
	}
	return b.Kind
}

func (pic *picture) color(i int) string {
	switch pic.colorBy {
	case "pool":
		return cycle[pic.pl.Placements[i].Pool%len(cycle)]
	case "kind":
		if c, ok := kindColors[kindOf(&pic.p.Buffers[i])]; ok {
			return c
		}
		return "#888888"
	}
	return cycle[i%len(cycle)]
}

// legend lists the colours in use with their meaning.
func (pic *picture) legend() [][2]string {
	var out [][2]string
	switch pic.colorBy {
	case "pool":
		for k, q := range pic.p.PoolList() {
			out = append(out, [2]string{cycle[k%len(cycle)], "pool " + q.Name})
		}
	case "kind":
		used := map[model.Kind]bool{}
		for i := range pic.p.Buffers {
			used[kindOf(&pic.p.Buffers[i])] = true
		}
		for _, k := range model.Kinds {
			if used[k] {
				out = append(out, [2]string{kindColors[k], string(k)})
			}
		}
	}
	return out
}

// f formats a coordinate: float32 precision is plenty for pixels and keeps
// the file small.
func f(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) }

func (pic *picture) x(t int64) float64 {
	return float64(t-pic.t0) / float64(pic.t1-pic.t0) * float64(pic.opt.Width)
}

func (pn *panel) y(addr int64) float64 { return float64(pn.h) - float64(addr)/pn.ymax*float64(pn.h) }

func esc(s string) string { return html.EscapeString(s) }

// summary is the subtitle: peak, bounds, gap, buffers.
func (pic *picture) summary() string {
	peak := pic.pl.Peak(pic.p)
	s := fmt.Sprintf("peak %d · max-live %d", peak, pic.maxLive)
	lb := max(pic.maxLive, pic.opt.LowerBound)
	if pic.opt.LowerBound > pic.maxLive {
		s += fmt.Sprintf(" · lower bound %d", pic.opt.LowerBound)
	}
	if lb > 0 {
		s += fmt.Sprintf(" · gap %.2f%%", float64(peak-lb)/float64(lb)*100)
	}
	return s + fmt.Sprintf(" · %d buffers · colour by %s", len(pic.p.Buffers), pic.colorBy)
}

// svgStyle is the picture's CSS; %s is the outline of the buffers that
// define the peak, thinner as pictures get denser (see critStroke).
const svgStyle = `.buf{stroke:#fff;stroke-width:.5px;vector-effect:non-scaling-stroke;fill-opacity:.5}
.buf.crit{fill-opacity:1;%s}
.hl{stroke-width:1.5px;vector-effect:non-scaling-stroke}
.grid{stroke:#e4e4e4;stroke-width:1px}
.tick{fill:#444;font-size:11px}
.axis{fill:#222;font-size:12px}
.ll{font-size:11px}`

// WriteSVG draws plan pl of problem p as a standalone SVG picture.
func WriteSVG(w io.Writer, p *model.Problem, pl *model.Plan, opt Options) error {
	pic, err := newPicture(p, pl, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	pic.writeSVG(bw, true)
	return bw.Flush()
}

// writeSVG writes the picture; titles adds a <title> tooltip to every
// rectangle (the HTML page has its own tooltip instead).
func (pic *picture) writeSVG(w *bufio.Writer, titles bool) {
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" class="optalloc-plan" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		pic.width, pic.height, pic.width, pic.height)
	fmt.Fprintf(w, "<style>"+svgStyle+"</style>\n", pic.critStroke())
	fmt.Fprintf(w, `<rect class="bg" width="%d" height="%d" fill="#fff"/>`+"\n", pic.width, pic.height)
	fmt.Fprintf(w, `<text class="title" x="%d" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", marginLeft, esc(pic.title))
	fmt.Fprintf(w, `<text class="subtitle" x="%d" y="42" fill="#333">%s</text>`+"\n", marginLeft, esc(pic.summary()))
	for k := range pic.panels {
		pic.writePanel(w, &pic.panels[k], titles)
	}
	pic.writeLegend(w)
	w.WriteString("</svg>\n")
}

func (pic *picture) writePanel(w *bufio.Writer, pn *panel, titles bool) {
	W, H := pic.opt.Width, pn.h
	fmt.Fprintf(w, `<g class="panel" data-pool="%s" transform="translate(0,%d)">`+"\n", esc(pn.name), pn.top)
	if len(pic.p.PoolList()) > 1 {
		fmt.Fprintf(w, `<text class="axis" x="%d" y="-6" font-weight="bold">pool %s (peak %d)</text>`+"\n", marginLeft, esc(pn.name), pn.peak)
	}
	// Axes: grid and tick labels (the page's script redraws them on zoom).
	w.WriteString(`<g class="yticks">`)
	for _, v := range niceTicks(0, pn.ymax, 6) {
		y := pn.y(int64(v))
		fmt.Fprintf(w, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="tick" x="%d" y="%s" text-anchor="end" dy="4">%s</text>`,
			marginLeft, marginLeft+W, f(y), f(y), marginLeft-6, f(y), compact(v))
	}
	w.WriteString("</g>\n" + `<g class="xticks">`)
	for _, v := range niceTicks(float64(pic.t0), float64(pic.t1), 10) {
		x := float64(marginLeft) + (v-float64(pic.t0))/float64(pic.t1-pic.t0)*float64(W)
		fmt.Fprintf(w, `<line class="grid" x1="%s" x2="%s" y1="0" y2="%d"/><text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`,
			f(x), f(x), H, f(x), H+16, compact(v))
	}
	w.WriteString("</g>\n")
	fmt.Fprintf(w, `<text class="axis" x="%d" y="%d" text-anchor="middle">time</text>`+"\n", marginLeft+W/2, H+34)
	fmt.Fprintf(w, `<text class="axis" transform="translate(16,%d) rotate(-90)" text-anchor="middle">address (bytes)</text>`+"\n", H/2)
	// The plot: data scaled to pixels; zoom changes this viewBox only.
	fmt.Fprintf(w, `<svg class="plot" x="%d" y="0" width="%d" height="%d" viewBox="0 0 %d %d" preserveAspectRatio="none" data-t0="%d" data-t1="%d" data-ymax="%s">`+"\n",
		marginLeft, W, H, W, H, pic.t0, pic.t1, strconv.FormatFloat(pn.ymax, 'f', -1, 64))
	for _, i := range pn.bufs {
		b, q := &pic.p.Buffers[i], pic.pl.Placements[i]
		cls := "buf"
		if pic.crit[i] {
			cls = "buf crit"
		}
		x0, x1 := pic.x(b.Start), pic.x(b.End)
		y1, y0 := pn.y(q.Offset), pn.y(q.Offset+q.Size)
		fmt.Fprintf(w, `<rect class="%s" data-i="%d" x="%s" y="%s" width="%s" height="%s" fill="%s">`,
			cls, i, f(x0), f(y0), f(x1-x0), f(y1-y0), pic.color(i))
		if titles {
			fmt.Fprintf(w, "<title>%s</title>", esc(tooltip(pic.p, pic.pl, i, pic.crit[i])))
		}
		w.WriteString("</rect>\n")
	}
	lines := pic.lines(pn)
	for _, l := range lines {
		y := pn.y(l.addr)
		fmt.Fprintf(w, `<line class="hl" x1="0" x2="%d" y1="%s" y2="%s" stroke="%s"%s/>`+"\n", W, f(y), f(y), l.color, l.dash)
	}
	w.WriteString("</svg>\n")
	fmt.Fprintf(w, `<rect class="frame" x="%d" y="0" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", marginLeft, W, H)
	w.WriteString(`<g class="linelabels">`)
	ys := make([]float64, len(lines))
	for k, l := range lines {
		ys[k] = pn.y(l.addr)
	}
	ys = stackLabels(ys, labelGap)
	for k, l := range lines {
		fmt.Fprintf(w, `<text class="ll" data-addr="%d" x="%d" y="%s" dy="4" fill="%s">%s %s</text>`,
			l.addr, marginLeft+W+6, f(ys[k]), l.color, l.label, compact(float64(l.addr)))
	}
	w.WriteString("</g>\n</g>\n")
}

// critStroke outlines the buffers that define the peak: a black line on
// sparse pictures; on dense ones lines would hide the colours, so there only
// their full opacity (the others are faded) marks them.
func (pic *picture) critStroke() string {
	switch n := len(pic.p.Buffers); {
	case n <= 200:
		return "stroke:#000;stroke-width:1.5px"
	case n <= 500:
		return "stroke:#000;stroke-width:.6px"
	}
	return "stroke:none"
}

// labelGap is the least distance between two line labels, in pixels.
const labelGap = 12

// stackLabels moves the labels of lines at ys apart: from the bottom of the
// plot up, each label goes at its line or gap pixels above the label below
// it, whichever is higher (the HTML page's script does the same on zoom).
func stackLabels(ys []float64, gap float64) []float64 {
	order := make([]int, len(ys))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return ys[order[a]] > ys[order[b]] })
	out := make([]float64, len(ys))
	for n, k := range order {
		out[k] = ys[k]
		if n > 0 {
			out[k] = min(ys[k], out[order[n-1]]-gap)
		}
	}
	return out
}

type hline struct {
	addr         int64
	color, label string
	dash         string
}

// lines are the horizontal lines of a panel: max-live and a stronger lower
// bound (single pool only: they bound the whole problem), and the peak.
func (pic *picture) lines(pn *panel) []hline {
	var out []hline
	if len(pic.p.PoolList()) == 1 {
		out = append(out, hline{pic.maxLive, maxLiveColor, "max-live", ` stroke-dasharray="6 4"`})
		if pic.opt.LowerBound > pic.maxLive {
			out = append(out, hline{pic.opt.LowerBound, boundColor, "lower bound", ` stroke-dasharray="2 3"`})
		}
	}
	return append(out, hline{pn.peak, peakColor, "peak", ""})
}

func (pic *picture) writeLegend(w *bufio.Writer) {
	x := marginLeft + pic.opt.Width + 14
	y := marginTop + 70
	w.WriteString(`<g class="legend">`)
	for _, it := range pic.legend() {
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`, x, y, it[0], x+18, y+10, esc(it[1]))
		y += 18
	}
	outline := ` stroke="#000" stroke-width="1.5"`
	if pic.critStroke() == "stroke:none" {
		outline = ""
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="12" height="12" fill="#4e79a7"%s/><text x="%d" y="%d">defines the peak</text>`, x, y, outline, x+18, y+10)
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="12" height="12" fill="#4e79a7" fill-opacity=".5"/><text x="%d" y="%d">other buffers</text>`, x, y+18, x+18, y+28)
	if pic.hidden > 0 {
		fmt.Fprintf(w, `<text x="%d" y="%d">%d weights hidden (%s B)</text>`, x, y+46, pic.hidden, compact(float64(pic.hiddenBytes)))
	}
	w.WriteString("</g>\n")
}

// tooltip describes buffer i: id, lifetime, size, offset, kind and pool.
func tooltip(p *model.Problem, pl *model.Plan, i int, crit bool) string {
	b, q := &p.Buffers[i], pl.Placements[i]
	var s strings.Builder
	fmt.Fprintf(&s, "%s\nlifetime [%d, %d)\nsize %d\noffset %d (to %d)\nkind %s", b.ID, b.Start, b.End, q.Size, q.Offset, q.Offset+q.Size, kindOf(b))
	if len(p.PoolList()) > 1 {
		s.WriteString("\npool " + p.PoolList()[q.Pool].Name)
	}
	if crit {
		s.WriteString("\ndefines the peak")
	}
	return s.String()
}
