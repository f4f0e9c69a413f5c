package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/optalloc/optalloc/solve"
)

func init() { progressReporter = newProgress }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Redraw intervals: on a terminal the line is redrawn often (its elapsed time
// moves); otherwise a plain line is printed every plainEvery.
var (
	ttyEvery   = 250 * time.Millisecond
	plainEvery = 5 * time.Second
)

// progress shows solve.Progress reports on stderr.
type progress struct {
	w     io.Writer
	tty   bool
	start time.Time

	mu      sync.Mutex
	last    solve.Progress
	have    bool // a report arrived
	stopped bool // finish was called: reports are ignored
	width   int  // length of the line drawn last (tty mode)
	stop    chan struct{}
	done    chan struct{}
}

func newProgress(e *env) (func(solve.Progress), func()) {
	tty := isTerminal(e.stderr)
	report, done := startProgress(e.stderr, tty, time.Now())
	if tty {
		// The updating line gives way to any other output on stderr (the
		// summary line, a warning): it is cleared and stops first.
		e.stderr = &yieldWriter{w: e.stderr, done: done}
	}
	return report, done
}

// yieldWriter stops the progress display before its first write.
type yieldWriter struct {
	w    io.Writer
	done func()
}

func (y *yieldWriter) Write(p []byte) (int, error) {
	y.done()
	return y.w.Write(p)
}

// startProgress starts the display on w; tty selects the updating line.
func startProgress(w io.Writer, tty bool, start time.Time) (func(solve.Progress), func()) {
	pr := &progress{w: w, tty: tty, start: start, stop: make(chan struct{}), done: make(chan struct{})}
	every := plainEvery
	if tty {
		every = ttyEvery
	}
	go pr.loop(every)
	var once sync.Once
	return pr.report, func() { once.Do(pr.finish) }
}

func (pr *progress) report(p solve.Progress) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.stopped {
		return
	}
	pr.last, pr.have = p, true
	if pr.tty {
		pr.draw()
	}
}

func (pr *progress) loop(every time.Duration) {
	defer close(pr.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-pr.stop:
			return
		case <-t.C:
			pr.mu.Lock()
			if pr.tty {
				pr.draw()
			} else if pr.have {
				fmt.Fprintln(pr.w, pr.line())
			}
			pr.mu.Unlock()
		}
	}
}

// draw rewrites the terminal line (caller holds mu).
func (pr *progress) draw() {
	s := pr.line()
	pad := ""
	if n := pr.width - len(s); n > 0 {
		pad = fmt.Sprintf("%*s", n, "")
	}
	fmt.Fprint(pr.w, "\r"+s+pad)
	pr.width = len(s) + len(pad)
}

// line formats the latest report: elapsed, best peak, lower bound, gap and
// search speed.
func (pr *progress) line() string {
	el := time.Since(pr.start)
	s := fmt.Sprintf("%6.1fs", el.Seconds())
	if !pr.have {
		return s + " planning..."
	}
	p := pr.last
	s += fmt.Sprintf(" peak=%d lower_bound=%d", p.Peak, p.LowerBound)
	if p.LowerBound > 0 {
		s += fmt.Sprintf(" gap=%.2f%%", float64(p.Peak-p.LowerBound)/float64(p.LowerBound)*100)
	}
	if p.Nodes > 0 && el > 0 {
		s += " nodes/s=" + strconv.FormatFloat(float64(p.Nodes)/el.Seconds(), 'f', 0, 64)
	}
	if p.Phase != "" {
		s += " (" + p.Phase + ")"
	}
	return s
}

func (pr *progress) finish() {
	close(pr.stop)
	<-pr.done
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.stopped = true
	if pr.tty && pr.width > 0 {
		// Clear the line: the summary line comes next.
		fmt.Fprintf(pr.w, "\r%*s\r", pr.width, "")
	}
}
