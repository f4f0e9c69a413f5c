// Package optalloc is the one front door to optalloc for Go programs, and
// the one every tool of this module goes through (the CLI, the C API and,
// through it, Python, the corpus runner): it loads an input, plans what
// the runtime really uses, and writes the plan.
//
//	in, err := optalloc.Load("model.tflite", optalloc.LoadOptions{})
//	if err != nil { ... }                        // a *model.InputError for bad input
//	res, err := optalloc.Plan(ctx, in, optalloc.Options{})
//	if err != nil { ... }
//	if res.Plan != nil {
//		err = in.Write("planned.tflite", res.Plan) // the model with the plan as its offline plan
//	}
//
// Load reads every input format the CLI reads (MiniMalloc CSV, JSON problem,
// .graph.json, .tflite, .onnx, .events; "-" is standard input, sniffed) and
// keeps what planning and writing need besides the problem: the runtime
// back end. For a .tflite model that is TensorFlow Lite Micro's arena: the
// tensors its planner places and the scratch buffers its kernels request
// (LoadOptions.TFLite is passed to tflite.Model.ArenaWith as it is).
//
// Plan plans Input.Problem. When the runtime places some buffers itself
// (TFLite Micro's kernel scratch, online around the offline plan) the
// result is the device's arena (device.SolveTFLM): every buffer where the
// device puts it and the peak the device reports; otherwise it is
// solve.Solve. Every plan has passed verify.Check.
//
// Input.Write writes a plan by the path's suffix — .csv (the input columns
// plus offset and pool), .json (a JSON plan), .tflite (a copy of the input
// model carrying the plan as TFLite Micro's OfflineMemoryAllocation
// metadata, checked by reading it back), .svg or .html (a picture); "-" is
// CSV on standard output — and keeps the rules of the CLI: it never writes
// onto a file it read (the input, a scratch list, anything Input.Protect
// names), never replaces a file that is not a regular file, and replaces a
// file atomically (temporary file beside it, fsync, rename). Bad input and
// refused outputs are a *model.InputError: one line, file first.
package optalloc
