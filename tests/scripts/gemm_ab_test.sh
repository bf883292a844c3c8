#!/usr/bin/env bash
# scripts/gemm_ab.py with one build as both sides (the same file, loaded
# once): a line per shape with its ratio and range, f32, bf16 and int8.
#   gemm_ab_test.sh GEMM_AB_PY LIB_DIR
set -euo pipefail

for dtype in f32 bf16 int8; do
  out=$(/usr/bin/python3 "$1" --dtype "$dtype" --rounds 3 --seconds 0.01 "$2" "$2" \
    64 49 96 30 20 10)
  echo "$out"
  [ "$(echo "$out" | wc -l)" -eq 2 ]
  ratio='[0-9]+\.[0-9]{2}'
  echo "$out" | head -1 | grep -Eq "^$dtype 64x49x96 t=1  ${ratio}x  \[$ratio-$ratio\]$"
  echo "$out" | tail -1 | grep -Eq "^$dtype 30x20x10 t=1  "
done
