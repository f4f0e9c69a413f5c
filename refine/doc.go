// Package refine is optalloc's time-window refinement of large problems:
// on a long schedule the peak of a plan is set in a few stretches of time,
// and each can be re-planned alone.
//
// Refine takes a group (an alias group, or a plain buffer) whose top is the
// peak, cuts a window of time around it holding about 96 movable groups,
// pins every other group alive in the window where the plan has it
// (clipped to the window), and minimises the window with the
// branch-and-bound (exact/bnb) from the plan's own offsets, with a budget
// of nodes. A window that comes out below the peak replaces the plan's
// offsets there; one that does not is tried wider and with more budget
// (Attempts). The result is a restriction of the problem, so every plan it
// makes is valid; it proves no bound.
//
// Stack builds a plan around the time of max-live where those windows are
// too dense to search: the buffers live through a window of time around it
// stacked at the bottom (longest-lived lowest), the window's own buffers
// above them as the branch-and-bound packs them clipped to the window, all
// pinned, and the rest placed around them by the caller's planner (plain
// single-pool problems only). It is a restriction too.
//
// The solve pipeline runs them (the stack when the windows leave a gap) on
// problems of MinBuffers buffers or more, ahead of the exact race when no
// exact engine takes the problem on, and as one of the race's engines when
// one does. It imports the exact engines, never solve.
package refine
