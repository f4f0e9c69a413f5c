package viz

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/optalloc/optalloc/model"
)

// WriteHTML writes plan pl of problem p as one self-contained HTML page: the
// SVG picture of WriteSVG, a tooltip on hover (id, lifetime, size, offset,
// kind, pool) and zoom (wheel; shift: time only, alt: address only), pan
// (drag) and reset (double click). The view is kept in the URL as
// #t=LO,HI&a=LO,HI (time and address ranges), so a zoomed view can be
// shared or opened directly. It loads nothing from the network.
func WriteHTML(w io.Writer, p *model.Problem, pl *model.Plan, opt Options) error {
	pic, err := newPicture(p, pl, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, htmlHead, esc(pic.title), htmlStyle)
	pic.writeSVG(bw, false)
	bw.WriteString(`<div id="tip"></div>` + "\n<script>\nconst B = ")
	if err := json.NewEncoder(bw).Encode(pic.data()); err != nil {
		return err
	}
	bw.WriteString(";\n" + htmlScript + "</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// data is what the page's tooltip shows, one array per buffer:
// [id, start, end, size, offset, kind, pool, defines the peak].
func (pic *picture) data() [][]any {
	pools := pic.p.PoolList()
	out := make([][]any, len(pic.p.Buffers))
	for i := range pic.p.Buffers {
		b, q := &pic.p.Buffers[i], pic.pl.Placements[i]
		out[i] = []any{b.ID, b.Start, b.End, q.Size, q.Offset, string(kindOf(b)), pools[q.Pool].Name, pic.crit[i]}
	}
	return out
}

const htmlHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s · optalloc plan</title>
<style>%s</style>
</head>
<body>
<div id="bar"><button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">&minus;</button><button id="zreset">reset</button>
<span class="help">wheel: zoom (shift: time only, alt: address only) · drag: pan · double-click: reset · hover a buffer for its details</span></div>
`

const htmlStyle = `body{font-family:sans-serif;margin:12px;color:#222}
#bar{margin-bottom:6px}#bar button{font-size:14px;min-width:2.2em;margin-right:4px}
.help{color:#666;font-size:12px;margin-left:8px}
svg.optalloc-plan{user-select:none}svg.plot{cursor:grab}svg.plot.dragging{cursor:grabbing}
.buf:hover{stroke:#000;stroke-width:2.5px}
#tip{position:fixed;display:none;pointer-events:none;background:#fffff4;border:1px solid #999;
border-radius:3px;padding:4px 7px;font:12px/1.4 monospace;white-space:pre;box-shadow:1px 1px 4px #0003}`

// htmlScript wires hover, zoom and pan. Every plot is an inner <svg> whose
// viewBox is the visible part of the data (in the pixels of the full view);
// the axes outside it are redrawn after each change with the same tick rule
// as the Go code.
const htmlScript = `(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const tip = document.getElementById("tip");
  function nice(lo, hi, n) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = 10 * mag;
    for (const m of [1, 2, 5, 10]) { if (m * mag >= raw) { step = m * mag; break; } }
    const out = [];
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) out.push(k * step);
    return out;
  }
  function compact(v) {
    const a = Math.abs(v);
    for (const [d, s] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e4, "k"]]) {
      if (a >= d) return String(+(v / (s === "k" ? 1e3 : d)).toPrecision(4)) + s;
    }
    return String(+v.toPrecision(6));
  }
  function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const plots = Array.from(document.querySelectorAll("svg.plot")).map(function (svg) {
    const W = svg.width.baseVal.value, H = svg.height.baseVal.value;
    return { svg: svg, panel: svg.parentNode, W: W, H: H, left: svg.x.baseVal.value,
      t0: +svg.dataset.t0, t1: +svg.dataset.t1, ymax: +svg.dataset.ymax,
      vb: { x: 0, y: 0, w: W, h: H } };
  });
  function clamp(p) {
    const v = p.vb;
    v.w = Math.min(v.w, p.W); v.h = Math.min(v.h, p.H);
    v.x = Math.max(0, Math.min(v.x, p.W - v.w)); v.y = Math.max(0, Math.min(v.y, p.H - v.h));
  }
  function redraw(p) {
    clamp(p);
    const v = p.vb;
    p.svg.setAttribute("viewBox", v.x + " " + v.y + " " + v.w + " " + v.h);
    const tlo = p.t0 + v.x / p.W * (p.t1 - p.t0), thi = p.t0 + (v.x + v.w) / p.W * (p.t1 - p.t0);
    const ahi = (p.H - v.y) / p.H * p.ymax, alo = (p.H - v.y - v.h) / p.H * p.ymax;
    const xg = p.panel.querySelector("g.xticks"), yg = p.panel.querySelector("g.yticks");
    xg.replaceChildren(); yg.replaceChildren();
    for (const t of nice(tlo, thi, 10)) {
      const x = p.left + (t - tlo) / (thi - tlo) * p.W;
      xg.appendChild(el("line", { class: "grid", x1: x, x2: x, y1: 0, y2: p.H }));
      xg.appendChild(el("text", { class: "tick", x: x, y: p.H + 16, "text-anchor": "middle" }, compact(t)));
    }
    for (const a of nice(alo, ahi, 6)) {
      const y = (ahi - a) / (ahi - alo) * p.H;
      yg.appendChild(el("line", { class: "grid", x1: p.left, x2: p.left + p.W, y1: y, y2: y }));
      yg.appendChild(el("text", { class: "tick", x: p.left - 6, y: y, dy: 4, "text-anchor": "end" }, compact(a)));
    }
    // Line labels at their lines, stacked 12 px apart from the bottom up
    // (stackLabels in svg.go).
    const lls = [...p.panel.querySelectorAll("text.ll")].map(t => ({ t, y: (ahi - +t.dataset.addr) / (ahi - alo) * p.H }));
    lls.sort((a, b) => b.y - a.y);
    let below = Infinity;
    for (const l of lls) {
      const ly = Math.min(l.y, below - 12);
      below = ly;
      l.t.setAttribute("y", ly);
      l.t.style.display = l.y < -1 || l.y > p.H + 1 ? "none" : "";
    }
  }
  function zoom(p, fx, fy, factor, axes) {
    const v = p.vb;
    if (axes !== "y") { const cx = v.x + fx * v.w; v.w *= factor; v.x = cx - fx * v.w; }
    if (axes !== "x") { const cy = v.y + fy * v.h; v.h *= factor; v.y = cy - fy * v.h; }
    redraw(p);
  }
  function reset(p) { p.vb = { x: 0, y: 0, w: p.W, h: p.H }; redraw(p); }
  // The view is kept in the URL: #t=LO,HI&a=LO,HI (time and address ranges).
  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    const t = (h.get("t") || "").split(",").map(Number), a = (h.get("a") || "").split(",").map(Number);
    for (const p of plots) {
      if (t.length === 2 && t[1] > t[0]) {
        p.vb.x = (t[0] - p.t0) / (p.t1 - p.t0) * p.W; p.vb.w = (t[1] - t[0]) / (p.t1 - p.t0) * p.W;
      }
      if (a.length === 2 && a[1] > a[0]) {
        p.vb.y = p.H - a[1] / p.ymax * p.H; p.vb.h = (a[1] - a[0]) / p.ymax * p.H;
      }
    }
  }
  function toHash(p) {
    const v = p.vb, full = v.x === 0 && v.y === 0 && v.w === p.W && v.h === p.H;
    const r = Math.round, s = p.t1 - p.t0;
    const hash = full ? "" : "#t=" + r(p.t0 + v.x / p.W * s) + "," + r(p.t0 + (v.x + v.w) / p.W * s) +
      "&a=" + r((p.H - v.y - v.h) / p.H * p.ymax) + "," + r((p.H - v.y) / p.H * p.ymax);
    try { history.replaceState(null, "", hash || location.pathname + location.search); } catch (e) { /* file: URLs may refuse */ }
  }
  fromHash();
  for (const p of plots) {
    const svg = p.svg;
    let drag = null;
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      zoom(p, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height,
        e.deltaY < 0 ? 0.8 : 1.25, e.shiftKey ? "x" : e.altKey ? "y" : "xy");
      toHash(p);
    }, { passive: false });
    svg.addEventListener("mousedown", function (e) {
      drag = { x: e.clientX, y: e.clientY, vx: p.vb.x, vy: p.vb.y };
      svg.classList.add("dragging"); tip.style.display = "none";
    });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      const r = svg.getBoundingClientRect();
      p.vb.x = drag.vx - (e.clientX - drag.x) / r.width * p.vb.w;
      p.vb.y = drag.vy - (e.clientY - drag.y) / r.height * p.vb.h;
      redraw(p);
    });
    window.addEventListener("mouseup", function () {
      if (drag) toHash(p);
      drag = null; svg.classList.remove("dragging");
    });
    svg.addEventListener("dblclick", function () { reset(p); toHash(p); });
    svg.addEventListener("mouseover", function (e) {
      if (drag || !e.target.classList.contains("buf")) return;
      const b = B[+e.target.dataset.i];
      tip.textContent = b[0] + "\nlifetime [" + b[1] + ", " + b[2] + ")\nsize     " + b[3] +
        "\noffset   " + b[4] + " (to " + (b[4] + b[3]) + ")\nkind     " + b[5] + "\npool     " + b[6] +
        (b[7] ? "\n\u2605 defines the peak" : "");
      tip.style.display = "block";
    });
    svg.addEventListener("mousemove", function (e) {
      // Beside the cursor, kept inside the window.
      const w = tip.offsetWidth, h = tip.offsetHeight;
      const x = e.clientX + 14 + w > window.innerWidth ? e.clientX - 14 - w : e.clientX + 14;
      const y = e.clientY + 14 + h > window.innerHeight ? e.clientY - 14 - h : e.clientY + 14;
      tip.style.left = Math.max(0, x) + "px"; tip.style.top = Math.max(0, y) + "px";
    });
    svg.addEventListener("mouseout", function (e) {
      if (e.target.classList.contains("buf")) tip.style.display = "none";
    });
    redraw(p);
  }
  function all(fn) { for (const p of plots) fn(p); if (plots.length) toHash(plots[0]); }
  document.getElementById("zin").onclick = function () { all(function (p) { zoom(p, 0.5, 0.5, 0.5, "xy"); }); };
  document.getElementById("zout").onclick = function () { all(function (p) { zoom(p, 0.5, 0.5, 2, "xy"); }); };
  document.getElementById("zreset").onclick = function () { all(reset); };
  document.body.dataset.rects = document.querySelectorAll("svg.plot rect.buf").length;
  document.body.dataset.ready = "true";
})();
`
