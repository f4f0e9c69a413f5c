// Package suggest finds the name a user probably meant: "did you mean
// --time-limit?" for a misspelled flag, the --dim name for a misspelled
// dimension.
package suggest

// Distance is the edit distance between a and b (bytes): insertions,
// deletions, substitutions, and a swap of two neighbours, one edit each.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Nearest returns the name of names closest to s, "" when none is within
// a third of its length (at least one edit).
func Nearest(s string, names []string) string {
	best, bestD := "", len(s)/3+1
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
