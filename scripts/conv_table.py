#!/usr/bin/env python3
"""Markdown table of `dlk-perf conv --json` runs, one row per point.

    build/release/perf/dlk-perf conv --json ... > run1.json   (and run2.json, ...)
    build/release/perf/dlk-perf conv --json --onednn-max-isa avx512_core_bf16 ... > capped.json
    python3 scripts/conv_table.py run1.json [run2.json ...] [capped.json ...]
    python3 scripts/conv_table.py --summary run1.json ...

--summary: one row per (dtype, pass, batch, threads, kernel: 3x3 / 1x1 /
other) with the range (min-max) of each figure over the layers.

A row is (dtype, layer, batch, pass, threads), the dtype followed by "/nhwc"
for NHWC points: dlk's rate and % of the dtype's peak, then per oneDNN ISA that the runs dispatched to (`onednn.effective_isa`
of each run: uncapped, and capped by --onednn-max-isa) `x any` (oneDNN in its
blocked layouts: oneDNN time / dlk time, > 1: dlk faster), `pk x any` (the
same against dlk's forward or backward data with its weights packed once, as
oneDNN's are: dlk_conv2d_forward_packed, dlk_conv2d_backward_data_packed), `x any+ro` (with
the reorders an NCHW framework pays in training: data every call, weights once
per step) and `x plain` (oneDNN on the same plain memory as dlk: nchw/oihw or
nhwc/ohwi; `ratio_to_onednn_nchw` in dlk-perf/conv/3). Every ratio is one
run's: dlk and oneDNN interleaved in the same process. Given several runs of a
point, each figure is the median over them (on a busy machine one run's point
can halve). Only the standard library: any python3 runs it.
"""
import json
import statistics
import sys

PASS_ORDER = {"fwd": 0, "bwd_data": 1, "bwd_weights": 2}
RATIOS = (("x any", "ratio_to_onednn_any"),
          ("pk x any", "packed_ratio_to_onednn_any"),
          ("x any+ro", "ratio_to_onednn_any_with_reorders"),
          ("x plain", "ratio_to_onednn_plain"))
# dlk-perf/conv/3 named the plain form after its only layout.
OLD_KEYS = {"ratio_to_onednn_plain": "ratio_to_onednn_nchw"}


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def kernel_of(shape):
    """'64>64 56x56 3x3/1' -> '3x3' (conv1's 7x7 is 'other')."""
    kernel = shape.split()[2].split("/")[0]
    return kernel if kernel in ("3x3", "1x1") else "other"


def span(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else (fmt % lo) + "-" + (fmt % hi)


def main(paths, summary=False):
    points = {}  # key -> {"dlk": [...], "peak": [...], isa: {ratio key: [...]}}
    order, isas = [], []
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        if not run["schema"].startswith("dlk-perf/conv/"):
            sys.exit("%s: not a dlk-perf conv document" % path)
        onednn = run.get("onednn") or {}
        isa = onednn.get("effective_isa", "")
        if isa not in isas:
            isas.append(isa)
        for p in run["points"]:
            dtype = p["dtype"] + ("/nhwc" if p.get("format") == "nhwc" else "")
            key = (dtype, p["set"], p["layer"], p["batch"], p["pass"], p["threads"], p["shape"])
            if key not in points:
                points[key] = {"dlk": [], "peak": []}
                order.append(key)
            entry = points[key]
            entry["dlk"].append(p["dlk_flops_per_second"])
            entry["peak"].append(p["percent_of_peak"])
            ratios = entry.setdefault(isa, {})
            for _, name in RATIOS:
                ratios.setdefault(name, []).append(p.get(name, p.get(OLD_KEYS.get(name, name))))
    # A column group per ISA, uncapped (AMX) first; an ISA whose runs never
    # timed a ratio gets no columns.
    groups = []
    for isa in isas:
        names = [n for label, n in RATIOS
                 if any(median_or_none(points[k].get(isa, {}).get(n, [])) is not None for k in order)]
        if names:
            groups.append((isa, names))
    label = dict((n, l) for l, n in RATIOS)
    if summary:
        print_summary(points, order, groups, label)
        return
    print_header(["dtype", "layer", "n", "pass", "threads", "c>k hxw kxk/s", "dlk G/s (% peak)"],
                 6, groups, label)
    # dtype, threads, batch, then layers as the runs met them, passes in order.
    dtypes = [k[0] for k in order]
    layers = [k[1:3] for k in order]
    order.sort(key=lambda k: (dtypes.index(k[0]), k[5], k[3], layers.index(k[1:3]), PASS_ORDER.get(k[4], 9)))
    for key in order:
        dtype, layer_set, layer, batch, pass_name, threads, shape = key
        entry = points[key]
        cells = [dtype, layer_set + " " + layer, str(batch), pass_name, str(threads), shape,
                 "%.0f (%.0f)" % (median_or_none(entry["dlk"]) / 1e9, median_or_none(entry["peak"]))]
        for isa, names in groups:
            for n in names:
                value = median_or_none(entry.get(isa, {}).get(n, []))
                cells.append("-" if value is None else "%.2f" % value)
        print("| " + " | ".join(cells) + " |")


def print_header(head, text_columns, groups, label):
    """A markdown table head: `head`, then a ratio column per peer name of each ISA group;
    the first `text_columns` left-aligned, the numbers right-aligned."""
    for isa, names in groups:
        suffix = " (%s)" % isa if len(groups) > 1 else ""
        head = head + [label[n] + suffix for n in names]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i < text_columns else "---:" for i in range(len(head))) + "|")


def print_summary(points, order, groups, label):
    rows, row_order = {}, []
    for key in order:
        dtype, _, _, batch, pass_name, threads, shape = key
        row = (dtype, pass_name, batch, threads, kernel_of(shape))
        if row not in rows:
            rows[row] = []
            row_order.append(row)
        rows[row].append(points[key])
    print_header(["dtype", "pass", "n", "threads", "kernel", "layers", "% peak"], 5, groups, label)
    kernels = {"3x3": 0, "1x1": 1, "other": 2}
    dtypes = [r[0] for r in row_order]
    row_order.sort(key=lambda r: (dtypes.index(r[0]), r[3], r[2], kernels[r[4]], PASS_ORDER.get(r[1], 9)))
    for row in row_order:
        entries = rows[row]
        cells = [row[0], row[1], str(row[2]), str(row[3]), row[4], str(len(entries)),
                 span([median_or_none(e["peak"]) for e in entries], "%.0f")]
        for isa, names in groups:
            for n in names:
                cells.append(span([median_or_none(e.get(isa, {}).get(n, [])) for e in entries], "%.2f"))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    args = sys.argv[1:]
    summary = "--summary" in args
    args = [a for a in args if a != "--summary"]
    if not args:
        sys.exit("usage: conv_table.py [--summary] CONV_JSON [CONV_JSON ...]")
    main(args, summary)
