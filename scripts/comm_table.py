#!/usr/bin/env python3
"""Markdown table of `dlk-perf comm --json` runs against the wire time.

    scripts/netbed.sh -n 2 -r 1gbit -- build/release/perf/dlk-perf comm -b 64M -e 64M --json > run1.json
    python3 scripts/comm_table.py --rate 1e9 run1.json [run2.json ...]

One row per (size, algorithm): the median over the runs of each run's time (itself the
median of the slowest rank per call), the most bytes a rank sent per call, the wire
time of those bytes at --rate bits per second (omit --rate for shared memory), time /
wire time, and MPI_Allreduce's time / this time taken within each run, then the median
over runs. Where the runs report phases (dlk-perf comm --json since the encode_seconds
field), also the codec's time (encode + decode of the slowest rank) and what bounds the
call: "codec" when the codec's time passes the wire time, "wire" when the call takes less
than 1.3x the wire time, else "CPU" (neither: MPI's and TCP's copies, the emulated links
and the other ranks on the same cores, the load). Text before the
JSON (netbed's or uptime's lines) is skipped. Only the standard library: any python3 runs it.

With --rate, the wire time is that of the seed's cost model ("model bytes", P ranks, N bytes
of gradient): ring, native and MPI_Allreduce 2 N (P-1)/P per rank; ps 2 N (P-1) through the
server's link, its reduce and its broadcast one after the other; the compressed algorithms
what they sent (the two-phase codecs 2 (P-1)/P of the compressed gradient, topk its (P-1)
messages of k pairs, which grow with P).
"""
import argparse
import json
import statistics


def load(path):
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


def model_bytes(algorithm, n, p, sent):
    """The bytes the seed's model puts on the busiest link, one direction after the other."""
    if algorithm in ("MPI_Allreduce", "native", "ring"):
        return 2 * n * (p - 1) // p
    if algorithm == "ps":
        return 2 * n * (p - 1)
    return sent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, help="link rate in bits per second")
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    rows, order = {}, []
    for path in args.runs:
        run = load(path)
        peer = {p["bytes"]: p["seconds"] for p in run["points"] if p["algorithm"] == "MPI_Allreduce"}
        for p in run["points"]:
            key = (p["bytes"], p["algorithm"])
            if key not in rows:
                rows[key] = {"seconds": [], "wire": [], "x_mpi": [], "codec": [],
                             "ranks": run.get("ranks", 2)}
                order.append(key)
            rows[key]["seconds"].append(p["seconds"])
            rows[key]["wire"].append(p["wire_bytes_sent"])
            if "encode_seconds" in p and p["algorithm"] != "MPI_Allreduce":
                rows[key]["codec"].append(p["encode_seconds"] + p["decode_seconds"])
            if p["bytes"] in peer:
                rows[key]["x_mpi"].append(peer[p["bytes"]] / p["seconds"])
    phases = any(r["codec"] for r in rows.values())
    wire_head = " model bytes | wire time | time / wire |" if args.rate else ""
    phase_head = " codec | bound |" if phases and args.rate else " codec |" if phases else ""
    print("| bytes | algorithm | time per call | wire bytes / rank |%s x MPI_Allreduce |%s runs |"
          % (wire_head, phase_head))
    print("|---:|---|---:|---:|%s---:|%s---:|" % ("---:|---:|---:|" if args.rate else "",
                                                  "---:|---|" if phases and args.rate else
                                                  "---:|" if phases else ""))
    for key in order:
        r = rows[key]
        seconds = statistics.median(r["seconds"])
        wire = max(r["wire"])
        cells = ["%d" % key[0], key[1], "%.1f ms" % (seconds * 1e3), "%d" % wire]
        if args.rate:
            model = model_bytes(key[1], key[0], r["ranks"], wire)
            wire_seconds = model * 8 / args.rate
            cells += ["%d" % model, "%.1f ms" % (wire_seconds * 1e3),
                      "%.2f" % (seconds / wire_seconds)]
        cells += ["%.2f" % statistics.median(r["x_mpi"]) if r["x_mpi"] else "-"]
        if phases:
            codec = statistics.median(r["codec"]) if r["codec"] else None
            cells += ["%.1f ms" % (codec * 1e3) if codec is not None else "-"]
            if args.rate:
                cells += ["-" if codec is None else "codec" if codec > wire_seconds else
                          "wire" if seconds < 1.3 * wire_seconds else "CPU"]
        cells += ["%d" % len(r["seconds"])]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
