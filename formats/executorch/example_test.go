package executorch_test

import (
	"fmt"
	"strings"

	etfmt "github.com/optalloc/optalloc/formats/executorch"
)

// Read a specs file: sizes realigned, a view's root and offset, one pool
// per mem_id in the problem of the arenas.
func ExampleRead() {
	f, err := etfmt.Read(strings.NewReader(`{"executorch": {"alignment": 16, "specs": [
	 {"id": "w", "size": 250, "lifetime": [2, 4], "mem_id": 2},
	 {"id": "v", "size": 60, "lifetime": [5, 7], "storage_base": "w", "storage_base_offset": 128}]}}`), "specs.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	a := f.Arena()
	for i, s := range f.Specs {
		fmt.Printf("%s: %d bytes, lifetime [%d, %d], mem_id %d\n", s.ID, s.Size, s.First, s.Last, a.MemID(i))
	}
	for _, b := range a.Problem.Buffers {
		fmt.Printf("buffer %s: [%d, %d) %d bytes in %v\n", b.ID, b.Start, b.End, b.Size, b.Pools)
	}
	fmt.Println("v lives in", f.Specs[a.Root[1]].ID, "at", a.Delta[1])
	// Output:
	// w: 256 bytes, lifetime [2, 4], mem_id 2
	// v: 64 bytes, lifetime [5, 7], mem_id 2
	// buffer w: [2, 8) 256 bytes in [mem2]
	// v lives in w at 128
}
