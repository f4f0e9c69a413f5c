// Package viz draws a memory plan: time on x, address on y, one rectangle
// per buffer, coloured by pool, kind or buffer, with horizontal lines at the
// max-live lower bound and at the peak, and the buffers that define the peak
// outlined.
//
// WriteSVG writes a standalone SVG (every rectangle carries a <title>, so
// viewers show a tooltip). WriteHTML writes one self-contained HTML page
// (no external file, no network) holding the same SVG plus a little
// JavaScript: hover shows a buffer's id, lifetime, size and offset; the mouse
// wheel zooms (shift: time only, alt: address only), dragging pans and a
// double click resets.
//
// Every buffer is one <rect class="buf"> element with data-i set to its
// index in the problem, so a picture can be checked by counting them. The
// SVG is hand-built rather than drawn with gonum/plot: gonum/plot's SVG
// backend emits anonymous paths, with no per-element id, title or class to
// hover or count, and zooming would mean re-rendering in Go.
package viz
