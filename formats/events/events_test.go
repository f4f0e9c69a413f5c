package events

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

type life struct {
	id               string
	start, end, size int64
}

func TestReadTrace(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		lives []life
		peak  int64 // the optimum
	}{
		{"freed memory is reused", "alloc a 100\nalloc b 50\nfree a\nalloc c 100\nfree b\nfree c\n",
			[]life{{"a", 0, 2, 100}, {"b", 1, 4, 50}, {"c", 3, 5, 100}}, 150},
		{"never freed lives to the end", "# a comment\n\nmalloc x 8\nalloc y 16 align=16\nfree x\n",
			[]life{{"x", 0, 2, 8}, {"y", 1, 3, 16}}, 24}, // y at 0 (aligned), x at 16
		{"a pointer reused after free is a new buffer", "malloc 0x10 64\nfree 0x10\nmalloc 0x10 32\nmalloc 0x20 32\nfree 0x10\n",
			[]life{{"0x10", 0, 1, 64}, {"0x10#2", 2, 4, 32}, {"0x20", 3, 5, 32}}, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(tc.src), "t.events")
			require.NoError(t, err)
			require.Len(t, p.Buffers, len(tc.lives))
			for i, w := range tc.lives {
				b := p.Buffers[i]
				assert.Equal(t, w, life{b.ID, b.Start, b.End, b.Size})
			}
			res, err := solve.Solve(context.Background(), p, solve.Options{})
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, res.Plan))
			assert.Equal(t, tc.peak, res.Peak)
			assert.Equal(t, solve.Optimal, res.Status)
		})
	}
}

func TestReadTraceErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "t.events: no alloc events"},
		{"alloc a 1\nfree b\n", `t.events:2: free of "b", which is not allocated`},
		{"alloc a 1\nalloc a 2\n", `t.events:2: "a" is allocated again before it is freed`},
		{"alloc a -1\n", `t.events:1: size "-1" is not a byte count`},
		{"alloc a 1 align=0\n", `t.events:1: want align=A with A a positive integer, got "align=0"`},
		{"alloc a\n", `t.events:1: want "alloc ID SIZE [align=A]", got 2 fields`},
		{"free\n", `t.events:1: want "free ID", got 1 fields`},
		{"realloc a 3\n", `t.events:1: unknown event "realloc" (want alloc, malloc or free)`},
		{"alloc " + strings.Repeat("x", 100) + " 1\nalloc " + strings.Repeat("x", 100) + " 1\n", `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… is allocated again`},
	}
	for _, tc := range tests {
		_, err := Read(strings.NewReader(tc.src), "t.events")
		require.Error(t, err, tc.src)
		var ie *model.InputError
		require.ErrorAs(t, err, &ie)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestRegistered: formats.Load reads a .events file through this package.
func TestRegistered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.events")
	require.NoError(t, os.WriteFile(path, []byte("alloc a 4\nalloc b 4\nfree a\n"), 0o644))
	p, err := formats.Load(path)
	require.NoError(t, err)
	require.Len(t, p.Buffers, 2)
	assert.Equal(t, "b", p.Buffers[1].ID)
	assert.Equal(t, path, p.Name)
}

// FuzzRead: any bytes give a valid problem or an InputError.
func FuzzRead(f *testing.F) {
	f.Add("alloc a 100\nalloc b 50\nfree a\nalloc c 100\nfree b\nfree c\n")
	f.Add("malloc 0x10 64 align=8\nfree 0x10\nmalloc 0x10 32\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Read(strings.NewReader(src), "f.events")
		if err != nil {
			if _, ok := err.(*model.InputError); !ok {
				t.Fatalf("not an InputError: %T %v", err, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHostileTraces: D16, a literal id equal to a renaming ("a#2" after
// "a" was allocated twice) no longer makes two buffers share an id; D19, a
// byte order mark before the first event is skipped; D9, an id that is not
// UTF-8 is refused with its line, as in CSV.
func TestHostileTraces(t *testing.T) {
	p, err := Read(strings.NewReader("alloc a 16\nfree a\nalloc a 16\nalloc a#2 32\nfree a#2\n"), "t.events")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, b := range p.Buffers {
		assert.False(t, seen[b.ID], "id %q twice", b.ID)
		seen[b.ID] = true
	}
	assert.Len(t, p.Buffers, 3)
	p, err = Read(strings.NewReader("\ufeffalloc a 16\n"), "bom.events")
	require.NoError(t, err)
	assert.Equal(t, "a", p.Buffers[0].ID)
	_, err = Read(strings.NewReader("alloc a 16\nalloc caf\xe9 8\n"), "latin1.events")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "latin1.events:2: id")
	assert.Contains(t, err.Error(), "not valid UTF-8")
}

// TestBOMOnStandardInput (issue 42 item 5): a trace with a byte order mark
// is sniffed as a trace on standard input too (it was read as CSV: "missing
// column upper").
func TestBOMOnStandardInput(t *testing.T) {
	assert.True(t, Sniff([]byte("\ufeffalloc a 16\nfree a\n")))
	p, err := formats.LoadBytes([]byte("\ufeffalloc a 16\nfree a\n"), "-")
	require.NoError(t, err)
	require.Len(t, p.Buffers, 1)
	assert.Equal(t, "a", p.Buffers[0].ID)
}
