// Package heuristics holds the fast planners of optalloc. Each planner sits
// behind the Planner interface; they give the upper bound that the exact
// engines start from, and they are the answer on instances too large to
// prove optimal.
package heuristics
