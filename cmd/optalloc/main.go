package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/model"
)

// command is one subcommand. Files register theirs in init.
type command struct {
	name    string
	args    string // synopsis of the positional arguments
	summary string
	long    string                  // more help, shown by "optalloc help NAME"
	flags   func(fs *pflag.FlagSet) // declares the flags
	run     func(ctx context.Context, env *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// env is what a command may touch: its streams and its parsed flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	flags          *pflag.FlagSet
	staged         []staged  // outputs written, renamed into place on success
	start          time.Time // when the process (or, in tests, run) started
	ctx            context.Context
	input          *optalloc.Input // the input read last (the front door's)
	tflite         *tfliteInput    // the .tflite input read, for its summary
}

// processStart is when the process started (package variables are set
// before main runs); --time-limit counts from it, so reading the input is
// part of the limit. Zero in tests, where run's own start is used.
var processStart time.Time

var initTime = time.Now()

// stopSignals are the signals that stop a command as Ctrl-C does: the best
// plan found so far is kept and written. SIGTERM and SIGHUP are what CI
// systems, batch schedulers and closed terminals send.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// exitError carries an exit code: 1 for infeasible / invalid / check failed,
// 2 for bad usage or bad input.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

func failure(format string, args ...any) error {
	return &exitError{code: 1, msg: fmt.Sprintf(format, args...)}
}

func main() {
	processStart = initTime
	// A write to a closed pipe (plan … | head) is an ordinary error that
	// the command returns, so that its temporary files are removed, not a
	// signal that ends the process on the spot.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	go func() {
		// After the first signal the default action is back: a second
		// one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the CLI and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	start := processStart
	if start.IsZero() {
		start = time.Now()
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name := args[0]
	if name == "help" {
		name = args[1]
		args = []string{name, "--help"}
	}
	if name == "--version" || name == "version" {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "optalloc: unknown command %q; run 'optalloc help'\n", name)
		return 2
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	c.flags(fs)
	dimFlag(c, fs)
	scratchFlags(c, fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			commandUsage(stdout, c, fs)
			return 0
		}
		fmt.Fprintf(stderr, "optalloc %s: %v%s (see 'optalloc help %s')\n", name, err, didYouMean(fs, err), name)
		return 2
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, flags: fs, start: start, ctx: ctx}
	err := guardFiles(e, fs.Args())
	if err == nil {
		err = c.run(ctx, e, fs.Args())
	}
	if err == nil {
		err = e.commit()
	} else {
		e.abort()
	}
	if err == nil {
		return 0
	}
	var ie *model.InputError
	var xe *exitError
	switch {
	case errors.As(err, &ie):
		fmt.Fprintln(stderr, oneLine(ie.Error()))
		return 2
	case errors.As(err, &xe):
		if xe.msg != "" {
			fmt.Fprintf(stderr, "optalloc %s: %s\n", name, oneLine(xe.msg))
		}
		return xe.code
	default:
		fmt.Fprintf(stderr, "optalloc %s: %s\n", name, oneLine(err.Error()))
		return 1
	}
}

// oneLine keeps an error message on one line: a control character from the
// input (a carriage return in an operator's name) is written \xNN.
func oneLine(msg string) string {
	if !strings.ContainsFunc(msg, isControl) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func usage(w io.Writer) {
	fmt.Fprintln(w, `optalloc plans the memory of a neural network offline: every buffer gets an
offset so that buffers alive at the same time never share bytes, with the
smallest peak it can find and, where it can, a proof of optimality.

Usage: optalloc COMMAND [arguments] [flags]

Commands:`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-8s %s\n", "version", "print the version (also --version)")
	fmt.Fprintln(w, `
Inputs: MiniMalloc CSV (.csv), JSON problem (.json), model graph (.graph.json),
TFLite model (.tflite), ONNX model (.onnx; --dim fixes symbolic dimensions),
allocation trace (.events); "-" reads standard input (every format, sniffed).
Exit codes: 0 success; 1 infeasible, invalid plan or failed check;
2 bad usage or bad input (one line "file:line: what is wrong").
Run 'optalloc help COMMAND' for the flags of a command.`)
}

func commandUsage(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: optalloc %s %s [flags]\n\n%s\n", c.name, c.args, c.summary)
	if c.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.long))
	}
	fmt.Fprint(w, flagUsages(fs))
}

// Version is the optalloc version printed by "optalloc version" and stored
// in baselines.
var Version = "0.1.0-dev"
