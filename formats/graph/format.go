package graph

import (
	"encoding/json"
	"fmt"
)

// File is a decoded .graph.json document. The format is described in the
// package documentation; Decode reads it and Build turns it into a problem.
type File struct {
	// Name names the model of a single-model file ("models" absent).
	Name string `json:"name,omitempty"`
	// Alignment in bytes of every buffer (sizes are rounded up to it and
	// offsets are multiples of it); 0 means DefaultAlignment.
	Alignment int64 `json:"alignment,omitempty"`
	// Liveness tunes the lifetimes of graph inputs and outputs.
	Liveness *Liveness `json:"liveness,omitempty"`
	// Schedule says how several models run: serial (default) or concurrent.
	Schedule *Schedule `json:"schedule,omitempty"`
	// InPlace switches the in-place rules on and off (all on by default).
	InPlace *InPlace `json:"in_place,omitempty"`
	// Order says how the ops' execution order is found: "auto" (default:
	// the listed order when it is one, else derived depth-first), "given"
	// (the listed order must be one) or "depth-first" (always derived from
	// the graph outputs).
	Order string `json:"order,omitempty"`
	// Models are the models; a single-model file may instead give Tensors
	// and Ops at the top level.
	Models []Model `json:"models,omitempty"`
	// Tensors and Ops of a single-model file.
	Tensors []Tensor `json:"tensors,omitempty"`
	Ops     []Op     `json:"ops,omitempty"`
	// Format optionally names the format version ("optalloc-graph/1").
	Format string `json:"format,omitempty"`
	// Comment is free text, ignored.
	Comment string `json:"comment,omitempty"`

	scheduleLine int
}

// Liveness tunes the lifetimes of graph inputs and outputs. Nil fields take
// the default (true).
type Liveness struct {
	// InputsFromStart makes graph inputs live from the first step of their
	// model (default); false makes them live from their first consumer.
	InputsFromStart *bool `json:"inputs_from_start,omitempty"`
	// OutputsToEnd keeps graph outputs live to the last step of their model
	// (default); false frees them after their last consumer (or right after
	// they are produced when nothing consumes them).
	OutputsToEnd *bool `json:"outputs_to_end,omitempty"`
}

// InPlace switches the in-place rules; nil fields mean on.
type InPlace struct {
	Reshape *bool `json:"reshape,omitempty"`
	Concat  *bool `json:"concat,omitempty"`
	Split   *bool `json:"split,omitempty"`
	Slice   *bool `json:"slice,omitempty"`
}

// on reports whether a rule is enabled.
func (ip *InPlace) on(rule string) bool {
	if ip == nil {
		return true
	}
	var v *bool
	switch rule {
	case "reshape":
		v = ip.Reshape
	case "concat":
		v = ip.Concat
	case "split":
		v = ip.Split
	case "slice":
		v = ip.Slice
	}
	return v == nil || *v
}

// Model is one network: its tensors and its ops in execution order.
type Model struct {
	Name    string   `json:"name"`
	Comment string   `json:"comment,omitempty"`
	Tensors []Tensor `json:"tensors"`
	Ops     []Op     `json:"ops"`
	// ReloadWeights says that the runtime loads the model's weights again
	// before each of its runs, so they need memory only while the model
	// runs and serial stages may reuse it. By default (false) weights stay
	// resident for the whole timeline: a model run after another one
	// finds its weights where it left them.
	ReloadWeights bool `json:"reload_weights,omitempty"`
	Line          int  `json:"-"`
}

// Tensor is a value of the graph.
type Tensor struct {
	Name string `json:"name"`
	// Shape and DType give the size: product(Shape) × width(DType).
	Shape []int64 `json:"shape,omitempty"`
	DType string  `json:"dtype,omitempty"`
	// Bytes gives the size directly (instead of, or agreeing with, Shape ×
	// DType).
	Bytes *int64 `json:"bytes,omitempty"`
	// Kind is input, output, weight or activation (default).
	Kind string `json:"kind,omitempty"`
	// Hash identifies the content of a weight: weights with the same hash
	// (and size) are stored once, across models.
	Hash string `json:"hash,omitempty"`
	// Data is the content of a weight, base64 (optional); identical data is
	// stored once, like an identical hash.
	Data string `json:"data,omitempty"`
	Line int    `json:"-"`
}

// Op is one operation. Its position in the model's list is its time step.
type Op struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Inputs  []string `json:"inputs,omitempty"`
	Outputs []string `json:"outputs,omitempty"`
	// Axis of Concat and Split (negative counts from the end).
	Axis *int `json:"axis,omitempty"`
	// Begin of a Slice, one index per dimension of its input.
	Begin []int64 `json:"begin,omitempty"`
	// Scratch buffers live only while the op runs.
	Scratch []Scratch `json:"scratch,omitempty"`
	// LatencyCritical marks the op's scratch for the fast pool.
	LatencyCritical bool `json:"latency_critical,omitempty"`
	Line            int  `json:"-"`
}

// Scratch is a temporary buffer of one op: a fixed Size, or a variable one
// of at least MinSize and at most MaxSize bytes (MaxSize optional).
type Scratch struct {
	Name    string `json:"name,omitempty"`
	Size    *int64 `json:"size,omitempty"`
	MinSize *int64 `json:"min_size,omitempty"`
	MaxSize *int64 `json:"max_size,omitempty"`
	// LatencyCritical overrides the op's flag for this buffer.
	LatencyCritical *bool `json:"latency_critical,omitempty"`
	// Shares names another scratch buffer of the same op whose bytes this
	// one reuses (the op uses them one after the other): the group of
	// buffers linked by shares takes the bytes of its largest member.
	// Fixed sizes only.
	Shares string `json:"shares,omitempty"`
}

// Schedule says how the models run. Stages run one after another and share
// one arena by time; the models of one stage run at the same time and never
// share memory. In JSON it is "serial" (one model per stage, in file
// order), "concurrent" (one stage with every model), or an explicit list
// of stages: [["a"], ["b", "c"]].
type Schedule struct {
	Stages [][]string
	Mode   string // "serial", "concurrent" or "" (explicit stages)
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	var mode string
	if err := json.Unmarshal(b, &mode); err == nil {
		if mode != "serial" && mode != "concurrent" {
			return fmt.Errorf("schedule %q: want \"serial\", \"concurrent\" or a list of stages [[\"a\"], [\"b\", \"c\"]]", mode)
		}
		*s = Schedule{Mode: mode}
		return nil
	}
	var stages [][]string
	if err := json.Unmarshal(b, &stages); err != nil {
		return fmt.Errorf("schedule: want \"serial\", \"concurrent\" or a list of stages [[\"a\"], [\"b\", \"c\"]]")
	}
	*s = Schedule{Stages: stages}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (s Schedule) MarshalJSON() ([]byte, error) {
	if s.Mode != "" {
		return json.Marshal(s.Mode)
	}
	return json.Marshal(s.Stages)
}
