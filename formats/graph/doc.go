// Package graph is the model-graph front end of optalloc: it reads
// .graph.json files (tensors, ops in execution order, one or more models
// and a schedule) and turns them into a model.Problem — one buffer per
// tensor and per scratch area, with lifetimes, in-place aliases and shared
// weights — together with a Report of what it did.
//
// Importing the package registers the ".graph.json" suffix with
// formats.Register, so formats.Load("net.graph.json") works.
//
// # The .graph.json format
//
// A single model:
//
//	{"name": "tiny", "alignment": 64,
//	 "tensors": [
//	  {"name": "image", "shape": [1, 3, 8, 8], "dtype": "float32", "kind": "input"},
//	  {"name": "w", "shape": [4, 3, 3, 3], "dtype": "float32", "kind": "weight", "hash": "sha256:…"},
//	  {"name": "a", "shape": [1, 4, 8, 8], "dtype": "float32"},
//	  {"name": "b", "shape": [1, 4, 8, 8], "dtype": "float32"},
//	  {"name": "cat", "shape": [1, 8, 8, 8], "dtype": "float32"},
//	  {"name": "flat", "shape": [1, 512], "dtype": "float32", "kind": "output"}],
//	 "ops": [
//	  {"name": "conv", "type": "Conv", "inputs": ["image", "w"], "outputs": ["a"],
//	   "scratch": [{"name": "im2col", "min_size": 864, "max_size": 6912}], "latency_critical": true},
//	  {"name": "relu", "type": "Relu", "inputs": ["a"], "outputs": ["b"]},
//	  {"name": "concat", "type": "Concat", "axis": 1, "inputs": ["a", "b"], "outputs": ["cat"]},
//	  {"name": "flatten", "type": "Flatten", "inputs": ["cat"], "outputs": ["flat"]}]}
//
// Several models: "models": [{"name": "a", "tensors": […], "ops": […]}, …]
// with "schedule": "serial" (default: one after another, in file order),
// "concurrent" (all at once), or explicit stages [["a"], ["b", "c"]]
// (stages run one after another; the models of a stage run together).
// A model may add "reload_weights": true (see Several models below).
//
// Top-level fields: name, order ("auto", "given", "depth-first"; see
// below), alignment (bytes, default DefaultAlignment = 64;
// 1 disables it), liveness {"inputs_from_start": bool, "outputs_to_end":
// bool} (both default true), in_place {"reshape", "concat", "split",
// "slice": bool} (all default true), schedule, models or tensors+ops,
// format (a version string, optional), comment. Unknown fields are errors (they are usually typos).
//
// Tensor fields: name (unique in its model); the size as shape + dtype
// (bool, int8, uint8, int16, uint16, float16, bfloat16, int32, uint32,
// float32, int64, uint64, float64, complex64, complex128) or as bytes (or
// both, when they agree); kind: "input", "output", "weight", "code" (an
// instruction stream: an NPU command stream, compiled kernels; a constant
// treated like a weight) or "activation" (default); for weights and code
// an optional content hash or base64 data (identical content is stored
// once across models; code is never merged with a weight). Shapes are
// needed by the in-place rules and their checks.
//
// Op fields: name (unique), type, inputs, outputs, axis (Concat, Split;
// negative counts from the end; Split defaults to 0), begin (Slice: one
// start index per input dimension), scratch (a list of {name, size} for a
// fixed size or {name, min_size, max_size} for a variable one; max_size
// may be omitted; "shares": "NAME" makes a fixed-size entry reuse the
// bytes of another scratch entry of the same op, which it uses at another
// moment: the linked entries become an alias chain, largest first, and
// take the bytes of the largest), latency_critical (marks the op's scratch for the fast
// pool; a scratch entry's own latency_critical overrides it). The list
// order is the execution order (op i runs at step i) when it is one:
// every op listed after the producers of its inputs. Otherwise an order is
// derived depth-first (each op after the producers of its inputs, visited
// in input order, the listed order kept wherever it is valid) and
// Report.Reordered says so. The top-level "order" field changes this:
// "given" makes an invalid order an error, "depth-first" always derives
// the order from the graph outputs (each output's producers as late as
// possible, so that tensors die soon after they are made).
//
// # Buffers
//
// Buffer ids are the tensor names, qualified by the model name when there
// are several models ("encoder/conv1_out"); scratch buffers are
// "op:name" ("op:scratch" or "op:scratchK" when unnamed). A buffer's size
// is product(shape) × width(dtype) (or bytes) rounded up to the
// alignment, and its alignment is the file's; a buffer inside another one
// (an alias child) keeps its exact size, its padding belongs to its parent.
//
// # Liveness
//
// Lifetimes are half-open, like every optalloc buffer: live on [start,
// end) in op steps. A tensor produced by op p and last read by op u lives
// on [p, u+1) (both the producer's and the last reader's steps are
// included, so an op's inputs and outputs never share memory); one nobody
// reads lives on [p, p+1). Graph inputs live from step 0 (or from their
// first reader when inputs_from_start is false); graph outputs to the end
// of their model (or to their last reader when outputs_to_end is false);
// weights and code for the whole timeline (see Several models). Scratch lives exactly during its
// op: [i, i+1). Declared tensors nobody produces or reads get no buffer.
//
// # In-place rules
//
// Every rule relates buffers that hold the same bytes, so that a runtime
// can skip a copy; the relation becomes a model.Alias that every planner
// and the verifier honour.
//
//   - Reshape, Flatten, Squeeze, Unsqueeze (and ExpandDims, View): the
//     output is placed at delta 0 of its input when the input dies at this
//     op (weights and outputs held to the end never die).
//   - Concat: when the axis is the outermost non-1 dimension of the output
//     (every dimension before it is 1), input k is placed inside the output
//     at the sum of the sizes of inputs 0..k-1, provided: the offset is a
//     multiple of the alignment; the input is produced by an op of the
//     model (not a graph input or weight); it appears once in the op's
//     inputs; and it is not already inside a bigger buffer (its alias root
//     has exactly its bytes — a chain of reshape views is fine: the chain's
//     root goes inside the concat output). An input already placed in an
//     earlier concat, or a split/slice view of a larger tensor, is copied.
//     Inputs that fail are copied; the others are written in place by their
//     producers.
//   - Split: when every input dimension before the axis is 1, output k is
//     placed inside the input at the sum of the sizes of outputs 0..k-1
//     (offsets must be multiples of the alignment). The input stays
//     allocated while any output is live.
//   - Slice (with begin): the output is placed inside the input when the
//     region is contiguous (every dimension before the last cut one has
//     extent 1 in the output, every dimension after it is whole), its
//     offset is aligned, and the output does not outlive the input (a
//     long-lived small slice would keep all of its input allocated).
//
// Finally, a buffer may not share bytes with a buffer of its alias tree
// that is not its ancestor or descendant while both are live (model and
// verify only exempt nesting): such aliases — say a split of a concat
// output whose inputs are still live — are undone, the most recent first.
// Every undone or refused chance is listed in Report.Skipped with its
// reason; Report.CopyBytesRemoved sums the bytes no longer copied.
//
// # Several models
//
// Serial stages time-share one arena: their timelines are concatenated.
// Weights stay resident: a weight lives over the whole timeline, so a
// model run after another finds its weights where it left them. A model
// with "reload_weights": true has its weights loaded again before each run:
// they live only while it runs, and other stages may reuse their bytes.
// Report.Reload is the problem with every model reloading, so that both
// arenas can be shown.
// The models of a concurrent stage run in any interleaving, so none of
// their memory may be shared, while each model keeps its own reuse. One
// interval per buffer cannot say that (if a1, a2 of model A are disjoint
// in time, any b meeting both meets everything between), so the stage's
// timeline is the product of its models' timelines: point (t1, …, tk) is
// one global step, and a buffer of model j is live at every point whose
// j-th coordinate is in its local lifetime — an interval with gaps
// (model.Gap). Two buffers of different models always meet (pick both
// coordinates), two buffers of one model meet exactly when their local
// lifetimes do, so the problem is exact. The model with the most buffers
// is the outermost coordinate (its buffers get no gaps). Planners that
// ignore gaps stay valid, only more conservative.
//
// Weights with the same content — the same hash and size, or identical
// data (base64 "data", compared by SHA-256) — are stored once: one buffer (the first one's id) living over the
// union of its users' runs; Report.SharedWeights lists them. Report.Separate
// holds every model as its own problem (own timeline and weights), so that
// Report.PlanSeparately can measure one arena per model against the shared
// plan.
//
// # Errors
//
// Bad graphs give one *model.InputError, "file:line: what is wrong",
// pointing at the model, tensor or op at fault: unknown tensors, ops that
// form a cycle (with the path), ops listed before the producer of an
// input when "order" is "given",
// tensors produced twice, duplicate names, missing or unknown dtypes and
// sizes, shape mismatches in Concat/Split/Slice/Reshape, bad scratch sizes,
// bad schedules.
package graph
