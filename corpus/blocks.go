package corpus

import (
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// BlockMethods are the methods of the block layout (Config.Layout "blocks").
func BlockMethods() []string {
	return slices.DeleteFunc(blocks.Methods(), func(m string) bool { return m == "exact" })
}

// solveBlocks runs the block layout and reports it like an offsets solve:
// Peak is the total block bytes, and Plan is the blocks stacked one above
// the other (block k at the sum of the sizes before it), an offsets plan
// that is valid exactly when the block plan is — so the runner's
// independent verify.Check re-checks it. verify.BlockCheck runs too.
func solveBlocks(ctx context.Context, p *model.Problem, method string, cfg Config) (*solve.Result, error) {
	if cfg.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.TimeLimit)
		defer cancel()
	}
	res, err := blocks.Solve(ctx, p, blocks.Options{Method: method, TimeLimit: cfg.TimeLimit})
	if err != nil {
		return nil, err
	}
	r := &solve.Result{Peak: res.TotalBytes, LowerBound: res.LowerBound, Status: solve.Status(res.Status),
		Method: res.Method, Elapsed: res.Elapsed, Reason: res.Reason}
	if res.Plan == nil {
		return r, nil
	}
	if v := verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign); len(v) > 0 {
		return nil, fmt.Errorf("internal error: block plan rejected by the verifier: %s", v[0])
	}
	r.Plan = stackBlocks(p, res.Plan)
	return r, nil
}

// stackBlocks turns a block plan into an offsets plan: block k starts where
// block k−1 ends; a buffer sits at its block's start plus its byte delta
// inside its alias root.
func stackBlocks(p *model.Problem, bp *blocks.BlockPlan) *model.Plan {
	start := make(map[int]int64, len(bp.Blocks))
	var top int64
	for _, b := range bp.Blocks {
		start[b.ID] = top
		top += b.Size
	}
	index := p.Index()
	pl := model.NewPlan(p)
	for i := range p.Buffers {
		if k := bp.Assign[i]; k >= 0 {
			_, delta := p.Root(i, index)
			pl.Placements[i].Offset = start[k] + delta
		}
	}
	return pl
}
