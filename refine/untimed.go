package refine

import "context"

// untimedKey marks a context whose searches are bounded by work alone.
type untimedKey struct{}

// Untimed returns ctx marked so that Stack's windows are bounded by their
// node budgets alone, without their time cap (stackWindowTime): the stack
// then gives the same plans on any machine (solve.Options.Work).
func Untimed(ctx context.Context) context.Context {
	return context.WithValue(ctx, untimedKey{}, true)
}

// untimed reports whether ctx was marked by Untimed.
func untimed(ctx context.Context) bool {
	on, _ := ctx.Value(untimedKey{}).(bool)
	return on
}
