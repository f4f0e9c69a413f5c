package bounds

import (
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
)

func TestPinConflictsAndTop(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	buf := func(id string, start, end, size int64, pin *int64) model.Buffer {
		return model.Buffer{ID: id, Start: start, End: end, Size: size, Pin: pin}
	}
	for _, tc := range []struct {
		name     string
		p        *model.Problem
		conflict string // a substring of the explanation; "" for none
		top      int64
	}{
		{"no pins", &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 8, nil)}}, "", 0},
		{"disjoint pins", &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 8, at(0)), buf("b", 1, 3, 8, at(8))}}, "", 16},
		{"pins apart in time may share bytes", &model.Problem{Buffers: []model.Buffer{buf("a", 0, 1, 8, at(0)), buf("b", 1, 2, 8, at(4))}}, "", 12},
		{"overlapping pins", &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 8, at(0)), buf("b", 1, 3, 8, at(4))}}, "the pins alone cannot be placed: pinned", 12},
		{"pin above the capacity", &model.Problem{Pools: []model.Pool{{Name: model.DefaultPool, Capacity: 10}},
			Buffers: []model.Buffer{buf("a", 0, 2, 8, at(4))}}, "the pins alone cannot be placed", 12},
		{"unpinned buffers do not count", &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 8, at(0)), buf("b", 0, 2, 100, nil)}}, "", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PinConflicts(tc.p)
			if tc.conflict == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tc.conflict)
			}
			assert.Equal(t, tc.top, PinTop(tc.p))
		})
	}
}
