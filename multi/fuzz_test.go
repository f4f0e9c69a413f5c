package multi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// FuzzParseSchedule: any text gives a schedule that schedules every model
// exactly once, or an input error naming the file.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"a\nb c\n", "# x\na, b, c", "#1 #2\n#3", "a\na\n", "", "a b c d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		names := []string{"a", "b", "c"}
		s, err := ParseSchedule(strings.NewReader(text), "s.txt", names)
		if err != nil {
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			require.True(t, strings.HasPrefix(err.Error(), "s.txt"), err.Error())
			return
		}
		require.NoError(t, s.Check(len(names)))
	})
}
