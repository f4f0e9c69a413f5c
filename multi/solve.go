package multi

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// Solve plans the combined problem for a runtime that takes every offset
// from the plan (no online buffers). Besides the solve of the combined
// problem, each model is solved alone and the models of each concurrent
// stage stacked one above another (serial stages overlaid): on the product
// time line of a concurrent stage the solver can miss that layout, which
// is optimal when every model's own plan is. The smaller verified peak
// wins; the lower bound is the combined problem's. Without handoffs only
// (a handoff ties two models' offsets).
func Solve(ctx context.Context, c *Combined, opt solve.Options) (*solve.Result, error) {
	n := len(c.Models)
	start := time.Now()
	var alone []*model.Plan
	if len(c.Handoffs) == 0 && len(c.WeightBuffers) == 0 {
		per := opt
		per.Progress = nil
		if opt.TimeLimit > 0 {
			per.TimeLimit = max(opt.TimeLimit/time.Duration(2*n), time.Millisecond)
		}
		for _, m := range c.Models {
			r, err := solve.Solve(ctx, m.Problem, per)
			if err != nil {
				return nil, err
			}
			if r.Plan == nil {
				alone = nil
				break
			}
			alone = append(alone, r.Plan)
		}
	}
	joint := opt
	if opt.TimeLimit > 0 {
		joint.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
	}
	res, err := solve.Solve(ctx, c.Problem, joint)
	if err != nil || alone == nil || opt.Capacity > 0 {
		return res, err
	}
	st := c.Join(c.stack(alone))
	if len(verify.Check(c.Problem, st)) > 0 {
		return res, nil
	}
	if res.Plan == nil || st.Peak(c.Problem) < res.Peak {
		r := *res
		r.Plan = st
		r.Derive(c.Problem)
		r.Method = "stacked"
		return &r, nil
	}
	return res, nil
}
