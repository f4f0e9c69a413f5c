#!/usr/bin/env bash
# Builds tflm_multi (several models on one TFLite Micro MicroAllocator) against the TFLM library of
# ../../../shared/tflm (read by path, never copied into this repository):
#
#   tools/tflm_multi/build.sh [OUTDIR] ->  OUTDIR/lib/libtflm.a (via shared/tflm/build.sh, if missing)
#                                          and OUTDIR/bin/tflm_multi
#
# SHARED (default: ../../../shared/tflm from this script, i.e. /work/shared/tflm beside the repo)
# names the folder with build.sh, tflm-src.tar.xz and tflm_run.cc. The library build takes about
# 7 minutes on 2 cores (measured: 6 min 52 s, JOBS=2); the driver alone about 20 s. Reusing an
# OUTDIR where shared/tflm/build.sh already ran builds the driver only.
set -euo pipefail
[ $# -le 1 ] || { echo "usage: $0 [OUTDIR]  (default: tools/tflm_multi/out)" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHARED=${SHARED:-$HERE/../../../shared/tflm}
OUT=${1:-$HERE/out}
[ -f "$SHARED/build.sh" ] && [ -f "$SHARED/tflm_run.cc" ] || { echo "build.sh: no TFLM sources in $SHARED (set SHARED)" >&2; exit 1; }
if [ ! -f "$OUT/lib/libtflm.a" ]; then
  "$SHARED/build.sh" "$OUT"
fi
INC="-I$OUT/src/tflm -I$OUT/src/deps -I$OUT/src/deps/gemmlowp -I$OUT/src/deps/flatbuffers/include -I$OUT/src/deps/kissfft -I$OUT/src/deps/ruy -I$SHARED"
FLAGS="-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -O2 -fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_USE_CTIME -Wall -Wno-unused-parameter -Wno-sign-compare -Wno-unused-function"
mkdir -p "$OUT/bin"
# shellcheck disable=SC2086
g++ $FLAGS $INC -pthread -o "$OUT/bin/tflm_multi" "$HERE/tflm_multi.cc" "$OUT/lib/libtflm.a" -lm -Wl,--gc-sections
echo "build.sh: built $OUT/bin/tflm_multi" >&2
