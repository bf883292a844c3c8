#!/usr/bin/env bash
# scripts/conv_ab.py with one build as both sides on LeNet-5's conv1: a line
# per point with its ratio (plain and packed), each side's ratio to oneDNN-any
# and the kernel of each side.
#   conv_ab_test.sh CONV_AB_PY DLK_PERF LIB_DIR
set -euo pipefail

out=$(/usr/bin/python3 "$1" --perf "$2" --rounds 2 "$3" "$3" -- --threads 1 --sets lenet5 \
  --layers conv1 --passes fwd --peers any --min-samples 1 --min-seconds 0.01)
echo "$out"
[ "$(echo "$out" | wc -l)" -eq 1 ]
ratio='[0-9]+\.[0-9]{2}'
echo "$out" | grep -Eq "^f32 nchw fwd lenet5 conv1 n=64 t=1  ${ratio}x  pk ${ratio}x  x any ${ratio} -> ${ratio}  (.+) -> \1\$"
