package heuristics

import "context"

// Settings adjust the registered planners for one solve, where the planners
// are reached by name (Portfolio, solve.Solve, the CLI's --planner-opt):
// a planner built by hand keeps its own fields unless its context carries
// Settings. Zero fields leave each planner's own value.
type Settings struct {
	// FreeList, when set, replaces the knobs of every FreeList run.
	FreeList *FreeList
	// StripRounds caps the re-ordering rounds of every Strip planner
	// (Strip.MaxIter); 0 keeps each planner's own.
	StripRounds int
	// StripBudget caps the work of every Strip planner (Strip.Budget); 0
	// keeps each planner's own.
	StripBudget float64
	// StripNoReorder stops every Strip planner after its first placement.
	StripNoReorder bool
}

type settingsKey struct{}

// WithSettings returns a context whose planners use s. Planners read it at
// the start of Plan; s must not change while they run.
func WithSettings(ctx context.Context, s *Settings) context.Context {
	return context.WithValue(ctx, settingsKey{}, s)
}

// settingsOf returns the Settings of ctx, or nil.
func settingsOf(ctx context.Context) *Settings {
	s, _ := ctx.Value(settingsKey{}).(*Settings)
	return s
}
