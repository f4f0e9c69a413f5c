package benchmarks

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// TransformerOptions shapes a Transformer trace. Zero fields take the
// defaults noted on them (a BERT-base-like block).
type TransformerOptions struct {
	Layers int   // transformer blocks; default 12 (ignored when Buffers > 0)
	Hidden int64 // model width; default 768
	Seq    int64 // tokens; default 512
	Heads  int64 // attention heads; default 12
	Bytes  int64 // bytes per element; default 2
	// Backward adds a training step: activations saved by the forward pass
	// stay live until the backward pass of their block uses them, and
	// gradients flow back block by block.
	Backward bool
	// Buffers, when > 0, repeats blocks until the trace has exactly this
	// many buffers (the last block is cut short): long traces of up to
	// millions of buffers.
	Buffers int
	// Jitter, in [0, 1), scales every size by a random factor in
	// [1−Jitter, 1+Jitter] (rounded up to 64 bytes), so that blocks differ.
	Jitter float64
	Seed   uint64
}

// Transformer returns a trace shaped like a stack of transformer blocks:
// per block layer norm, QKV projection, attention scores and softmax
// (heads·seq² elements), context, output projection, residual, layer norm,
// MLP up (4·hidden), GELU, MLP down and residual, plus short-lived matmul
// scratch; with Backward, a gradient buffer per step in reverse. Every
// buffer lives from the step that writes it to the last step that reads it.
// Kinds are set (activation or scratch), so pictures colour them apart.
func Transformer(opt TransformerOptions) *model.Problem {
	if opt.Hidden <= 0 {
		opt.Hidden = 768
	}
	if opt.Seq <= 0 {
		opt.Seq = 512
	}
	if opt.Heads <= 0 {
		opt.Heads = 12
	}
	if opt.Bytes <= 0 {
		opt.Bytes = 2
	}
	layers := opt.Layers
	if layers <= 0 {
		layers = 12
	}
	if opt.Buffers > 0 {
		// A block writes 16 buffers forward (12 outputs, 4 workspaces) and
		// 18 backward (9 gradients, 9 workspaces): enough blocks to reach
		// Buffers, then the trace is cut there.
		per := 16
		if opt.Backward {
			per += 18
		}
		layers = opt.Buffers/per + 1
	}
	g := &traceGen{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x7472616e73))}
	g.p = &model.Problem{Name: fmt.Sprintf("transformer-h%d-s%d", opt.Hidden, opt.Seq)}
	h, s := opt.Hidden, opt.Seq
	tok := s * h
	x := g.buf("embed", model.Activation, tok)
	type saved struct{ ids []int }
	var stack []saved
	for l := 0; l < layers && !g.full(); l++ {
		name := func(op string) string { return fmt.Sprintf("L%d.%s", l, op) }
		ln1 := g.op(name("ln1"), model.Activation, tok, x)
		qkv := g.opScratch(name("qkv"), 3*tok, h*3*h, ln1)
		scores := g.op(name("scores"), model.Activation, opt.Heads*s*s, qkv)
		probs := g.op(name("softmax"), model.Activation, opt.Heads*s*s, scores)
		ctx := g.op(name("context"), model.Activation, tok, probs, qkv)
		proj := g.opScratch(name("proj"), tok, h*h, ctx)
		res1 := g.op(name("res1"), model.Activation, tok, x, proj)
		ln2 := g.op(name("ln2"), model.Activation, tok, res1)
		fc1 := g.opScratch(name("fc1"), 4*tok, 4*h*h, ln2)
		gelu := g.op(name("gelu"), model.Activation, 4*tok, fc1)
		fc2 := g.opScratch(name("fc2"), tok, 4*h*h, gelu)
		x = g.op(name("res2"), model.Activation, tok, res1, fc2)
		stack = append(stack, saved{[]int{ln1, qkv, scores, probs, ctx, res1, ln2, fc1, gelu}})
	}
	if opt.Backward {
		grad := g.op("loss.grad", model.Activation, tok, x)
		for l := len(stack) - 1; l >= 0 && !g.full(); l-- {
			for k := len(stack[l].ids) - 1; k >= 0 && !g.full(); k-- {
				act := stack[l].ids[k]
				// The gradient w.r.t. this activation's input: the same
				// size as the activation, computed from it and the
				// incoming gradient, with a weight-gradient scratch.
				size := g.p.Buffers[act].Size
				if !g.full() {
					ws := g.buf(fmt.Sprintf("L%d.bwd%d.ws", l, k), model.Scratch, size/2+64)
					g.use(ws, g.t)
				}
				grad = g.op(fmt.Sprintf("L%d.bwd%d.grad", l, k), model.Activation, size, grad, act)
			}
		}
	}
	if opt.Buffers > 0 && len(g.p.Buffers) > opt.Buffers {
		g.p.Buffers = g.p.Buffers[:opt.Buffers]
	}
	// Buffers that were never read live one step.
	for i := range g.p.Buffers {
		b := &g.p.Buffers[i]
		if b.End <= b.Start {
			b.End = b.Start + 1
		}
	}
	return g.p
}

type traceGen struct {
	opt TransformerOptions
	rng *rand.Rand
	p   *model.Problem
	t   int64 // current step
}

func (g *traceGen) full() bool { return g.opt.Buffers > 0 && len(g.p.Buffers) >= g.opt.Buffers }

// buf adds a buffer written at the current step.
func (g *traceGen) buf(id string, kind model.Kind, elems int64) int {
	size := elems * g.opt.Bytes
	if g.opt.Jitter > 0 {
		f := 1 + g.opt.Jitter*(2*g.rng.Float64()-1)
		size = (int64(float64(size)*f) + 63) / 64 * 64
	}
	g.p.Buffers = append(g.p.Buffers, model.Buffer{ID: id, Start: g.t, End: g.t, Size: max(size, 1), Kind: kind})
	return len(g.p.Buffers) - 1
}

// use records that buffer i is read at step t.
func (g *traceGen) use(i int, t int64) {
	if i < len(g.p.Buffers) && g.p.Buffers[i].End < t+1 {
		g.p.Buffers[i].End = t + 1
	}
}

// op advances one step: it reads ins and writes a new buffer.
func (g *traceGen) op(id string, kind model.Kind, elems int64, ins ...int) int {
	g.t++
	for _, in := range ins {
		g.use(in, g.t)
	}
	return g.buf(id, kind, elems)
}

// opScratch is op with a matmul workspace live during the step only.
func (g *traceGen) opScratch(id string, elems, scratch int64, ins ...int) int {
	out := g.op(id, model.Activation, elems, ins...)
	ws := g.buf(id+".ws", model.Scratch, min(scratch, 1<<22))
	g.use(ws, g.t)
	return out
}
