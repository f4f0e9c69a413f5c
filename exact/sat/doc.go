// Package sat is optalloc's SAT engine on gini: a (sub)problem and a
// height H become CNF, and gini's answers become plans, infeasibility
// proofs and lower bounds.
//
// The encoding works on items: buffers, with alias groups folded into their
// root. An item occupies pieces relative to its offset — (time window, byte
// window) rectangles: the full rectangle of a plain buffer; nothing during an
// absent gap and only [a, b) during a partial one; each alias member at its
// delta over its own lifetime (also when it outlives the root), the union
// of the group's bytes per time slot. These are exactly the rectangles
// verify.Check sees, so the item model equals the problem. Sizes, piece
// windows, alignments, alias deltas and pins are divided by their GCD g,
// which loses nothing (every constraint is a difference of offsets bounded
// by multiples of g, so rounding every offset of a valid packing down to a
// multiple of g keeps it valid). Offsets are order-encoded, [o_i ≤ v] for v
// in a sparse domain: admissible values (pins, alignment congruences) and,
// when no item is pinned or aligned and every piece spans its item's bytes,
// only subset sums of the other sizes (push-down normal form: each item then
// rests at 0 or on a top). Pinned items are fixed obstacles: the values at
// which an item would share bytes with one are dropped, and pairs with a
// pinned item get no clauses (Options.NoPinFilter keeps both); LNS
// neighbourhoods, which pin everything outside them, shrink the most.
//
// Two items conflict when some pieces of theirs share a time. Each such
// pair (p of a, q of b) forbids the relative offset d = o_b − o_a in
// (p.lo − q.hi, p.hi − q.lo); the union of these ranges, merged, is a few
// disjoint ranges (L_k, U_k), and the pair gets one orientation literal
// per range: l_k → d ≥ U_k, ¬l_k → d ≤ L_k, l_k → l_{k−1}. For two full
// rectangles that is the single range (−s_b, s_a): one literal, b above or
// below a. One literal per item pair would be wrong when there are several
// ranges — an item may sit in another's absent window or between the bytes
// of two alias members, above one piece pair and below another. A height H
// is a literal h_H implying o_i ≤ H − s_i for every item: heights are
// asked through assumptions, so learned clauses carry over as H descends.
// Loads (max-live, cover clauses, windows) are the bytes the pieces occupy.
//
// Techniques, each behind an Options flag: cover clauses (for a section
// whose load equals H, every address unit below H is covered by one of its
// pieces; for a section with slack σ ≤ H/32, every σ+1 consecutive units
// meet one of its pieces), symmetry breaking (the largest item is kept in
// the lower half of H — a reflection, used only when every item's pieces
// are symmetric in its bytes — and identical items are ordered by index),
// domain filtering by subset sums, and in Minimise a probe of the lower
// bound before the descent from the incumbent.
//
// Entry points: Decide (does the problem fit in C bytes?), Minimise (lower
// the peak from an incumbent, proving optimality when the last step is
// refuted), Gallop (the same contract with a fresh encoding per height and
// heights that gallop down: for incumbents far above the optimum, where
// each lower height's encoding is smaller) and ProveLowerBound (refute relaxations — time windows clipped
// around the heaviest sections, sizes rounded down — at the current bound).
// Options.RoundUp gives the opposite, a restriction: sizes rounded up on a
// coarser axis, whose plans are valid and whose refutations prove nothing.
//
// Exactness: the item model is exact — gaps, partial gaps and alias
// members that outlive their root included — so an unsatisfiable encoding
// is a proof (Decide answers Infeasible, Minimise proves optimality,
// ProveLowerBound raises the bound). Only Options.RoundUp (sizes rounded
// up) gives a restriction whose refutations prove nothing. A problem whose
// alias members share bytes while live, neither inside the other, has no
// valid plan at all: Decide answers Infeasible, the others decline. A
// single pool (pool 0) is planned.
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
package sat
