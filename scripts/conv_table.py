#!/usr/bin/env python3
"""Markdown table of `dlk-perf conv --json` runs, one row per layer and batch.

    build/release/perf/dlk-perf conv --json ... > run1.json   (and run2.json, ...)
    python3 scripts/conv_table.py run1.json [run2.json ...]

Each pass gets dlk's rate and `x nchw` (oneDNN on plain nchw/oihw memory time /
dlk time); the forward pass also `x any` (oneDNN in its blocked layouts,
weights reordered untimed) and `x any+ro` (with its per-call src/dst
reorders). Given several runs of the same command, each figure is the median
of its values over the runs (on a VM whose second vCPU comes and goes, one
run's point can halve). Only the standard library: any python3 runs it.
"""
import json
import statistics
import sys

PASSES = ("fwd", "bwd_data", "bwd_weights")


def ratio(point, key):
    value = point.get(key)
    return "-" if value is None else "%.2f" % value


NUMBERS = ("dlk_flops_per_second", "percent_of_peak", "ratio_to_onednn_nchw",
           "ratio_to_onednn_any", "ratio_to_onednn_any_with_reorders")


def main(paths):
    rows, order = {}, []
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        for p in run["points"]:
            key = (p["dtype"], p["set"], p["layer"], p["batch"], p["shape"])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key].setdefault(p["pass"], []).append(p)
    for passes_of_row in rows.values():
        for q, runs in passes_of_row.items():
            merged = dict(runs[0])
            for name in NUMBERS:
                values = [r[name] for r in runs if r.get(name) is not None]
                merged[name] = statistics.median(values) if values else None
            passes_of_row[q] = merged
    passes = [q for q in PASSES if any(q in r for r in rows.values())]
    head = ["dtype", "layer", "n", "c>k hxw kxk/s"]
    for q in passes:
        head += [q + " G/s (% peak)", "x nchw"]
        if q == "fwd":
            head += ["x any", "x any+ro"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i < 4 else "---:" for i in range(len(head))) + "|")
    for key in order:
        dtype, layer_set, layer, batch, shape = key
        cells = [dtype, layer_set + " " + layer, str(batch), shape]
        for q in passes:
            p = rows[key].get(q)
            if p is None:
                cells += ["-", "-"] + (["-", "-"] if q == "fwd" else [])
                continue
            cells.append("%.0f (%.0f)" % (p["dlk_flops_per_second"] / 1e9, p["percent_of_peak"]))
            cells.append(ratio(p, "ratio_to_onednn_nchw"))
            if q == "fwd":
                cells += [ratio(p, "ratio_to_onednn_any"),
                          ratio(p, "ratio_to_onednn_any_with_reorders")]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: conv_table.py CONV_JSON [CONV_JSON ...]")
    main(sys.argv[1:])
