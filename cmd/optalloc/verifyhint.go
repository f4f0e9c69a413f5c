package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// planAsProblem reads PROBLEM when it is a plan CSV (a header with an
// offset column, as plan -o writes): its lifetimes, sizes, alignments and
// alias columns are the problem (verify PLAN.csv PLAN.csv read the alias
// groups as overlaps). It returns nil for any other input, which
// loadProblem reads as usual.
func planAsProblem(path string) (*model.Problem, error) {
	if path == "-" || checkInputFile(path) != nil {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil || isJSONText(data) {
		return nil, nil
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	header, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return nil, nil
	}
	for _, h := range header {
		if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), "offset") {
			return problemFromPlanCSV(data, path)
		}
	}
	return nil, nil
}

// swapHint adds to an error reading PLAN, when PROBLEM is a plan file,
// that the arguments may be swapped (verify PLAN PROBLEM gave a bare
// "missing column offset").
func swapHint(err error, problem string) error {
	var ie *model.InputError
	if errors.As(err, &ie) {
		e := *ie
		e.Msg += " (verify takes PROBLEM then PLAN, and " + problem + " is a plan: are the arguments swapped?)"
		return &e
	}
	return err
}
