package benchmarks

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// TrainingOptions shapes a Training trace. Zero fields take the defaults
// noted on them.
type TrainingOptions struct {
	// Buffers is the number of buffers; default 20 000. The trace is cut
	// at exactly this many (the optimiser phase is kept whole).
	Buffers int
	Seed    uint64
}

// Training returns a trace shaped like one training step of a large
// network as the MindSpore and iopddl traces record it: parameters and
// optimiser state (two moments per parameter) live through the whole step;
// the forward pass writes activations, most read by the next few ops, some
// saved until the backward pass of their layer; tiny buffers (4–64 bytes:
// shapes, scalars, loss-scale flags) make up about half the trace (as in MindSpore bert_base);
// matmul workspaces live one op; the backward pass writes a gradient per
// saved activation and a parameter gradient per parameter, which lives
// until the optimiser step at the end updates its parameter. Sizes run from
// 1 byte to gigabytes (an embedding table of up to 256 Ki rows × 4 Ki
// columns in fp32): a layer's width, tokens per batch and vocabulary are
// drawn per trace, and every size gets a log-normal jitter so that ties
// are rare but sizes still cluster, as in the real traces.
func Training(opt TrainingOptions) *model.Problem {
	n := opt.Buffers
	if n <= 0 {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x747261696e696e67))
	g := &trainGen{rng: rng, p: &model.Problem{Name: fmt.Sprintf("training-n%d-s%d", n, opt.Seed)}}
	widths := []int64{256, 512, 768, 1024, 2048, 4096}
	hidden := widths[rng.IntN(len(widths))]
	tokens := int64(128 << rng.IntN(5)) // 128 .. 2048 tokens per micro-batch
	vocab := int64(8192 << rng.IntN(6)) // 8 Ki .. 256 Ki rows
	elem := int64(4)
	if rng.IntN(2) == 0 {
		elem = 2
	}
	// About 7.6 buffers per forward op and backward op together plus
	// 5 per parameter: layers sized so that the trace passes n (then cut).
	opsPerLayer := 6 + rng.IntN(10)
	paramsPerLayer := 2 + rng.IntN(5)
	perLayer := opsPerLayer*7 + paramsPerLayer*5
	layers := max(1, n/perLayer)

	type param struct{ w, grad int }
	var params []param
	addParam := func(name string, bytes int64) {
		w := g.buf(name, model.Weight, bytes, 0)
		g.buf(name+".m", model.Weight, bytes, 0)
		g.buf(name+".v", model.Weight, bytes, 0)
		params = append(params, param{w: w, grad: -1})
	}
	addParam("embedding", vocab*hidden*elem)
	layerParams := make([][]int, layers)
	for l := 0; l < layers; l++ {
		for k := 0; k < paramsPerLayer; k++ {
			var bytes int64
			switch rng.IntN(4) {
			case 0: // bias / norm scale
				bytes = hidden * elem
			case 1:
				bytes = hidden * hidden * elem
			case 2:
				bytes = 4 * hidden * hidden * elem
			default:
				bytes = 3 * hidden * hidden * elem
			}
			layerParams[l] = append(layerParams[l], len(params))
			addParam(fmt.Sprintf("L%d.p%d", l, k), g.jitter(bytes))
		}
	}
	// Forward pass.
	type savedAct struct{ id int }
	saved := make([][]savedAct, layers)
	var live []int // recent activations, read by the next ops
	g.t = 1
	for l := 0; l < layers; l++ {
		for k := 0; k < opsPerLayer; k++ {
			g.t++
			for _, x := range live {
				g.use(x, g.t)
			}
			live = live[:0]
			var elems int64
			switch rng.IntN(6) {
			case 0:
				elems = tokens * hidden * 4
			case 1:
				elems = tokens * hidden * 3
			case 2: // attention scores: heads × seq²
				elems = tokens * min(tokens, 512) * (hidden / 64)
			default:
				elems = tokens * hidden
			}
			out := g.buf(fmt.Sprintf("L%d.f%d", l, k), model.Activation, g.jitter(elems*elem), g.t)
			if rng.Float64() < 0.45 {
				saved[l] = append(saved[l], savedAct{out})
			} else {
				g.use(out, g.t+1+int64(rng.IntN(3)))
			}
			live = append(live, out)
			g.tiny(fmt.Sprintf("L%d.f%d", l, k), 1+rng.IntN(3))
			if rng.IntN(3) == 0 {
				ws := g.buf(fmt.Sprintf("L%d.f%d.ws", l, k), model.Scratch, g.jitter(elems*elem/2+1), g.t)
				g.use(ws, g.t)
			}
			if rng.IntN(4) == 0 { // a reduced statistic kept for backward
				st := g.buf(fmt.Sprintf("L%d.f%d.stat", l, k), model.Activation, g.jitter(tokens*elem), g.t)
				saved[l] = append(saved[l], savedAct{st})
			}
		}
	}
	g.t++
	loss := g.buf("loss", model.Activation, 4, g.t)
	// Backward pass, layer by layer in reverse.
	grad := g.buf("loss.grad", model.Activation, g.jitter(tokens*hidden*elem), g.t)
	g.use(loss, g.t+1)
	for l := layers - 1; l >= 0; l-- {
		for k := opsPerLayer - 1; k >= 0; k-- {
			g.t++
			g.use(grad, g.t)
			if k < len(saved[l]) {
				g.use(saved[l][k].id, g.t)
			}
			size := g.jitter(tokens * hidden * elem * int64(1+rng.IntN(4)))
			grad = g.buf(fmt.Sprintf("L%d.b%d.grad", l, k), model.Activation, size, g.t)
			g.tiny(fmt.Sprintf("L%d.b%d", l, k), 1+rng.IntN(4))
			if rng.IntN(2) == 0 {
				ws := g.buf(fmt.Sprintf("L%d.b%d.ws", l, k), model.Scratch, g.jitter(size/2+1), g.t)
				g.use(ws, g.t)
			}
			if k < len(layerParams[l]) {
				pi := layerParams[l][k]
				w := g.p.Buffers[params[pi].w]
				params[pi].grad = g.buf(w.ID+".grad", model.Activation, w.Size, g.t)
			}
		}
		for _, s := range saved[l] {
			g.use(s.id, g.t)
		}
	}
	g.t++
	params[0].grad = g.buf("embedding.grad", model.Activation, g.p.Buffers[params[0].w].Size, g.t)
	// Optimiser: one update per parameter, its gradient freed after it.
	for pi := range params {
		g.t++
		if params[pi].grad >= 0 {
			g.use(params[pi].grad, g.t)
		}
		g.tiny(fmt.Sprintf("opt%d", pi), 1)
	}
	end := g.t + 1
	for i := range g.p.Buffers {
		b := &g.p.Buffers[i]
		if b.Kind == model.Weight {
			b.End = end
		}
		if b.End <= b.Start {
			b.End = b.Start + 1
		}
	}
	// Cut to n buffers, keeping the weights (written first) and the
	// buffers created earliest.
	if len(g.p.Buffers) > n {
		g.p.Buffers = g.p.Buffers[:n]
	}
	return g.p
}

type trainGen struct {
	rng *rand.Rand
	p   *model.Problem
	t   int64
}

func (g *trainGen) buf(id string, kind model.Kind, bytes int64, t int64) int {
	g.p.Buffers = append(g.p.Buffers, model.Buffer{ID: id, Start: t, End: t + 1, Size: max(bytes, 1), Kind: kind})
	return len(g.p.Buffers) - 1
}

func (g *trainGen) use(i int, t int64) {
	if b := &g.p.Buffers[i]; b.End < t+1 {
		b.End = t + 1
	}
}

// tiny adds k small buffers (1–64 bytes, mostly 4) read within a few ops.
func (g *trainGen) tiny(name string, k int) {
	for j := 0; j < k; j++ {
		size := int64(4)
		if g.rng.IntN(3) == 0 {
			size = 1 << g.rng.IntN(7)
		}
		x := g.buf(fmt.Sprintf("%s.s%d", name, j), model.Scratch, size, g.t)
		g.use(x, g.t+int64(g.rng.IntN(6)))
	}
}

// jitter scales bytes by a log-normal factor (σ = 0.15) with probability
// 1/2 and rounds to 512 bytes above 4 KiB, so that sizes cluster like the
// shapes of a real model but ties are not universal.
func (g *trainGen) jitter(bytes int64) int64 {
	if g.rng.IntN(2) == 0 {
		return bytes
	}
	v := float64(bytes) * math.Exp(0.15*g.rng.NormFloat64())
	b := int64(v)
	if b > 4096 {
		b = (b + 511) / 512 * 512
	}
	return max(b, 1)
}
