// Package measure holds what several packages share to measure: the
// process's CPU time, for tables that print wall and CPU time and for
// solve's shares of a time limit counted in CPU time.
package measure
