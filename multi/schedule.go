package multi

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// Schedule says when the models run: Stages run one after another, in
// order; the models of one stage run at the same time. Every model is in
// exactly one stage. Stages hold model indices.
type Schedule struct {
	Stages [][]int
}

// Serial runs n models one after another, in the order given.
func Serial(n int) Schedule {
	s := Schedule{Stages: make([][]int, n)}
	for k := range n {
		s.Stages[k] = []int{k}
	}
	return s
}

// Concurrent runs n models at the same time (one stage).
func Concurrent(n int) Schedule {
	all := make([]int, n)
	for k := range n {
		all[k] = k
	}
	return Schedule{Stages: [][]int{all}}
}

// String is the schedule in the file format's one-line form: stages
// separated by " ; ", models of a stage by spaces (model indices).
func (s Schedule) String() string {
	parts := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		ks := make([]string, len(st))
		for j, k := range st {
			ks[j] = fmt.Sprint(k)
		}
		parts[i] = strings.Join(ks, " ")
	}
	return strings.Join(parts, " ; ")
}

// Check reports an error unless every one of n models is in exactly one
// stage and no stage is empty.
func (s Schedule) Check(n int) error {
	seen := make([]bool, n)
	for i, st := range s.Stages {
		if len(st) == 0 {
			return fmt.Errorf("schedule: stage %d is empty", i+1)
		}
		for _, k := range st {
			if k < 0 || k >= n {
				return fmt.Errorf("schedule: model %d does not exist (%d models)", k, n)
			}
			if seen[k] {
				return fmt.Errorf("schedule: model %d appears twice", k)
			}
			seen[k] = true
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return fmt.Errorf("schedule: model %d is not scheduled", i)
	}
	return nil
}

// ReadScheduleFile reads a schedule file (see ParseSchedule).
func ReadScheduleFile(path string, names []string) (Schedule, error) {
	f, err := os.Open(path)
	if err != nil {
		return Schedule{}, &model.InputError{File: path, Msg: err.Error()}
	}
	defer f.Close()
	return ParseSchedule(f, path, names)
}

// maxScheduleLine bounds one line of a schedule file.
const maxScheduleLine = 1 << 20

// ParseSchedule reads a schedule file: one stage per line, stages run one
// after another from the top; the models named on one line run at the
// same time. Models are named by names[k] (the CLI gives each model file's
// base name without its extension) or by their 1-based position "#K".
// Names are separated by spaces, tabs or commas; "#" followed by a
// non-digit starts a comment, and blank lines are skipped. Every model must
// appear exactly once. Errors name the file and line.
//
//	# wake word, then the two detectors together
//	preprocessor
//	kws, vad
func ParseSchedule(r io.Reader, name string, names []string) (Schedule, error) {
	byName := map[string]int{}
	for k, n := range names {
		if _, dup := byName[n]; !dup {
			byName[n] = k
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxScheduleLine)
	var s Schedule
	seenAt := map[int]int{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if c := commentStart(text); c >= 0 {
			text = text[:c]
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\r' })
		if len(fields) == 0 {
			continue
		}
		var stage []int
		for _, f := range fields {
			k, ok := byName[f]
			if !ok {
				var pos int
				if _, err := fmt.Sscanf(f, "#%d", &pos); err == nil && fmt.Sprintf("#%d", pos) == f && pos >= 1 && pos <= len(names) {
					k, ok = pos-1, true
				}
			}
			if !ok {
				return Schedule{}, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("unknown model %s (the models: %s, or #1..#%d)", model.Quote(f), strings.Join(names, ", "), len(names))}
			}
			if l, dup := seenAt[k]; dup {
				return Schedule{}, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("model %s is scheduled twice (also line %d)", model.Quote(names[k]), l)}
			}
			seenAt[k] = line
			stage = append(stage, k)
		}
		s.Stages = append(s.Stages, stage)
	}
	if err := sc.Err(); err != nil {
		return Schedule{}, &model.InputError{File: name, Line: line + 1, Msg: err.Error()}
	}
	for k, n := range names {
		if _, ok := seenAt[k]; !ok {
			return Schedule{}, &model.InputError{File: name, Msg: fmt.Sprintf("model %s is not scheduled (every model must appear on one line)", model.Quote(n))}
		}
	}
	return s, nil
}

// commentStart is the index of the "#" that starts a comment in a schedule
// line (one not followed by a digit: "#2" names a model), -1 without one.
func commentStart(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i+1 == len(s) || s[i+1] < '0' || s[i+1] > '9') {
			return i
		}
	}
	return -1
}
