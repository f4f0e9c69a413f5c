package formats_test

import (
	"fmt"

	"github.com/optalloc/optalloc/formats"
)

// LoadBytes sniffs standard input: a leading '{' is JSON, anything else CSV
// (after the registered sniffers, TFLite and allocation traces).
func ExampleLoadBytes() {
	for _, in := range []string{
		"id,lower,upper,size\na,0,2,16\n",
		`{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 16}]}`,
	} {
		p, err := formats.LoadBytes([]byte(in), "<stdin>")
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p.Buffers[0].ID, p.Buffers[0].Size)
	}
	// Output:
	// a 16
	// a 16
}
