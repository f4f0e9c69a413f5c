#!/usr/bin/env bash
# Builds MiniMalloc (github.com/google/minimalloc) at -O3 for benchmarks/cmd/decide,
# against Debian's abseil, outside the repository:
#   benchmarks/cmd/decide/build-minimalloc.sh SRC BUILD
# SRC is a MiniMalloc checkout (it is edited in place: copy it first); the binary is BUILD/minimalloc.
# Debian bookworm's abseil (libabsl-dev 20220623) has no absl/log: a three-header stand-in replaces it
# (LOG writes to stderr, DLOG compiles away as in NDEBUG builds); the solver's sources are untouched.
set -euo pipefail
src=$(cd "$1" && pwd); build=$2
for p in cmake g++ libabsl-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || { echo "build-minimalloc: install $p (apt-get install -y cmake g++ libabsl-dev)" >&2; exit 2; }
done
mkdir -p "$src/shim/absl/log"
cat > "$src/shim/absl/log/log.h" <<'H'
#pragma once
#include <iostream>
#define LOG(sev) std::cerr << #sev << ": "
#define DLOG(sev) if (true) {} else std::cerr
H
cat > "$src/shim/absl/log/globals.h" <<'H'
#pragma once
#include "absl/base/log_severity.h"
namespace absl { inline void SetStderrThreshold(absl::LogSeverityAtLeast) {} }
namespace absl { inline void EnableLogPrefix(bool) {} }
H
cat > "$src/shim/absl/log/initialize.h" <<'H'
#pragma once
namespace absl { inline void InitializeLog() {} }
H
# Debian's abseil instead of the (empty) submodules; the shim first on the include path; no log
# libraries; no Python bindings; abseil 20220623's string_view in the CSV reader.
sed -i -e 's|^add_subdirectory(external/abseil-cpp EXCLUDE_FROM_ALL)|find_package(absl REQUIRED)|' \
  -e '/^add_subdirectory(external\/googletest EXCLUDE_FROM_ALL)/d' \
  -e '/^ *absl::log$/d' -e '/^ *absl::log_initialize$/d' \
  -e 's/^if(NOT SKBUILD)/if(FALSE)/' "$src/CMakeLists.txt"
grep -q 'shim)' "$src/CMakeLists.txt" || sed -i '/^add_library(minimalloc_core/,/)/{/)/a\
target_include_directories(minimalloc_core BEFORE PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/shim)
}' "$src/CMakeLists.txt"
sed -i 's/for (const std::string_view& record : records)/for (const absl::string_view\& record : records)/' "$src/src/converter.cc"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" >/dev/null
cmake --build "$build" --target minimalloc -j 2 >/dev/null
echo "$build/minimalloc"
