package bounds

import (
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
)

func TestGrid(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name string
		bufs []model.Buffer
		pool int64
		want int64
	}{
		{"sizes", []model.Buffer{{ID: "a", End: 1, Size: 12}, {ID: "b", End: 1, Size: 18}}, 0, 6},
		{"alignment", []model.Buffer{{ID: "a", End: 1, Size: 12, Align: 8}}, 0, 4},
		{"pin", []model.Buffer{{ID: "a", End: 1, Size: 12, Pin: at(3)}}, 0, 3},
		{"pool alignment", []model.Buffer{{ID: "a", End: 1, Size: 12}}, 8, 4},
		{"zero sizes only", []model.Buffer{{ID: "a", End: 1, Size: 0}}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.bufs}
			if tc.pool > 0 {
				p.Pools = []model.Pool{{Name: model.DefaultPool, Align: tc.pool}}
			}
			assert.Equal(t, tc.want, Grid(p))
		})
	}
}
