package solve

import (
	"fmt"
	"math/rand"

	"github.com/optalloc/optalloc/model"
)

// randomProblem returns n buffers with random lifetimes in [0, 20) and sizes
// in [1, 40].
func randomProblem(seed int64, n int) *model.Problem {
	rng := rand.New(rand.NewSource(seed))
	p := &model.Problem{}
	for i := 0; i < n; i++ {
		s := rng.Int63n(20)
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 1 + rng.Int63n(6), Size: 1 + rng.Int63n(40)})
	}
	return p
}
