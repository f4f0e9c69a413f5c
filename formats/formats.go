package formats

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
)

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\ufeff")

// Reader turns a file into a problem. Front ends (the graph format) register
// theirs with Register.
type Reader func(r io.Reader, name string) (*model.Problem, error)

// format is a reader chosen by a file-name suffix.
type format struct {
	suffix string
	read   Reader
}

var registered []format

// Register makes Load use read for file names ending in suffix. Longer
// suffixes win (".graph.json" over ".json").
func Register(suffix string, read Reader) {
	registered = append(registered, format{suffix, read})
}

// sniffers are tried in order by LoadBytes before the built-in sniffing.
// sniffer is a reader chosen by the content of standard input.
type sniffer struct {
	sniff func(head []byte) bool
	read  Reader
}

var sniffers, jsonSniffers []sniffer

// RegisterJSONSniffer makes Load use read for a .json file that sniff
// recognises (ExecuTorch's specs), before the JSON problem reader.
func RegisterJSONSniffer(sniff func(head []byte) bool, read Reader) {
	jsonSniffers = append(jsonSniffers, sniffer{sniff, read})
}

// RegisterSniffer makes LoadBytes (standard input) use read for data that
// sniff recognises. Sniffers run in registration order, before the JSON
// and CSV defaults of LoadBytes.
func RegisterSniffer(sniff func(head []byte) bool, read Reader) {
	sniffers = append(sniffers, sniffer{sniff, read})
}

// Load reads a problem from a file chosen by its name: registered formats
// first (longest suffix), then ".json" (JSON problem), and CSV otherwise.
// The name "-" reads standard input and sniffs the format (see LoadBytes).
func Load(path string) (*model.Problem, error) {
	var r io.Reader
	name := path
	if path == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, &model.InputError{File: "<stdin>", Msg: err.Error()}
		}
		return LoadBytes(data, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot open: " + unwrapPathError(err)}
	}
	defer f.Close()
	r = f
	lower := strings.ToLower(filepath.Base(path))
	best := -1
	for i, f := range registered {
		if strings.HasSuffix(lower, f.suffix) && (best < 0 || len(f.suffix) > len(registered[best].suffix)) {
			best = i
		}
	}
	switch {
	case best >= 0:
		return registered[best].read(r, name)
	case strings.HasSuffix(lower, ".json"):
		if len(jsonSniffers) == 0 {
			return jsonfmt.Read(r, name)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, &model.InputError{File: name, Msg: "cannot read: " + unwrapPathError(err)}
		}
		for _, s := range jsonSniffers {
			if s.sniff(data) {
				return s.read(bytes.NewReader(data), name)
			}
		}
		return jsonfmt.Read(bytes.NewReader(data), name)
	default:
		return csv.Read(r, name)
	}
}

// LoadBytes reads a problem held in memory, sniffing the format: a
// registered sniffer first (TFLite, ONNX, allocation traces, model graphs), then
// a leading '{' is a JSON problem, anything else CSV.
func LoadBytes(data []byte, name string) (*model.Problem, error) {
	for _, s := range sniffers {
		if s.sniff(data) {
			return s.read(bytes.NewReader(data), name)
		}
	}
	t := bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if len(t) == 0 || t[0] != '{' {
		return csv.Read(bytes.NewReader(data), name)
	}
	return jsonfmt.Read(bytes.NewReader(data), name)
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
