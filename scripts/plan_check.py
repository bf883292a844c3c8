#!/usr/bin/env python3
"""dlk-perf plan checked against measured dlk-train runs (docs/plan.md).

For every model, rank count P and link rate: the link is measured first
(dlk-perf comm's MPI_Allreduce alpha-beta fit under scripts/netbed.sh, as bus
bandwidth 2(P-1)/P n / (t - alpha) and latency alpha / (2(P-1))); then for
every algorithm dlk-train runs --steps steps under scripts/netbed.sh (all P
ranks on this machine, so dlk-perf plan is told --ranks-here P) and its median
step (dlk-train/run/1 epochs[0].step_seconds_median) is compared with
dlk-perf plan's prediction for the same model, batch, P, threads, link and
algorithm. Prints one row per case (predicted, measured, error), the median and
largest |error| (targets 5 % and 10 %), and for each codec whether its
predicted crossover bandwidth puts every measured rate on the right side (the
codec measured faster than native exactly where the link is below it).

Needs root (netbed uses ip netns and tc), dlk-train and dlk-perf built:
  scripts/plan_check.py --build build/rel [--steps 30] [--models lenet5,vgg_small,wide]
      [--ranks 2,4] [--rates none,10gbit,1gbit] [--algorithms native,onebit,...] [--threads 1]
      [--json FILE]
Standard library only; runs as /usr/bin/python3.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALGORITHMS = ["native", "ring", "ps", "onebit", "int8", "int4", "fp16", "bf16", "topk", "auto"]


def run(command, env=None):
    """Runs command (a list); returns stdout; raises with stderr's tail on failure."""
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{tail}")
    return result.stdout


def json_of(text):
    """The first JSON document in text (mpirun may print lines around it)."""
    start = text.index("{")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def netbed(ranks, rate, program):
    return [os.path.join(ROOT, "scripts", "netbed.sh"), "-n", str(ranks), "-r", rate, "--"] + program


def measure_link(build, ranks, rate, threads):
    """The link as dlk-perf plan takes it, from MPI_Allreduce's alpha-beta fit."""
    perf = os.path.join(build, "perf", "dlk-perf")
    env = dict(os.environ, DLK_NUM_THREADS=str(threads))
    doc = json_of(run(netbed(ranks, rate, [perf, "comm", "-b", "64K", "-e", "16M", "-f", "4",
                                           "--algorithms", "MPI_Allreduce", "--min-seconds", "0.2",
                                           "--quiet", "--json"]), env))
    fit = next(f for f in doc["fits"] if f["algorithm"] == "MPI_Allreduce")
    alpha = max(fit["alpha_seconds"], 0.0)
    bandwidth = fit["bandwidth"]
    if not bandwidth or bandwidth <= 0:  # a noisy fit: the largest size alone
        largest = max((p for p in doc["points"] if p["algorithm"] == "MPI_Allreduce"), key=lambda p: p["bytes"])
        bandwidth = largest["bytes"] / max(largest["seconds"] - alpha, 1e-9)
    bus = 2 * (ranks - 1) / ranks * bandwidth
    latency = max(alpha / (2 * (ranks - 1)), 1e-9)
    return f"bandwidth={bus:.6g}B/s,latency={latency * 1e9:.6g}ns", bus


def measured_step(build, model, ranks, rate, algorithm, steps, batch, threads):
    train = os.path.join(build, "examples", "train", "dlk-train")
    doc = json_of(run(netbed(ranks, rate, [train, "--model", model, "--algorithm", algorithm,
                                           "--steps", str(steps), "--batch", str(batch),
                                           "--threads", str(threads),
                                           "--train-subset", str(batch * (steps + 1)),
                                           "--test-subset", "64", "--quiet", "--json", "-"])))
    return doc["epochs"][0]["step_seconds_median"]


def predicted(build, model, ranks, link, algorithms, batch, threads):
    perf = os.path.join(build, "perf", "dlk-perf")
    doc = json_of(run([perf, "plan", "--model", model, "--ranks", str(ranks), "--ranks-here", str(ranks),
                       "--batch", str(batch), "--threads", str(threads), "--link", link,
                       "--algorithms", ",".join(algorithms), "--scaling", str(ranks), "--quiet", "--json"]))
    steps = {s["algorithm"]: s["step_seconds"] for s in doc["steps"]}
    crossovers = {c["algorithm"]: (c["crossover_bandwidth"], c["wins_below"] == "yes") for c in doc["crossovers"]}
    return steps, crossovers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "rel"))
    parser.add_argument("--models", default="lenet5,vgg_small,wide")
    parser.add_argument("--ranks", default="2,4")
    parser.add_argument("--rates", default="none,10gbit,1gbit")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="write every case here")
    a = parser.parse_args()
    algorithms = a.algorithms.split(",")
    if "native" not in algorithms:
        algorithms.insert(0, "native")

    cases = []
    print(f"{'model':10} {'P':>2} {'rate':7} {'algorithm':9} {'predicted ms':>12} {'measured ms':>11} {'error':>7}")
    for model in a.models.split(","):
        for ranks in (int(p) for p in a.ranks.split(",")):
            for rate in a.rates.split(","):
                try:
                    link, bandwidth = measure_link(a.build, ranks, rate, a.threads)
                    plan, crossovers = predicted(a.build, model, ranks, link, algorithms, a.batch, a.threads)
                except (RuntimeError, ValueError, StopIteration, KeyError) as e:
                    print(f"{model:10} {ranks:>2} {rate:7} skipped: {e}", file=sys.stderr)
                    continue
                for algorithm in algorithms:
                    try:
                        measured = measured_step(a.build, model, ranks, rate, algorithm, a.steps, a.batch,
                                                 a.threads)
                    except (RuntimeError, ValueError, KeyError) as e:
                        print(f"{model:10} {ranks:>2} {rate:7} {algorithm:9} skipped: {e}", file=sys.stderr)
                        continue
                    error = plan[algorithm] / measured - 1
                    cases.append({"model": model, "ranks": ranks, "rate": rate, "link": link,
                                  "link_bandwidth": bandwidth, "algorithm": algorithm,
                                  "predicted_seconds": plan[algorithm], "measured_seconds": measured,
                                  "error": error, "crossover": crossovers.get(algorithm)})
                    print(f"{model:10} {ranks:>2} {rate:7} {algorithm:9} {plan[algorithm] * 1e3:12.3f} "
                          f"{measured * 1e3:11.3f} {error * 100:6.1f}%", flush=True)
    if not cases:
        print("no case ran")
        return 1
    errors = [abs(c["error"]) for c in cases]
    print(f"\n{len(cases)} cases: median |error| {statistics.median(errors) * 100:.1f} % (target 5 %), "
          f"max {max(errors) * 100:.1f} % (target 10 %)")

    # Crossovers: where a codec was measured faster than native at a rate, the
    # rate's bandwidth must lie on the side of the predicted crossover where the
    # plan says the codec wins.
    wrong = checked = 0
    for c in cases:
        if c["algorithm"] == "native" or not c["crossover"]:
            continue
        native = next((n for n in cases if n["algorithm"] == "native" and n["model"] == c["model"]
                       and n["ranks"] == c["ranks"] and n["rate"] == c["rate"]), None)
        if native is None:
            continue
        crossover, wins_below = c["crossover"]
        measured_wins = c["measured_seconds"] < native["measured_seconds"]
        if crossover is None:
            predicted_wins = wins_below
        else:
            predicted_wins = (c["link_bandwidth"] < crossover) == wins_below
        checked += 1
        if predicted_wins != measured_wins:
            wrong += 1
            print(f"crossover on the wrong side: {c['model']} P={c['ranks']} {c['rate']} {c['algorithm']}: "
                  f"measured {'faster' if measured_wins else 'slower'} than native, predicted "
                  f"{'faster' if predicted_wins else 'slower'}")
    print(f"crossovers: {checked - wrong} of {checked} measured pairs on the predicted side")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "dlk-perf/plan-check/1", "cases": cases}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
