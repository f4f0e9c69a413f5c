package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/model"
)

// readsInputs names the commands that read problems, which take --dim.
var readsInputs = map[string]bool{"plan": true, "bounds": true, "compare": true, "check": true, "verify": true, "viz": true}

// dimFlag declares --dim on the commands that read inputs.
func dimFlag(c *command, fs *pflag.FlagSet) {
	if readsInputs[c.name] {
		fs.StringArray("dim", nil, "ONNX inputs: fix a symbolic dimension, NAME=VALUE (repeatable). NAME is a dim_param, INPUT:AXIS for an unnamed dimension of graph input INPUT, or a scalar integer graph input whose value an If condition reads (e.g. --dim batch=1 --dim input:1=576 --dim sr=16000)")
	}
}

// loadONNX reads a .onnx input with the --dim values; ok is false for
// other inputs (formats.Load reads them).
func loadONNX(e *env, path string) (p *model.Problem, ok bool, err error) {
	if !strings.HasSuffix(strings.ToLower(path), ".onnx") {
		return nil, false, nil
	}
	dims, err := dimValues(e)
	if err != nil {
		return nil, true, err
	}
	a, err := onnx.LoadFile(path, onnx.Options{Dims: dims})
	if err != nil {
		return nil, true, err
	}
	warnOpenConditions(e, path, a)
	return a.Problem, true, nil
}

// warnOpenConditions says which If conditions were left open, so that both
// branches are planned (a larger arena than the device's, which runs one),
// and which --dim could close them.
func warnOpenConditions(e *env, path string, a *onnx.Arena) {
	if len(a.OpenConditions) == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "warning: %s: %s", path, a.OpenConditions[0])
	if n := len(a.OpenConditions) - 1; n > 0 {
		fmt.Fprintf(e.stderr, " (and %d more If nodes)", n)
	}
	fmt.Fprintln(e.stderr)
}

// loadONNXBytes is loadONNX for standard input: ok is false unless data
// looks like an ONNX model (onnx.Sniff).
func loadONNXBytes(e *env, data []byte, name string) (p *model.Problem, ok bool, err error) {
	if !onnx.Sniff(data) {
		return nil, false, nil
	}
	dims, err := dimValues(e)
	if err != nil {
		return nil, true, err
	}
	p, err = onnx.DecodeProblem(data, name, onnx.Options{Dims: dims})
	return p, true, err
}

// dimValues parses --dim.
func dimValues(e *env) (map[string]int64, error) {
	dims := map[string]int64{}
	if e.flags.Lookup("dim") == nil {
		return dims, nil
	}
	specs, _ := e.flags.GetStringArray("dim")
	for _, s := range specs {
		name, v, err := onnx.ParseDim(s)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		if old, ok := dims[name]; ok && old != v {
			return nil, usageErr("--dim %s is given twice (%d and %d); give it once", name, old, v)
		}
		dims[name] = v
	}
	return dims, nil
}
