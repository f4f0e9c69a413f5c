#!/usr/bin/env bash
# Regenerates internal/schema from the TFLite schema with Debian's flatc 2.0.8
# (apt-get install flatbuffers-compiler). Run from this folder:
#   ./gen.sh [path/to/schema.fbs]     (default: ../../../shared/models/tflite/schema.fbs)
#
# Two edits before and after flatc, both mechanical:
#  - flatc 2.0.8 rejects the "(deprecated)" attribute on an enum value and a
#    union member of the current schema, so every "(deprecated)" attribute is
#    removed before generation. Removing it from fields only makes flatc emit
#    accessors for them, so an unpacked-and-repacked model keeps their values
#    instead of dropping them.
#  - flatc's Go object API ignores "force_align": Buffer.data and
#    CustomQuantization.custom must start on a 16-byte boundary and the
#    sparsity vectors on a 4-byte one (TFLite's converter writes them so, and
#    kernels read weights in place). Their Pack methods are rewritten to call
#    createAlignedBytes / StartVector with that alignment (align.go).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
schema=${1:-$here/../../../shared/models/tflite/schema.fbs}
flatc --version | grep -q '2.0.8' || { echo "gen.sh: want flatc 2.0.8 (Debian's flatbuffers-compiler)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's/ *(deprecated)//' "$schema" > "$tmp/schema.fbs"
flatc --go --gen-object-api --go-namespace schema -o "$tmp/out" "$tmp/schema.fbs"
out=$here/internal/schema
find "$out" -name '*.go' ! -name 'align.go' ! -name 'doc.go' -delete
cp "$tmp/out/schema/"*.go "$out/"
sed -i 's/builder.CreateByteString(t.Data)/createAlignedBytes(builder, t.Data, 16)/' "$out/Buffer.go"
sed -i 's/builder.CreateByteString(t.Custom)/createAlignedBytes(builder, t.Custom, 16)/' "$out/CustomQuantization.go"
sed -i 's/builder.CreateByteString(t.Values)/createAlignedBytes(builder, t.Values, 4)/' "$out/Uint8Vector.go"
sed -i 's/builder.StartVector(2, numElems, 2)/builder.StartVector(2, numElems, 4)/' "$out/Uint16Vector.go"
for f in Buffer CustomQuantization Uint8Vector; do grep -q createAlignedBytes "$out/$f.go"; done
grep -q 'StartVector(2, numElems, 4)' "$out/Uint16Vector.go"
gofmt -w "$out"
