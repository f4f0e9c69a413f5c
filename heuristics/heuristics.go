package heuristics

import (
	"context"

	"github.com/optalloc/optalloc/model"
)

// Planner places every buffer of a problem. Plans may be invalid only
// through a bug: callers verify them.
type Planner interface {
	Name() string
	Plan(ctx context.Context, p *model.Problem) (*model.Plan, error)
}

// registry holds every planner under its name, in a fixed order.
var registry []Planner

// Register adds a planner; it is called from init functions.
func Register(pl Planner) { registry = append(registry, pl) }

// All returns every registered planner, in registration order.
func All() []Planner { return append([]Planner(nil), registry...) }

// ByName returns the planner with the given name: a registered one, or a
// strip-packing planner with any order its name spells (StripByName).
func ByName(name string) (Planner, bool) {
	for _, pl := range registry {
		if pl.Name() == name {
			return pl, true
		}
	}
	if s, ok := StripByName(name); ok {
		return s, true
	}
	return nil, false
}

// Names lists the names of the registered planners.
func Names() []string {
	names := make([]string, len(registry))
	for i, pl := range registry {
		names[i] = pl.Name()
	}
	return names
}
