#!/usr/bin/env bash
# Regenerates internal/onnxpb from onnx.proto with protoc (Debian's
# protobuf-compiler) and protoc-gen-go at the google.golang.org/protobuf
# version of go.mod. The default onnx.proto is the one Debian's python3-onnx
# (ONNX 1.12.0) installs. Run from this folder:
#   apt-get install protobuf-compiler python3-onnx
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@$(go list -m -f '{{.Version}}' google.golang.org/protobuf)
#   ./gen.sh [path/to/onnx.proto]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto=${1:-/usr/lib/python3/dist-packages/onnx/onnx.proto}
want=$(cd "$here" && go list -m -f '{{.Version}}' google.golang.org/protobuf)
have=$(protoc-gen-go --version | awk '{print $2}')
[ "$have" = "$want" ] || { echo "gen.sh: protoc-gen-go is $have, go.mod has $want" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$proto" "$tmp/onnx.proto"
pkg=github.com/optalloc/optalloc/formats/onnx/internal/onnxpb
protoc -I "$tmp" --go_out="$tmp" --go_opt=paths=source_relative \
	--go_opt=Monnx.proto="$pkg;onnxpb" "$tmp/onnx.proto"
cp "$tmp/onnx.pb.go" "$here/internal/onnxpb/onnx.pb.go"
