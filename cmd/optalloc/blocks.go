package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// layoutFlags declares --layout (and, for plan, --max-blocks, --schedule).
func layoutFlags(fs *pflag.FlagSet, planning bool) {
	fs.String("layout", "offsets", "offsets (one arena, an offset per buffer) | blocks (whole reusable blocks per buffer, for runtimes that allocate buffers)")
	if planning {
		fs.Int("max-blocks", 0, "with --layout blocks: use at most this many blocks (0 = no cap)")
		fs.String("schedule", "", "with --layout blocks: write the replayable allocation schedule (.csv or .json)")
	}
}

// layoutOf reads and checks --layout.
func layoutOf(fs *pflag.FlagSet) (string, error) {
	l, _ := fs.GetString("layout")
	if l != "offsets" && l != "blocks" {
		return "", usageErr("--layout %q: want offsets or blocks", l)
	}
	return l, nil
}

// planBlocks is plan --layout blocks: every buffer gets a whole block;
// buffers sharing a block are never live together; the total block bytes
// are minimised.
func planBlocks(ctx context.Context, e *env, input string, p *model.Problem) error {
	fs := e.flags
	method, _ := fs.GetString("method")
	limit, _ := fs.GetDuration("time-limit")
	maxBlocks, _ := fs.GetInt("max-blocks")
	out, _ := fs.GetString("output")
	schedPath, _ := fs.GetString("schedule")
	asJSON, _ := fs.GetBool("json")
	quiet, _ := fs.GetBool("quiet")
	if maxBlocks < 0 {
		return usageErr("--max-blocks must not be negative")
	}
	if c := int64(*fs.Lookup("capacity").Value.(*byteSize)); c > 0 || len(p.Pools) > 1 {
		return usageErr("--layout blocks has no capacity or pools: cap the count with --max-blocks")
	}
	if method == "heuristic" {
		method = "greedy_by_size"
	}
	if !slices.Contains(blocks.Methods(), method) {
		return usageErr("--layout blocks: unknown method %q (want %s)", method, strings.Join(blocks.Methods(), ", "))
	}
	if err := checkWritable(out, schedPath); err != nil {
		return err
	}
	limit = remaining(e, limit)
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	res, err := blocks.Solve(ctx, p, blocks.Options{Method: method, MaxBlocks: maxBlocks, TimeLimit: limit})
	if err != nil {
		return err
	}
	if res.Plan != nil {
		if out != "" {
			if err := writeOutput(e, out, func(w io.Writer) error {
				if isJSONPath(out) {
					return blocks.WriteResultJSON(w, p, res)
				}
				return blocks.WritePlanCSV(w, p, res.Plan)
			}); err != nil {
				return err
			}
		}
		if schedPath != "" {
			sched, err := blocks.NewSchedule(p, res.Plan)
			if err != nil {
				return err
			}
			if err := writeOutput(e, schedPath, func(w io.Writer) error {
				if isJSONPath(schedPath) {
					return blocks.WriteScheduleJSON(w, sched)
				}
				return blocks.WriteScheduleCSV(w, sched)
			}); err != nil {
				return err
			}
		}
	}
	if !quiet {
		fmt.Fprintln(e.stderr, res.Summary())
	}
	if asJSON {
		if err := blocks.WriteResultJSON(e.stdout, p, res); err != nil {
			return err
		}
	}
	switch res.Status {
	case blocks.Infeasible, blocks.Unknown:
		return &exitError{code: 1, msg: fmt.Sprintf("%s: %s", res.Status, res.Reason)}
	}
	return nil
}

// verifyBlocks is verify --layout blocks: PLAN is a block plan CSV
// (id, block, block_size columns) as plan --layout blocks -o writes.
func verifyBlocks(e *env, p *model.Problem, planPath string, r io.Reader) error {
	asJSON, _ := e.flags.GetBool("json")
	bp, err := blocks.ReadPlanCSV(r, planPath, p)
	if err != nil {
		return err
	}
	vs := verify.BlockCheck(p, bp.Sizes(), bp.Assign)
	if asJSON {
		if vs == nil {
			vs = []verify.BlockViolation{}
		}
		if err := writeJSON(e.stdout, map[string]any{"valid": len(vs) == 0, "buffers": len(p.Buffers),
			"total_bytes": bp.TotalBytes(), "blocks": len(bp.Blocks), "violations": vs}); err != nil {
			return err
		}
	} else if len(vs) == 0 {
		fmt.Fprintf(e.stdout, "valid: %d buffers in %d blocks, total_bytes=%d\n", len(p.Buffers), len(bp.Blocks), bp.TotalBytes())
	} else {
		for _, v := range vs {
			fmt.Fprintln(e.stdout, v.String())
		}
	}
	if len(vs) > 0 {
		return failure("the block plan is invalid: %d violations", len(vs))
	}
	return nil
}
