#!/usr/bin/env bash
# What an all-reduce running at the same time costs a GEMM on this machine's cores.
#
#   scripts/comm_gemm_contention.sh [-r rate] [-a algorithms] [-R rounds] [-o dir] [-p dlk-perf]
#     -r  link rate for scripts/netbed.sh (default 1gbit; needs root)
#     -a  comma-separated all-reduce algorithms of dlk-perf comm (default MPI_Allreduce,int8)
#     -R  rounds (default 3); -o output folder (default a new temporary one)
#     -p  the dlk-perf binary (default build/release/perf/dlk-perf)
#
# Each round runs dlk's f32 GEMM (dlk-perf gemm, squares of 64 to 1024, 2 threads) alone,
# then beside a 2-rank all-reduce loop of a 64 MiB gradient over the emulated link, one
# algorithm after the other (the loop starts first and outlasts the GEMM). Rounds interleave
# the cases, so that a change of load hits all of them. Then it prints, per size, the median
# GFLOP/s of each case and its ratio to alone, and per algorithm the CPU the all-reduce's
# ranks used (dlk-perf comm's cpu_seconds over seconds: cores kept busy, both ranks).
# Both ranks and their emulated links run on the same cores as the GEMM (a real host runs
# one rank beside its compute). Run it under scripts/quiet.sh where the machine is shared.
set -euo pipefail

rate=1gbit
algorithms=MPI_Allreduce,int8
rounds=3
out=""
perf=build/release/perf/dlk-perf
while getopts "r:a:R:o:p:h" opt; do
  case $opt in
    r) rate=$OPTARG ;;
    a) algorithms=$OPTARG ;;
    R) rounds=$OPTARG ;;
    o) out=$OPTARG ;;
    p) perf=$OPTARG ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$out" ] || out=$(mktemp -d)
mkdir -p "$out"

gemm() {
  "$perf" gemm --dtypes f32 --shapes square --max-gflop 2.2 --thread-counts 2 \
    --min-seconds 0.2 --max-seconds 1 --json --quiet > "$1"
}

for round in $(seq 1 "$rounds"); do
  start=$(date +%s)
  gemm "$out/gemm_alone.$round.json"
  # The loop runs about 3x the GEMM's time alone plus netbed's setup, so that it
  # outlasts the GEMM when the two share the cores.
  loop=$(( 3 * ($(date +%s) - start) + 6 ))
  for algorithm in ${algorithms//,/ }; do
    "$here/netbed.sh" -n 2 -r "$rate" -- -x OMPI_MCA_mpi_yield_when_idle=1 "$perf" comm \
      -b 64M -e 64M --algorithms "$algorithm" --min-seconds "$loop" --max-calls 100000 \
      --json --quiet > "$out/allreduce_$algorithm.$round.json" 2>/dev/null &
    pid=$!
    sleep 4  # netbed's namespaces and mpirun's start
    gemm "$out/gemm_beside_$algorithm.$round.json"
    wait "$pid"
  done
done

python3 - "$out" "$algorithms" <<'EOF'
import glob, json, statistics, sys
out, algorithms = sys.argv[1], sys.argv[2].split(",")

def load(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):text.rindex("}") + 1])

def gflops(case):
    per_size = {}
    for path in sorted(glob.glob("%s/gemm_%s.*.json" % (out, case))):
        for p in load(path)["points"]:
            per_size.setdefault(p["m"], []).append(p["dlk_ops_per_second"] / 1e9)
    return per_size

cases = ["alone"] + ["beside_" + a for a in algorithms]
table = {c: gflops(c) for c in cases}
print("| m = n = k | alone GFLOP/s | " +
      " | ".join("beside %s | ratio" % a for a in algorithms) + " |")
print("|---:|---:|" + "---:|---:|" * len(algorithms))
for m in sorted(table["alone"]):
    alone = statistics.median(table["alone"][m])
    cells = ["%d" % m, "%.0f (%.0f-%.0f)" % (alone, min(table["alone"][m]), max(table["alone"][m]))]
    for a in algorithms:
        v = table["beside_" + a].get(m, [])
        cells += ["%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v)) if v else "-",
                  "%.2f" % (statistics.median(v) / alone) if v else "-"]
    print("| " + " | ".join(cells) + " |")
print()
for a in algorithms:
    busy, seconds = [], []
    for path in sorted(glob.glob("%s/allreduce_%s.*.json" % (out, a))):
        for p in load(path)["points"]:
            seconds.append(p["seconds"])
            busy.append(p.get("cpu_seconds", 0) / p["seconds"])
    if seconds:
        print("%s: %.1f ms a call (median of the rounds' medians, beside the GEMM part of the time), "
              "its busiest rank's process used %.2f cores while it ran" %
              (a, 1e3 * statistics.median(seconds), statistics.median(busy)))
print("rounds:", len(glob.glob("%s/gemm_alone.*.json" % out)), "output:", out)
EOF
