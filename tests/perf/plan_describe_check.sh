#!/usr/bin/env bash
# dlk-perf plan's built-in dlk-train models against dlk-train's own description:
# for lenet5, vgg_small and wide, `dlk-train --describe` read as a model file
# must plan the same model (parameters, layers, gradients, FLOPs per sample,
# buckets) as the built-in of the same name.
#   plan_describe_check.sh DLK_TRAIN DLK_PERF
set -euo pipefail
train=$1; perf=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
plan=(plan --compute peak=1TFLOP/s,bandwidth=100GB/s --algorithms native --scaling 2 --quiet --json)
for model in lenet5 vgg_small wide; do
  "$train" --describe --model "$model" > "$dir/$model.json"
  "$perf" "${plan[@]}" --model "$dir/$model.json" > "$dir/from_file.json"
  "$perf" "${plan[@]}" --model "$model" > "$dir/builtin.json"
  /usr/bin/python3 - "$dir/from_file.json" "$dir/builtin.json" "$model" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("model", "buckets"):
    if a[key] != b[key]:
        sys.exit(f"{sys.argv[3]}: {key} differs: dlk-train --describe {a[key]} vs built-in {b[key]}")
print(f"{sys.argv[3]}: dlk-train --describe and the built-in plan the same model")
PY
done
