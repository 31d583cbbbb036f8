#!/usr/bin/env bash
# Span load + shuffles vs gathers for fields of an array of structs (docs/performance.md, Memory:
# interleaved groups). Generates a loop over 4,096 structs of F floats reading K fields per struct as
# either one span load and K shuffles, K gathers, or (K >= 4) rows of 4 floats transposed, compiles it
# with the bundled llc for a CPU, links the C driver with gcc and prints ns per struct (best of 15).
# Usage: run.sh [W CPU]...   ROWS=1 run.sh [W CPU]... : span vs rows over the strides of the row rule
# Needs the bundled LLVM unpacked in the javacpp cache (any earlier ./bin/bench or test run does it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
llc=$(ls -d "$HOME"/.javacpp/cache/llvm-*-linux-x86_64.jar/org/bytedeco/llvm/linux-x86_64 | head -1)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ln -s "$llc/libLLVM.so" "$tmp/libLLVM.so.20.1"
export LD_LIBRARY_PATH="$tmp:$llc"
configs=("$@"); [ ${#configs[@]} -eq 0 ] && configs=("8 haswell" "16 znver4")
for cfg in "${configs[@]}"; do
  set -- $cfg
  pairs=("2 1" "2 2" "3 1" "3 3" "4 1" "4 4" "8 1" "8 8" "12 1" "12 4" "16 1" "16 4"); variants="span gather"
  if [ -n "${ROWS:-}" ]; then pairs=("4 4" "5 4" "6 6" "7 7" "8 8" "12 12" "14 12" "16 16" "16 4"); variants="span rows"; fi
  for fk in "${pairs[@]}"; do
    set -- $cfg $fk
    line="W$1 $2 stride=$3 fields=$4 ns/struct"
    for v in $variants; do
      python3 "$here/span_vs_gather.py" "$1" "$3" "$4" "$v" > "$tmp/k.ll"
      "$llc/llc" -O3 -mcpu="$2" -filetype=obj "$tmp/k.ll" -o "$tmp/k.o"
      gcc -O2 "$here/driver.c" "$tmp/k.o" -o "$tmp/k"
      line="$line $v=$("$tmp/k" "$3")"
    done
    echo "$line"
  done
done
