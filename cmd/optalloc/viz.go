package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/bounds"
	csvfmt "github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	planio "github.com/optalloc/optalloc/formats/plan"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/optalloc/optalloc/viz"
)

func init() {
	pictureWriter = writePictures
	register(&command{
		name:    "viz",
		args:    "PLAN",
		summary: "draw a plan: SVG picture or self-contained HTML page with hover and zoom",
		long: `PLAN is a plan as 'plan -o' writes it: a CSV (id, lower, upper, size, offset
and, where the problem has them, pool, granted and max_size, alias and
alias_delta) or a JSON plan; both carry the lifetimes, sizes, alias groups
and elastic limits, so PLAN alone is enough. With --problem INPUT, PLAN may be any plan
file verify accepts (id and offset columns) and lifetimes come from INPUT.

The picture has time on x and addresses on y, one rectangle per buffer,
coloured by pool, kind or buffer (--color-by), a dashed line at max-live (the
lower bound), a red line at the peak, and the buffers that define the peak
outlined in black. The HTML page shows a buffer's id, lifetime, size and
offset on hover and zooms with the mouse wheel. "-" writes to stdout.
An invalid plan is drawn all the same, with a warning.`,
		flags: func(fs *pflag.FlagSet) {
			fs.String("problem", "", "the problem the plan belongs to (when PLAN has no lifetimes)")
			fs.String("svg", "", "write an SVG picture to this file")
			fs.String("html", "", "write a self-contained HTML page to this file")
			fs.String("color-by", "auto", "auto | pool | kind | buffer")
			fs.String("title", "", "title of the picture (default: the file name)")
			fs.Int("width", 0, "width of the plot in pixels (default 960)")
			fs.Int("height", 0, "height of each pool's plot in pixels (default 480, or 300 per pool)")
			fs.Int("max-buffers", 0, "refuse plans with more buffers (default 200000; -1 = no limit)")
			fs.Bool("hide-weights", false, "leave the weights (kind weight) out of the picture, so that the activations show; the legend says how many")
		},
		run: runViz,
	})
}

// vizOptions reads the picture flags of viz (plan uses the defaults).
func vizOptions(fs *pflag.FlagSet) viz.Options {
	var o viz.Options
	if fs == nil || fs.Lookup("color-by") == nil {
		return o
	}
	o.ColorBy, _ = fs.GetString("color-by")
	o.Title, _ = fs.GetString("title")
	o.Width, _ = fs.GetInt("width")
	o.Height, _ = fs.GetInt("height")
	o.MaxBuffers, _ = fs.GetInt("max-buffers")
	o.HideWeights, _ = fs.GetBool("hide-weights")
	return o
}

// writePictures is the pictureWriter hook: it draws plan as SVG and/or HTML.
func writePictures(e *env, p *model.Problem, plan *model.Plan, lowerBound int64, svg, html string) error {
	opt := vizOptions(e.flags)
	opt.LowerBound = lowerBound
	for _, out := range []struct {
		path  string
		write func(io.Writer, *model.Problem, *model.Plan, viz.Options) error
	}{{svg, viz.WriteSVG}, {html, viz.WriteHTML}} {
		if out.path == "" {
			continue
		}
		if err := writeOutput(e, out.path, func(w io.Writer) error { return out.write(w, p, plan, opt) }); err != nil {
			return err
		}
	}
	return nil
}

func runViz(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return usageErr("want exactly one PLAN (see 'optalloc help viz')")
	}
	problem, _ := e.flags.GetString("problem")
	svg, _ := e.flags.GetString("svg")
	html, _ := e.flags.GetString("html")
	switch cb, _ := e.flags.GetString("color-by"); cb {
	case "auto", "pool", "kind", "buffer":
	default:
		return usageErr("--color-by must be auto, pool, kind or buffer, not %q", cb)
	}
	if svg == "" && html == "" {
		return usageErr("give --svg FILE and/or --html FILE")
	}
	if svg == "-" && html == "-" {
		return usageErr("--svg - and --html - both write to stdout; choose one")
	}
	if err := checkWritable(svg, html); err != nil {
		return err
	}
	p, plan, err := loadPlan(e, args[0], problem)
	if err != nil {
		return err
	}
	if vs := verify.Check(p, plan); len(vs) > 0 {
		hint := ""
		if problem == "" {
			// a plan written before plan files carried alias groups and
			// elastic limits cannot tell views from overlaps
			hint = " (checked against the plan file alone; if it was written by an older optalloc, give --problem INPUT)"
		}
		fmt.Fprintf(e.stderr, "optalloc viz: warning: the plan is invalid (%d violations, first: %s)%s; drawing it anyway\n", len(vs), vs[0], hint)
	}
	if len(p.Buffers) > 0 {
		if opt := vizOptions(e.flags); opt.MaxBuffers == 0 && len(p.Buffers) > 200000 {
			return usageErr("%d buffers are too many to draw (default limit 200000; --max-buffers -1 lifts it)", len(p.Buffers))
		}
	}
	if hide, _ := e.flags.GetBool("hide-weights"); hide && !slices.ContainsFunc(p.Buffers, func(b model.Buffer) bool { return b.Kind != "" }) {
		fmt.Fprintln(e.stderr, "optalloc viz: warning: --hide-weights hides nothing: no buffer has a kind (plan files carry none; give --problem INPUT)")
	}
	return writePictures(e, p, plan, vizLowerBound(ctx, p), svg, html)
}

// vizLowerBound is the starting lower bound of the solve (bounds.Start:
// max-live, the alignment bound, the pins' top), so that the picture's gap
// is measured as plan's is (it was against max-live: an optimal aligned
// plan showed 1.82%); within vizBoundTime, else the best found by then.
func vizLowerBound(ctx context.Context, p *model.Problem) int64 {
	ctx, cancel := context.WithTimeout(ctx, vizBoundTime)
	defer cancel()
	b, err := bounds.Best(ctx, p, bounds.Start...)
	if err != nil {
		return 0
	}
	return b.Value
}

// vizBoundTime bounds vizLowerBound.
const vizBoundTime = 5 * time.Second

// loadPlan reads PLAN with its problem: from problemPath when given, else
// from the plan itself (a plan CSV or JSON carries lifetimes and sizes).
func loadPlan(e *env, planPath, problemPath string) (*model.Problem, *model.Plan, error) {
	var data []byte
	var err error
	if planPath == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		if err := checkInputFile(planPath); err != nil {
			return nil, nil, err
		}
		data, err = os.ReadFile(planPath)
	}
	if err != nil {
		return nil, nil, &model.InputError{File: planPath, Msg: "cannot read: " + err.Error()}
	}
	var p *model.Problem
	switch {
	case problemPath != "":
		if p, err = loadProblem(e, problemPath); err != nil {
			return nil, nil, err
		}
	case isJSONText(data):
		return planFromJSON(data, planPath)
	default:
		if p, err = problemFromPlanCSV(data, planPath); err != nil {
			return nil, nil, err
		}
	}
	plan, err := planio.Read(bytes.NewReader(data), planPath, p)
	if err != nil {
		return nil, nil, err
	}
	for i, q := range plan.Placements {
		if q.Offset == model.MissingOffset {
			return nil, nil, &model.InputError{File: planPath, Msg: fmt.Sprintf("buffer %q has no offset in the plan", p.Buffers[i].ID)}
		}
	}
	return p, plan, nil
}

func isJSONText(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{'
}

// problemFromPlanCSV reads the problem a plan CSV carries (id, lower, upper,
// size; offset as written by plan -o) and declares the pools it names.
func problemFromPlanCSV(data []byte, name string) (*model.Problem, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	recs, err := cr.ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, &model.InputError{File: name, Msg: "not a plan CSV (give --problem INPUT for a plan without lifetimes)"}
	}
	poolCol, hasOffset := -1, false
	col := map[string]int{}
	for i, h := range recs[0] {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch h {
		case "pool":
			poolCol = i
		case "offset":
			hasOffset = true
		case "id", "buffer", "buffer_id", "granted", "max_size", "alias", "alias_delta":
			col[h] = i
		}
	}
	if !hasOffset {
		return nil, &model.InputError{File: name, Line: 1, Msg: "the plan has no offset column (write it with 'optalloc plan -o PLAN.csv')"}
	}
	p, err := csvfmt.Read(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	if err := planCSVExtras(p, recs, col, name); err != nil {
		return nil, err
	}
	if poolCol >= 0 {
		seen := map[string]bool{}
		for _, r := range recs[1:] {
			if poolCol < len(r) && r[poolCol] != "" && !seen[r[poolCol]] {
				seen[r[poolCol]] = true
				p.Pools = append(p.Pools, model.Pool{Name: r[poolCol], Rank: len(p.Pools)})
			}
		}
	}
	return p, nil
}

// planFromJSON rebuilds problem and plan from a JSON plan, which lists id,
// offset, size, start, end and (with several pools) pool for every buffer.
func planFromJSON(data []byte, name string) (*model.Problem, *model.Plan, error) {
	jp, err := jsonfmt.DecodePlan(data, name)
	if err != nil {
		return nil, nil, err
	}
	p := &model.Problem{Name: name}
	pool := map[string]int{}
	plan := &model.Plan{}
	for _, q := range jp.Placements {
		if q.End <= q.Start {
			return nil, nil, &model.InputError{File: name, Msg: fmt.Sprintf("buffer %q: the plan has no lifetime (start %d, end %d); give --problem INPUT", q.ID, q.Start, q.End)}
		}
		k := 0
		if q.Pool != "" {
			var ok bool
			if k, ok = pool[q.Pool]; !ok {
				k = len(p.Pools)
				pool[q.Pool] = k
				p.Pools = append(p.Pools, model.Pool{Name: q.Pool, Rank: k})
			}
		}
		b := model.Buffer{ID: q.ID, Start: q.Start, End: q.End, Size: q.Size}
		if q.MaxSize > 0 {
			b.Size, b.MaxSize = q.MinSize, q.MaxSize
		}
		if q.Alias != nil {
			b.Alias = &model.Alias{Parent: q.Alias.Parent, Delta: q.Alias.Delta}
		}
		for _, g := range q.Gaps {
			b.Gaps = append(b.Gaps, model.Gap(g))
		}
		p.Buffers = append(p.Buffers, b)
		plan.Placements = append(plan.Placements, model.Placement{Offset: q.Offset, Pool: k, Size: q.Size})
	}
	if len(p.Buffers) == 0 {
		return nil, nil, &model.InputError{File: name, Msg: "plan: no buffers (an empty placements list)"}
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	// The peaks the file states are checked too (verify's wrong-peak):
	// a plan whose stated peak is not its placements' was drawn silently.
	if _, stated, err := jsonfmt.ParsePlan(bytes.TrimPrefix(data, []byte("\ufeff")), name); err == nil && stated {
		peak := jp.Peak
		plan.StatedPeak = &peak
	}
	plan.StatedPoolPeaks = jp.PoolPeaks
	return p, plan, nil
}

// planCSVExtras reads what a plan CSV carries beyond the problem columns:
// max_size (the elastic buffers' limit) and alias, alias_delta (the alias
// groups: views that share their parent's bytes on purpose). A plan written
// before these columns existed has granted sizes without max_size: each
// granted size is then taken as its buffer's limit, so the plan is drawn
// without a false "too big".
func planCSVExtras(p *model.Problem, recs [][]string, col map[string]int, name string) error {
	idCol := -1
	for _, h := range []string{"id", "buffer", "buffer_id"} {
		if k, ok := col[h]; ok && idCol < 0 {
			idCol = k
		}
	}
	_, hasGranted := col["granted"]
	_, hasMax := col["max_size"]
	_, hasAlias := col["alias"]
	if idCol < 0 || !hasGranted && !hasAlias {
		return nil
	}
	index := p.Index()
	cell := func(r []string, h string) string {
		if k, ok := col[h]; ok && k < len(r) {
			return strings.TrimSpace(r[k])
		}
		return ""
	}
	num := func(line int, r []string, h string) (int64, error) {
		v := cell(r, h)
		if v == "" {
			return 0, nil
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 0 {
			return 0, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("plan: %s %q is not a non-negative integer", h, v)}
		}
		return x, nil
	}
	for k, r := range recs[1:] {
		line := k + 2
		if idCol >= len(r) {
			continue
		}
		i, ok := index[strings.TrimSpace(r[idCol])]
		if !ok {
			continue
		}
		b := &p.Buffers[i]
		limit, err := num(line, r, "max_size")
		if err != nil {
			return err
		}
		if !hasMax {
			if limit, err = num(line, r, "granted"); err != nil {
				return err
			}
		}
		if limit > b.Size {
			b.MaxSize = limit
		}
		if parent := cell(r, "alias"); parent != "" {
			delta, err := num(line, r, "alias_delta")
			if err != nil {
				return err
			}
			// the offset column read as a pin is the plan's offset: an
			// alias member's follows from its parent's
			b.Alias, b.Pin = &model.Alias{Parent: parent, Delta: delta}, nil
		}
	}
	return p.Validate()
}
