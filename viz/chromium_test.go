package viz

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a headless browser, or skips the test. In CI (CI=true) a
// missing browser fails the test: .ci/run must install the Debian package
// "chromium".
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: .ci/run must 'apt-get install -y chromium'")
	}
	t.Skip("chromium not found: skipping the browser test (apt-get install -y chromium to run it)")
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM after the
// page's scripts ran.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--disable-extensions", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--dump-dom", url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium failed: %s", stderr.String())
	return string(out)
}

// TestHTMLInChromium opens the page in a real browser: its script must run
// to the end (it marks <body data-ready>), find one rectangle per buffer,
// and honour a zoom given in the URL by redrawing the axes.
func TestHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	rng := rand.New(rand.NewPCG(11, 12))
	p := randomProblem(rng, 40)
	pl := stacked(p)
	dir := t.TempDir()
	page := filepath.Join(dir, "plan.html")
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, p, pl, Options{}))
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))

	dom := dumpDOM(t, browser, "file://"+page)
	n := strconv.Itoa(len(p.Buffers))
	assert.Regexp(t, `<body[^>]*data-ready="true"`, dom, "the page's script did not finish")
	assert.Regexp(t, `<body[^>]*data-rects="`+n+`"`, dom, "the script sees one rectangle per buffer")
	assert.Equal(t, len(p.Buffers), strings.Count(dom, `<rect class="buf`), "rectangles in the DOM")

	// Zoom on the time range [10, 20] through the URL.
	dom = dumpDOM(t, browser, "file://"+page+"#t=10,20")
	require.Regexp(t, `<body[^>]*data-ready="true"`, dom)
	m := regexp.MustCompile(`<g class="xticks">(.*?)</g>`).FindStringSubmatch(dom)
	require.Len(t, m, 2)
	labels := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(m[1], -1)
	var got []string
	for _, l := range labels {
		got = append(got, l[1])
	}
	assert.Equal(t, []string{"10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20"}, got, "time axis after the zoom")
	vb := regexp.MustCompile(`<svg class="plot"[^>]*viewBox="([^"]*)"`).FindStringSubmatch(dom)
	require.Len(t, vb, 2)
	assert.NotEqual(t, "0 0 960 480", vb[1], "the plot's viewBox follows the zoom")
}

// interact is appended to a page under test: it hovers buffer 3, then
// zooms in with the wheel at the plot's centre, and records what it saw.
const interact = `<script>
(function () {
  const r = document.querySelector('rect.buf[data-i="3"]');
  const box = r.getBoundingClientRect();
  const at = { bubbles: true, clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
  r.dispatchEvent(new MouseEvent("mouseover", at));
  r.dispatchEvent(new MouseEvent("mousemove", at));
  const tip = document.getElementById("tip");
  document.body.dataset.tip = tip.style.display + "|" + tip.textContent.split("\n").join("/");
  const plot = document.querySelector("svg.plot");
  const pb = plot.getBoundingClientRect();
  plot.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, deltaY: -100,
    clientX: pb.left + pb.width / 2, clientY: pb.top + pb.height / 2 }));
  document.body.dataset.zoomed = plot.getAttribute("viewBox");
})();
</script>
`

// TestHTMLHoverAndWheelInChromium drives the page's handlers with
// synthetic events: the tooltip names the hovered buffer with its lifetime,
// size and offset, and a wheel step zooms in by 0.8 around the cursor.
func TestHTMLHoverAndWheelInChromium(t *testing.T) {
	browser := chromium(t)
	p, pl := example12()
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, p, pl, Options{}))
	page := strings.Replace(buf.String(), "</body>", interact+"</body>", 1)
	path := filepath.Join(t.TempDir(), "hover.html")
	require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
	dom := dumpDOM(t, browser, "file://"+path)
	require.Regexp(t, `<body[^>]*data-ready="true"`, dom)
	// b4 is buffer 3: [9, 21), 4 bytes at offset 4.
	assert.Contains(t, dom, `data-tip="block|b4/lifetime [9, 21)/size     4/offset   4 (to 8)/kind     activation/pool     default"`)
	m := regexp.MustCompile(`data-zoomed="([^"]*)"`).FindStringSubmatch(dom)
	require.Len(t, m, 2)
	var vb []float64
	for _, f := range strings.Fields(m[1]) {
		v, err := strconv.ParseFloat(f, 64)
		require.NoError(t, err)
		vb = append(vb, v)
	}
	require.Len(t, vb, 4)
	assert.InDelta(t, 960*0.8, vb[2], 1e-6, "width zoomed by 0.8")
	assert.InDelta(t, 480*0.8, vb[3], 1e-6, "height zoomed by 0.8")
	assert.InDelta(t, 960*0.1, vb[0], 1, "centred on the cursor")
}
