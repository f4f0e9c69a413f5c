// Package encode is optalloc's SAT engine on gini: a (sub)problem and a
// height H become CNF, and gini's answers become plans, infeasibility
// proofs and lower bounds.
//
// The encoding works on items: buffers, with alias groups folded into their
// root. Sizes, alignments, alias deltas and pins are divided by their GCD g,
// which loses nothing (every packing can be pushed down until each offset is
// 0 or the top of a conflicting item rounded up to an admissible value, all
// multiples of g). Offsets are order-encoded, [o_i ≤ v] for v in a sparse
// domain: admissible values (pins, alignment congruences) and, when no item
// is pinned or aligned, only subset sums of the other sizes (push-down normal
// form). Each time-conflicting pair has one orientation literal l_ij, with
// l_ij → o_i + s_i ≤ o_j and ¬l_ij → o_j + s_j ≤ o_i. A height H is a
// literal h_H implying o_i ≤ H − s_i for every item: heights are asked
// through assumptions, so learned clauses carry over as H descends.
//
// Techniques, each behind an Options flag: cover clauses (for a section
// whose load equals H, every address unit below H is covered by one of its
// items; for a section with slack σ ≤ H/32, every σ+1 consecutive units
// meet one of its items), symmetry breaking (the largest item is kept in
// the lower half of H — a reflection — and identical items are ordered by
// index), domain filtering by subset sums, and in Minimise a probe of the
// lower bound before the descent from the incumbent.
//
// Entry points: Decide (does the problem fit in C bytes?), Minimise (lower
// the peak from an incumbent, proving optimality when the last step is
// refuted) and ProveLowerBound (refute relaxations — time windows clipped
// around the heaviest sections, sizes rounded down — at the current bound).
// Options.RoundUp gives the opposite, a restriction: sizes rounded up on a
// coarser axis, whose plans are valid and whose refutations prove nothing.
//
// Exactness: gaps are placed as whole rectangles and an alias group as one
// rectangle over the hull of its members' lifetimes. That is conservative:
// plans are always valid, but an unsatisfiable item model proves something
// about the problem only when it is exact (no gaps, no alias outliving its
// root); otherwise Decide answers Unknown instead of Infeasible. A single
// pool (pool 0) is planned.
//
// Budgets: an encoding whose estimated size exceeds Options.MaxVars or
// MaxClauses is refused before it is built, so callers can race this engine
// against others safely. Solving uses GoSolve and polls the context; it
// never calls Try (gini keeps a stale deadline after a timed-out Try). After
// gini refutes an encoding without assumptions it is never called again:
// gini v1.0.4 then reports a bogus model on the next call and exits the
// process ("internal error in solve: sat model"); the encoder marks itself
// dead instead. Conflict counts are read from gini's unexported statistics
// by reflection (0 if the layout differs).
package encode
