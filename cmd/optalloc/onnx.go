package main

import (
	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/formats/onnx"
)

// readsInputs names the commands that read problems, which take --dim.
var readsInputs = map[string]bool{"plan": true, "bounds": true, "compare": true, "check": true, "verify": true, "viz": true}

// dimFlag declares --dim on the commands that read inputs.
func dimFlag(c *command, fs *pflag.FlagSet) {
	if readsInputs[c.name] {
		fs.StringArray("dim", nil, "ONNX inputs: fix a symbolic dimension, NAME=VALUE (repeatable). NAME is a dim_param, INPUT:AXIS for an unnamed dimension of graph input INPUT, or a scalar integer graph input whose value an If condition reads (e.g. --dim batch=1 --dim input:1=576 --dim sr=16000)")
	}
}

// dimValues parses --dim.
func dimValues(e *env) (map[string]int64, error) {
	dims := map[string]int64{}
	if e.flags == nil || e.flags.Lookup("dim") == nil {
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
