package bounds_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/model"
)

// Three 65-byte buffers aligned to 64 bytes, live together: max-live is 195,
// but two of them take two whole 64-byte blocks each, so every plan needs
// at least 128 + 128 + 65 = 321 bytes.
func ExampleAlign() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 65, Align: 64},
		{ID: "b", Start: 0, End: 2, Size: 65, Align: 64},
		{ID: "c", Start: 1, End: 3, Size: 65, Align: 64},
	}}
	r := bounds.Align(p)
	fmt.Println(r.MaxLive, r.LowerBound)
	fmt.Println(r.Detail())
	// Output:
	// 195 321
	// at time 1, 3 buffers aligned to multiples of 64: each takes whole 64-byte blocks except the topmost (max-live 195)
}

// Best takes the highest of the provers' bounds, each with its proof: here
// a buffer pinned at 100 lifts the bound above max-live.
func ExampleBest() {
	pin := int64(100)
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 64},
		{ID: "b", Start: 1, End: 3, Size: 32, Pin: &pin},
	}}
	b, err := bounds.Best(context.Background(), p, bounds.MaxLiveProver{}, bounds.PinsProver{})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Value, b.By, b.Proof.Buffers)
	fmt.Println(b.Proof.Detail)
	// Output:
	// 132 the pins' top [1]
	// buffer b is pinned with its highest byte at 132
}
