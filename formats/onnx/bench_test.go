package onnx

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/optalloc/optalloc/formats"
	pb "github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
)

// writeBigModel streams a chain of layers MatMul(w_i) -> Relu whose
// float weights (side × side each) are initializers holding raw data, to
// path, without holding the weights in memory. It returns the file size.
func writeBigModel(path string, layers, side int) (int64, error) {
	g := &pb.GraphProto{Name: proto.String("big"),
		Input:  []*pb.ValueInfoProto{tinfo("x", TypeFloat, 1, side)},
		Output: []*pb.ValueInfoProto{untyped(fmt.Sprintf("r%d", layers-1), TypeFloat)}}
	prev := "x"
	for i := range layers {
		m, r := fmt.Sprintf("m%d", i), fmt.Sprintf("r%d", i)
		g.Node = append(g.Node, op("MatMul", []string{prev, fmt.Sprintf("w%d", i)}, []string{m}), op("Relu", []string{m}, []string{r}))
		prev = r
	}
	small, err := proto.Marshal(g)
	if err != nil {
		return 0, err
	}
	raw := 4 * side * side
	heads := make([][]byte, layers)
	total := len(small)
	for i := range heads {
		h, err := proto.Marshal(&pb.TensorProto{Name: proto.String(fmt.Sprintf("w%d", i)), DataType: proto.Int32(TypeFloat), Dims: []int64{int64(side), int64(side)}})
		if err != nil {
			return 0, err
		}
		h = protowire.AppendTag(h, 9, protowire.BytesType)
		h = protowire.AppendVarint(h, uint64(raw))
		heads[i] = h
		body := len(h) + raw
		total += protowire.SizeTag(5) + protowire.SizeVarint(uint64(body)) + body
	}
	head, err := proto.Marshal(&pb.ModelProto{IrVersion: proto.Int64(8),
		OpsetImport: []*pb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}})
	if err != nil {
		return 0, err
	}
	head = protowire.AppendTag(head, 7, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(total))
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(head)
	w.Write(small)
	zeros := make([]byte, 1<<20)
	for _, h := range heads {
		var tag []byte
		tag = protowire.AppendTag(tag, 5, protowire.BytesType)
		tag = protowire.AppendVarint(tag, uint64(len(h)+raw))
		w.Write(tag)
		w.Write(h)
		for left := raw; left > 0; left -= min(left, len(zeros)) {
			w.Write(zeros[:min(left, len(zeros))])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// TestHelperLoadRSS is run by BenchmarkLoad500MB in a fresh process: it
// loads the model named by $ONNX_RSS_FILE ($ONNX_RSS_MODE "load": through
// formats.Load; "unmarshal": the whole file read and proto.Unmarshal'ed,
// for comparison) and prints the process's peak resident memory.
func TestHelperLoadRSS(t *testing.T) {
	path := os.Getenv("ONNX_RSS_FILE")
	if path == "" {
		t.Skip("run by BenchmarkLoad500MB")
	}
	switch os.Getenv("ONNX_RSS_MODE") {
	case "unmarshal":
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m pb.ModelProto
		if err := proto.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("nodes=%d\n", len(m.GetGraph().GetNode()))
	default:
		p, err := formats.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("buffers=%d\n", len(p.Buffers))
	}
	fmt.Printf("VmHWM_kB=%d\n", status("VmHWM:"))
	fmt.Printf("RssAnon_kB=%d\n", status("RssAnon:"))
}

// status reads a memory figure (kB) from /proc/self/status: VmHWM is the
// peak resident set, RssAnon the resident heap and stacks (not file
// pages); 0 when unavailable.
func status(key string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// BenchmarkLoad500MB writes a 500 MB model (95 layers of 1152×1152 float
// weights) in a temporary folder and loads it through formats.Load in a
// fresh process, reporting that process's peak resident memory against
// the file size (rss/file must stay below 1.5), and the same for a plain
// read + proto.Unmarshal of the whole model.
func BenchmarkLoad500MB(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc to read the peak resident memory")
	}
	path := filepath.Join(b.TempDir(), "big.onnx")
	size, err := writeBigModel(path, 95, 1152)
	if err != nil {
		b.Fatal(err)
	}
	run := func(mode string) (int64, int64) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLoadRSS$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ONNX_RSS_FILE="+path, "ONNX_RSS_MODE="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s: %v\n%s", mode, err, out)
		}
		var hwm, anon int64
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM_kB="); ok {
				hwm, _ = strconv.ParseInt(rest, 10, 64)
			}
			if rest, ok := strings.CutPrefix(line, "RssAnon_kB="); ok {
				anon, _ = strconv.ParseInt(rest, 10, 64)
			}
		}
		return hwm * 1024, anon * 1024
	}
	var rss, anon, plain int64
	for b.Loop() {
		rss, anon = run("load")
	}
	b.StopTimer()
	plain, _ = run("unmarshal")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(rss)/1e6, "rss-MB")
	b.ReportMetric(float64(anon)/1e6, "anon-MB")
	b.ReportMetric(float64(rss)/float64(size), "rss/file")
	b.ReportMetric(float64(plain)/float64(size), "unmarshal-rss/file")
	if float64(rss) >= 1.5*float64(size) {
		b.Errorf("peak resident memory %d bytes is not below 1.5 × the file's %d", rss, size)
	}
}

// BenchmarkDecode reads and plans-ready a model: Silero VAD (2.3 MB,
// nested If nodes) and a synthetic 4 MB chain.
func BenchmarkDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "chain4MB.onnx")
	if _, err := writeBigModel(path, 16, 256); err != nil {
		b.Fatal(err)
	}
	inputs := map[string]string{"synthetic-4MB": path}
	if _, err := os.Stat(silero); err == nil {
		inputs["silero_vad_v5"] = silero
	}
	for name, p := range inputs {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				m, err := ReadFile(p)
				if err != nil {
					b.Fatal(err)
				}
				dims := sileroDims
				if name != "silero_vad_v5" {
					dims = nil
				}
				if _, err := m.Arena(Options{Dims: dims}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
