package viz

import (
	"math"
	"strconv"
)

// niceTicks returns about n round values covering [lo, hi] (steps of 1, 2
// or 5 times a power of ten). The JavaScript of the HTML page uses the same
// rule when it redraws the axes after a zoom.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not -0 (k is -0 when lo is 0), which prints as "-0"
		}
		out = append(out, v)
	}
	return out
}

// compact formats a count shortly: 950, 12.5k, 1.05M, 15.7G.
func compact(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e4, "k"}} {
		if a >= u.div {
			d := v / u.div
			if u.suffix == "k" {
				d, u.suffix = v/1e3, "k"
			}
			return strconv.FormatFloat(d, 'g', 4, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
