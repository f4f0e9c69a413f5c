package main

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// planMismatch compares the lifetimes and sizes a plan file carries (a plan
// CSV's problem columns, a JSON plan's start, end and size) with the
// problem's, by id. It returns how many of the problem's buffers the plan
// lacks and how many it gives another lifetime or size, with the first
// such difference in words; 0, 0 when the plan carries no lifetimes.
func planMismatch(p *model.Problem, data []byte, name string) (missing, differ int, first string) {
	var q *model.Problem
	var err error
	if isJSONText(data) {
		q, _, err = planFromJSON(data, name)
	} else {
		q, err = problemFromPlanCSV(data, name)
	}
	if err != nil {
		return 0, 0, "" // no lifetimes to compare: the verifier speaks
	}
	index := q.Index()
	for i := range p.Buffers {
		b := &p.Buffers[i]
		k, ok := index[b.ID]
		if !ok {
			missing++
			if first == "" {
				first = fmt.Sprintf("%s is not in the plan", model.Quote(b.ID))
			}
			continue
		}
		c := &q.Buffers[k]
		if c.Start != b.Start || c.End != b.End || c.Size != b.Size {
			differ++
			if first == "" {
				first = fmt.Sprintf("%s is [%d, %d) of %d bytes in the plan, [%d, %d) of %d in the problem",
					model.Quote(b.ID), c.Start, c.End, c.Size, b.Start, b.End, b.Size)
			}
		}
	}
	return missing, differ, first
}
