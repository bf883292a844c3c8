#!/usr/bin/python3
"""Runs issue 21's comparison tables, dlk-train against its PyTorch peer
(examples/train/torch_peer.py), and writes them as markdown (docs/training.md
holds the measured ones). Every run writes dlk-train/run/1 JSON; the tables are
made from those files, so --report-only re-makes them without running anything.

  examples/train/tables.py --suite speed --dlk-train build/release/examples/train/dlk-train
  examples/train/tables.py --suite accuracy --models lenet5 --ranks 2 --epochs 3
  examples/train/tables.py --suite link --links 1gbit --hosts 2      # as root (netbed)

Suites:
  speed     LeNet-5, 1 rank, --threads 1 and 2: time per step of dlk-train and of the
            peer, interleaved, --repeat times each; medians and the ratio dlk / PyTorch
  accuracy  per model and rank count (mpirun) and each of --seeds: dlk-train with every
            --algorithms (and --no-error-feedback for those in --no-ef; --dtypes,
            --warmup-steps, --lr-warmup-steps and --min-compress-bytes for the
            compressed ones,
            --momentum-correction off/on
            against dlk-train's default: on for onebit and topk), PyTorch in
            one process and DDP over gloo (--peer-algorithms: native, fp16 hook,
            PowerSGD hook); one line
            per row over the seeds: final accuracy per seed, mean, spread, the mean's
            difference to dlk's native
  link      the wide model on scripts/netbed.sh's shaped links, per seed: time to a fixed
            test accuracy (--target-accuracy, scored every --eval-every steps) of native
            and each algorithm, the speed-up, the step's compute / exposed comm / codec
            and the wire bound (the bytes a rank sends at the link's rate)
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PEER = os.path.join(HERE, "torch_peer.py")
NETBED = os.path.join(ROOT, "scripts", "netbed.sh")
DLK_ALGORITHMS = ["native", "ring", "ps", "onebit", "topk", "int8", "int4", "fp16", "bf16"]
# Algorithms whose quantisation error the residuals carry (--no-error-feedback rows).
LOSSY = ["onebit", "topk", "int8", "int4", "fp16", "bf16"]
# Algorithms whose dlk-train runs keep the momentum per rank by default
# (--momentum-correction; examples/train/options.cpp).
CORRECTED = ["onebit", "topk"]
# dlk-train's --min-compress-bytes where it is not given (0 for the others).
MIN_COMPRESS_DEFAULT = {"onebit": 16384, "topk": 16384}
PEER_ALGORITHMS = ["native", "fp16", "powersgd"]


# ---------------------------------------------------------------- running
class Run:
    """One training run: what it is, how it is launched, what it measured."""

    def __init__(self, program, model, ranks, threads, algorithm, error_feedback=True,
                 link=None, extra=(), tag="", seed=1, variant=""):
        self.program, self.model, self.ranks, self.threads = program, model, ranks, threads
        self.algorithm, self.error_feedback, self.link = algorithm, error_feedback, link
        self.extra, self.tag, self.seed = list(extra), tag, seed
        # What the extra options make of the row (e.g. "bf16", "warm-up 100"): rows
        # of one variant and algorithm over the seeds are one line of the table.
        self.variant = variant
        self.result, self.error, self.load, self.wall = None, None, None, None

    def name(self):
        ef = "" if self.error_feedback else "-noef"
        link = f"-{self.link}" if self.link else ""
        seed = f"-s{self.seed}" if self.seed != 1 else ""
        return (f"{self.program}-{self.model}-p{self.ranks}-t{self.threads}-{self.algorithm}"
                f"{ef}{link}{self.tag}{seed}")

    def argv(self, args, json_path):
        if self.program == "dlk":
            prog = [args.dlk_train, "--quiet"]
        else:
            prog = [args.python, PEER]
        prog += ["--model", self.model, "--threads", str(self.threads), "--json", json_path]
        if self.seed != 1:
            prog += ["--seed", str(self.seed)]
        if self.ranks > 1 or self.program == "dlk":
            prog += ["--algorithm", self.algorithm]
        if not self.error_feedback:
            prog.append("--no-error-feedback")
        prog += self.extra
        if self.link:
            return [NETBED, "-n", str(self.ranks), "-r", self.link, "--"] + prog
        if self.ranks > 1:
            mpi = [args.mpirun, "-np", str(self.ranks), "--oversubscribe", "--bind-to", "none"]
            if os.geteuid() == 0:
                mpi.append("--allow-run-as-root")
            return mpi + prog
        return prog

    def execute(self, args):
        path = os.path.join(args.workdir, self.name() + ".json")
        cmd = self.argv(args, path)
        self.command = " ".join(shlex.quote(c) for c in cmd)
        meta = os.path.join(args.workdir, self.name() + ".meta.json")
        if args.report_only or (os.path.exists(meta) and not args.rerun):
            return self.read(path, meta)
        print(f"== {self.command}", file=sys.stderr, flush=True)
        self.load = os.getloadavg()[0]
        start = datetime.datetime.now()
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.wall = (datetime.datetime.now() - start).total_seconds()
        with open(os.path.join(args.workdir, self.name() + ".log"), "w") as f:
            f.write(f"$ {self.command}\nload {self.load:.2f}, {self.wall:.1f} s, exit "
                    f"{p.returncode}\n{p.stdout}\n{p.stderr}")
        if p.returncode != 0:
            self.error = f"exit {p.returncode}: {first_error(p.stderr + p.stdout)[:160]}"
            print(f"   failed: {self.error}", file=sys.stderr)
        else:
            sys.stderr.write(p.stdout)
        with open(meta, "w") as f:
            json.dump({"command": self.command, "load": self.load, "wall": self.wall,
                       "error": self.error}, f)
        return self.read(path, meta)

    def read(self, path, meta):
        try:
            with open(meta) as f:
                m = json.load(f)
            self.load, self.wall, self.error = m["load"], m["wall"], m["error"]
        except (OSError, ValueError, KeyError):
            self.error = "not run"
            return self
        if self.error:
            return self
        try:
            with open(path) as f:
                self.result = json.load(f)
        except (OSError, ValueError) as e:
            self.error = f"no JSON ({e})"
        return self


def first_error(output):
    """The program's own message (mpirun wraps it in banners of dashes)."""
    lines = [l.strip() for l in output.splitlines() if l.strip().strip("-")]
    for l in lines:
        if l.startswith(("dlk-train:", "torch_peer:", "netbed:")) or "rror" in l:
            return l
    return lines[-1] if lines else "no output"


# ---------------------------------------------------------------- reading a run
def epochs(run):
    return run.result["epochs"] if run.result else []


def last(run, field):
    e = epochs(run)
    return e[-1].get(field) if e else None


def accuracy(run):
    """Test accuracy after the last epoch, in %."""
    a = last(run, "test_accuracy")
    return None if a is None else 100.0 * a


def best_accuracy(run):
    """The best test accuracy (%) the run scored, after an epoch or with --eval-every."""
    scores = [e["test_accuracy"] for e in epochs(run)]
    scores += [e["test_accuracy"] for e in (run.result or {}).get("evals", [])]
    return max((100.0 * a for a in scores), default=None)


def ms_per_step(run):
    """Time per step (each epoch's mean step; the median over the run's epochs)."""
    values = [1e3 * e["step_seconds"] for e in epochs(run)]
    return statistics.median(values) if values else None


def median_ms_per_step(run):
    """The run's median step (warm-up and stalls left out), of its first epoch."""
    e = epochs(run)
    return 1e3 * e[0]["step_seconds_median"] if e else None


def train_seconds(run):
    """Training time (test scoring left out) up to the end of each epoch."""
    out, total = [], 0.0
    for e in epochs(run):
        total += e["step_seconds"] * e["steps"]
        out.append(total)
    return out


def time_to_accuracy(run, target):
    """(training seconds, step) when the test accuracy first reached target %: from the
    run's own --eval-every scoring, else from the scores after each epoch."""
    if not run.result:
        return None, None
    tta = run.result.get("time_to_accuracy")
    if tta is not None:
        reached = tta.get("reached")
        return (reached["train_seconds"], reached["step"]) if reached else (None, None)
    step = 0
    for e, seconds in zip(epochs(run), train_seconds(run)):
        step += e["steps"]
        if 100.0 * e["test_accuracy"] >= target:
            return seconds, step
    return None, None


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def status(run):
    if run.error == "not run":
        return "not run"
    return f"failed ({run.error})" if run.error else ""


# ---------------------------------------------------------------- suites
def suite_speed(args):
    rows = []
    steps = ["--steps", str(args.steps), "--train-subset", str(args.steps * 64),
             "--test-subset", "1000"]
    for threads in args.threads:
        pairs = []
        for _ in range(args.repeat):
            pair = []
            for program in ("dlk", "torch"):
                pair.append(Run(program, "lenet5", 1, threads, "native", extra=steps,
                                tag=f"-r{len(pairs)}").execute(args))
            pairs.append(pair)
        dlk = [median_ms_per_step(p[0]) for p in pairs if median_ms_per_step(p[0]) is not None]
        pt = [median_ms_per_step(p[1]) for p in pairs if median_ms_per_step(p[1]) is not None]
        ratios = [median_ms_per_step(a) / median_ms_per_step(b) for a, b in pairs
                  if median_ms_per_step(a) is not None and median_ms_per_step(b)]
        loads = [r.load for p in pairs for r in p if r.load is not None]
        rows.append([str(threads), fmt(median(dlk), ".2f"), fmt(median(pt), ".2f"),
                     fmt(median(ratios), ".2f"),
                     "met" if ratios and median(ratios) <= 0.5 else
                     ("missed" if ratios else "not run"),
                     f"{len(ratios)}", fmt(min(loads, default=None), ".1f") + "-" +
                     fmt(max(loads, default=None), ".1f"),
                     "; ".join(status(r) for p in pairs for r in p if r.error)])
    text = [f"LeNet-5, 1 rank, global batch 64, {args.steps} steps per run on "
            f"{args.steps * 64} images; dlk-train and PyTorch alternate, {args.repeat} runs "
            "each; ms/step is each run's median step, then the median over runs; the ratio "
            "is taken run pair by run pair (target: dlk <= 0.5x PyTorch)."]
    return text, ["threads", "dlk ms/step", "PyTorch ms/step", "dlk / PyTorch",
                  "target <= 0.5", "pairs", "load (1 min)", "notes"], rows


def median(values):
    return statistics.median(values) if values else None


def accuracy_runs(args, model, ranks):
    common = ["--epochs", str(args.epochs)] + subset(args)
    runs = []
    for seed in args.seeds:
        if not args.skip_dlk:
            for dtype, correction, a in ((d, c, a) for d in args.dtypes
                                         for c in args.momentum_correction
                                         for a in args.algorithms):
                extra, tag, variant = list(common), "", []
                if dtype != "f32":
                    extra += ["--dtype", dtype]
                    tag += f"-{dtype}"
                    variant.append(f"--dtype {dtype}")
                # dlk-train's own default (on for onebit and topk) adds no option, so
                # that "default" and the explicit choice it equals are one run.
                on = correction == "on" or (correction == "default" and a in CORRECTED)
                if on != (a in CORRECTED):
                    extra.append("--momentum-correction" if on else "--no-momentum-correction")
                    tag += "-mc" if on else "-nomc"
                    variant.append("momentum correction" if on else "no momentum correction")
                if args.warmup_steps and a in LOSSY:
                    extra += ["--warmup-steps", str(args.warmup_steps)]
                    tag += f"-w{args.warmup_steps}"
                    variant.append(f"{args.warmup_steps} warm-up steps")
                if args.lr_warmup_steps and a in LOSSY:
                    extra += ["--lr-warmup-steps", str(args.lr_warmup_steps)]
                    tag += f"-lrw{args.lr_warmup_steps}"
                    variant.append(f"lr warm-up {args.lr_warmup_steps} steps")
                # As for the correction: dlk-train's own default adds no option.
                if (args.min_compress_bytes is not None and a in LOSSY
                        and args.min_compress_bytes != MIN_COMPRESS_DEFAULT.get(a, 0)):
                    extra += ["--min-compress-bytes", str(args.min_compress_bytes)]
                    tag += f"-mcb{args.min_compress_bytes}"
                    variant.append(f"gradients under {args.min_compress_bytes} B native"
                                   if args.min_compress_bytes else "every gradient compressed")
                if any(r.name() == Run("dlk", model, ranks, 1, a, tag=tag, seed=seed).name()
                       for r in runs):
                    continue
                runs.append(Run("dlk", model, ranks, 1, a, extra=extra, tag=tag, seed=seed,
                                variant=", ".join(variant)))
                if a in LOSSY and a in args.no_ef:
                    runs.append(Run("dlk", model, ranks, 1, a, False, extra=extra, tag=tag,
                                    seed=seed, variant=", ".join(variant)))
        if not args.skip_peer:
            for a in args.peer_algorithms:
                if a == "none":  # one process, the plain module
                    runs.append(Run("torch", model, 1, 1, "none", extra=common, seed=seed))
                    continue
                runs.append(Run("torch", model, ranks, 1, a, extra=common, seed=seed))
                if a == "powersgd" and "powersgd" in args.no_ef:
                    runs.append(Run("torch", model, ranks, 1, a, False, extra=common, seed=seed))
    return runs


def tail_accuracy(run):
    """The mean test accuracy (%) of the run's last two epochs."""
    scores = [100.0 * e["test_accuracy"] for e in epochs(run)[-2:]]
    return statistics.mean(scores)


def spread(values):
    """Mean and (max - min) of a row's final accuracies over its seeds."""
    if not values:
        return None, None
    return statistics.mean(values), max(values) - min(values)


def subset(args):
    out = []
    if args.train_subset:
        out += ["--train-subset", str(args.train_subset)]
    if args.test_subset:
        out += ["--test-subset", str(args.test_subset)]
    return out


def suite_accuracy(args):
    rows = []
    for model in args.models:
        for ranks in args.ranks:
            runs = [r.execute(args) for r in accuracy_runs(args, model, ranks)]
            # One line per program, algorithm, error feedback and variant; its seeds
            # in the order run.
            groups = {}
            for r in runs:
                groups.setdefault((r.program, r.algorithm, r.error_feedback, r.variant),
                                  []).append(r)
            native = {r.seed: r for r in groups.get(("dlk", "native", True, ""), [])
                      if accuracy(r) is not None}
            for (program, algorithm, ef, variant), group in groups.items():
                done = [r for r in group if accuracy(r) is not None]
                mean, width = spread([accuracy(r) for r in done])
                # Paired by seed (same weights and data order as native's run): the
                # seed's own swing, 1-2 points, drops out of the difference.
                paired = [r for r in done if r.seed in native]
                deltas = [accuracy(r) - accuracy(native[r.seed]) for r in paired]
                # The last two epochs' mean: one epoch's score swings by 1-2 points.
                tail_deltas = [tail_accuracy(r) - tail_accuracy(native[r.seed]) for r in paired]
                name = algorithm + ("" if ef else ", no error feedback")
                name += f", {variant}" if variant else ""
                # A diverged run's loss is NaN, which its JSON holds as null.
                losses = [last(r, "train_loss") for r in done]
                rows.append([model, "dlk-train" if program == "dlk" else "PyTorch", name,
                             str(group[0].ranks), str(len(done)),
                             " / ".join(f"{accuracy(r):.2f}" for r in done) or "-",
                             fmt(mean, ".2f"), fmt(width, ".2f"),
                             " / ".join(f"{d:+.2f}" for d in deltas) or "-",
                             fmt(statistics.mean(deltas) if deltas else None, "+.2f"),
                             fmt(statistics.mean(tail_deltas) if tail_deltas else None, "+.2f"),
                             " / ".join(fmt(l, ".4f", "NaN") for l in losses) or "-",
                             fmt(statistics.mean(losses) if losses and None not in losses
                                 else None, ".4f", "NaN" if losses else "-"),
                             fmt(last(done[0], "wire_bytes_per_step") if done else None, ".0f"),
                             fmt(median([ms_per_step(r) for r in done]), ".1f"),
                             fmt(min((r.load for r in group if r.load is not None),
                                     default=None), ".1f") + "-" +
                             fmt(max((r.load for r in group if r.load is not None),
                                     default=None), ".1f"),
                             "; ".join(status(r) for r in group if r.error)])
    text = [f"Global batch 64 split over the ranks, lr 0.05, momentum 0.9, seeds "
            f"{', '.join(map(str, args.seeds))} (weights and data order), {args.epochs} epoch(s)"
            + (f" of the first {args.train_subset} training images" if args.train_subset else "")
            + (f", test on the first {args.test_subset}" if args.test_subset else "")
            + "; ranks under mpirun on this machine (shared memory for dlk, gloo over "
            "loopback TCP for PyTorch), 1 thread each. Final: test accuracy after the last "
            "epoch, per seed, their mean and spread (max - min). Delta: the row's final "
            "accuracy minus dlk-train native's of the same seed (same initial weights and "
            "data order), model and rank count, per seed and its mean (target: within 0.5 "
            "points); also the mean delta of the last two epochs' mean accuracy (one "
            "epoch's score swings by 1-2 points). ms/step (median over seeds) was not taken quietly: not a speed figure."]
    return text, ["model", "program", "all-reduce", "ranks", "seeds", "final acc % per seed",
                  "mean", "spread", "delta pp per seed", "mean delta pp",
                  "last 2 epochs: mean delta pp", "train loss per seed", "train loss (mean)",
                  "wire B/step",
                  "ms/step", "load", "notes"], rows


def link_run(args, algorithm, hosts, link, common, seed):
    """dlk-train on the wide model; --warmup-steps applies to the compressed algorithms."""
    if args.warmup_steps and algorithm in LOSSY:
        return Run("dlk", "wide", hosts, 1, algorithm, link=link,
                   extra=common + ["--warmup-steps", str(args.warmup_steps)],
                   tag=f"-w{args.warmup_steps}", seed=seed,
                   variant=f"{args.warmup_steps} warm-up steps")
    return Run("dlk", "wide", hosts, 1, algorithm, link=link, extra=common, seed=seed)


def split_ms(run):
    """compute / exposed comm / codec of the mean step, in ms."""
    parts = [last(run, f) for f in ("compute_seconds", "exposed_comm_seconds", "codec_seconds")]
    return " / ".join(fmt(None if p is None else 1e3 * p, ".0f") for p in parts)


def wire_bound_ms(run, link):
    """The bytes a rank sends per step at the tbf rate (1gbit, 10gbit, 500mbit)."""
    units = {"gbit": 1e9, "mbit": 1e6, "kbit": 1e3}
    wire = last(run, "wire_bytes_per_step")
    for unit, scale in units.items():
        if link.endswith(unit) and wire is not None:
            return 1e3 * 8 * wire / (float(link[:-len(unit)]) * scale)
    return None


def suite_link(args):
    rows = []
    common = ["--epochs", str(args.epochs)] + subset(args)
    if args.eval_every:
        common += ["--eval-every", str(args.eval_every), "--target-accuracy",
                   f"{args.target_accuracy:g}"]
    for link, hosts, seed in ((l, h, s) for l in args.links for h in args.hosts
                              for s in args.seeds):
        runs = [] if args.skip_dlk else [link_run(args, a, hosts, link, common, seed)
                                         .execute(args) for a in args.algorithms]
        if not args.skip_peer:
            runs += [Run("torch", "wide", hosts, 1, a, link=link, extra=common, seed=seed)
                     .execute(args) for a in args.peer_algorithms if a != "none"]
        native = next((r for r in runs if r.program == "dlk" and r.algorithm == "native"),
                      None)
        base, _ = time_to_accuracy(native, args.target_accuracy) if native else (None, None)
        for r in runs:
            seconds, step = time_to_accuracy(r, args.target_accuracy)
            speedup = base / seconds if base and seconds else None
            rows.append([link, str(hosts), str(seed),
                         "dlk-train" if r.program == "dlk" else "PyTorch",
                         r.algorithm + (f", {r.variant}" if r.variant else ""),
                         fmt(ms_per_step(r), ".1f"),
                         split_ms(r), fmt(wire_bound_ms(r, link), ".1f"),
                         fmt(last(r, "wire_bytes_per_step"), ".0f"),
                         fmt(seconds, ".1f", "not reached"), fmt(step, "d"),
                         fmt(best_accuracy(r), ".2f"),
                         fmt(speedup, ".2f"), fmt(r.load, ".1f"), status(r)])
    scored = (f"every {args.eval_every} steps (the run stops at the target)" if args.eval_every
              else "after each epoch")
    text = [f"The wide model (784-4096-4096-10, 20.0 M parameters) on scripts/netbed.sh's "
            f"emulated cluster: one rank per host (network namespace), every link shaped by tc "
            f"tbf, 1 thread per rank; at most {args.epochs} epoch(s) of "
            f"{args.train_subset or 60000} training images, the test set"
            + (f" (first {args.test_subset})" if args.test_subset else "")
            + f" scored {scored}; time to {args.target_accuracy:g} % is the training time "
            "(test scoring excluded) until a score first reaches it. Speed-up: dlk-train "
            "native's time (same seed) over the row's (target: at least 5x for the best compressed "
            "algorithm at 1 Gbit). ms/step is the mean step of the run's epochs."]
    text.append("Split: the mean step's compute / exposed communication / encode+decode "
                "(ms; the peer has no codec column). Wire bound: the bytes one rank sends per "
                "step at the link's rate, the shortest exposed communication the link allows "
                "when nothing overlaps.")
    return text, ["link", "ranks", "seed", "program", "all-reduce", "ms/step",
                  "compute / comm / codec ms", "wire bound ms", "wire B/step",
                  f"time to {args.target_accuracy:g} % (s)", "at step", "best acc %",
                  "speed-up vs native", "load", "notes"], rows


SUITES = {"speed": suite_speed, "accuracy": suite_accuracy, "link": suite_link}


# ---------------------------------------------------------------- report
def machine_line():
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                fields.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    return (f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, model "
            f"{fields.get('model', '?')}), {os.cpu_count()} CPUs")


def markdown(suite, text, header, rows, args):
    out = [f"### {suite}", "",
           f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on "
           f"{machine_line()}; load is the 1-minute load average as each run started.", ""]
    out += text + ["", "| " + " | ".join(header) + " |",
                   "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    csv = lambda s: [x for x in s.split(",") if x]  # noqa: E731
    ints = lambda s: [int(x) for x in csv(s)]  # noqa: E731
    p.add_argument("--suite", choices=sorted(SUITES) + ["all"], default="all")
    p.add_argument("--dlk-train", default=os.path.join(ROOT, "build/release/examples/train/dlk-train"))
    p.add_argument("--python", default="/usr/bin/python3", help="the interpreter with torch")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--workdir", default="build/train-tables", help="JSON and logs of each run")
    p.add_argument("--out", help="write the markdown here (default: stdout)")
    p.add_argument("--report-only", action="store_true", help="re-make tables from --workdir")
    p.add_argument("--rerun", action="store_true",
                   help="run again what --workdir already holds (default: keep it)")
    p.add_argument("--threads", type=ints, default=[1, 2], help="speed: thread counts")
    p.add_argument("--steps", type=int, default=100, help="speed: steps per run")
    p.add_argument("--repeat", type=int, default=3, help="speed: runs per program and threads")
    p.add_argument("--models", type=csv, default=["lenet5", "vgg_small"], help="accuracy")
    p.add_argument("--ranks", type=ints, default=[2, 4], help="accuracy: rank counts")
    p.add_argument("--algorithms", type=csv, default=DLK_ALGORITHMS, help="dlk-train's")
    p.add_argument("--no-ef", type=csv, default=LOSSY + ["powersgd"],
                   help="accuracy: algorithms also run with --no-error-feedback")
    p.add_argument("--skip-no-ef", action="store_true", help="no --no-error-feedback rows")
    p.add_argument("--seeds", type=ints, default=[1], help="accuracy, link: seeds, a run each")
    p.add_argument("--dtypes", type=csv, default=["f32"], help="accuracy: dlk-train --dtype")
    p.add_argument("--momentum-correction", type=csv, default=["default"],
                   help="accuracy: default, off, on (or a list: off,on): dlk-train rows with "
                        "its default (on for onebit and topk), --no-momentum-correction, "
                        "--momentum-correction")
    p.add_argument("--warmup-steps", type=int, default=0,
                   help="accuracy: dlk-train's compressed rows all-reduce the first N steps "
                        "uncompressed")
    p.add_argument("--lr-warmup-steps", type=int, default=0,
                   help="accuracy: dlk-train's compressed rows raise the learning rate "
                        "linearly over the first N steps (dlk-train --lr-warmup-steps)")
    p.add_argument("--min-compress-bytes", type=int, default=None,
                   help="accuracy: dlk-train's compressed rows all-reduce every gradient "
                        "under N bytes uncompressed (dlk-train --min-compress-bytes; its "
                        "default, 16384 for onebit and topk, 0 for the others, without this)")
    p.add_argument("--peer-algorithms", type=csv, default=["none"] + PEER_ALGORITHMS,
                   help="PyTorch rows: none (one process), native, fp16, powersgd")
    p.add_argument("--skip-peer", action="store_true", help="no PyTorch rows")
    p.add_argument("--skip-dlk", action="store_true",
                   help="no dlk-train rows (accuracy, link; --report-only merges runs made apart)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--train-subset", type=int, default=0)
    p.add_argument("--test-subset", type=int, default=0)
    p.add_argument("--links", type=csv, default=["1gbit", "10gbit"], help="link: tbf rates")
    p.add_argument("--hosts", type=ints, default=[2, 4], help="link: hosts (ranks)")
    p.add_argument("--target-accuracy", type=float, default=80.0, help="link: test accuracy %%")
    p.add_argument("--eval-every", type=int, default=25,
                   help="link: score the test set every N steps (0: after each epoch only)")
    a = p.parse_args(argv)
    if a.skip_no_ef:
        a.no_ef = []
    for c in a.momentum_correction:
        if c not in ("default", "off", "on"):
            p.error(f"--momentum-correction: {c} is not one of default, off, on")
    for alg in a.algorithms:
        if alg not in DLK_ALGORITHMS + ["auto"]:
            p.error(f"--algorithms: {alg} is not one of {', '.join(DLK_ALGORITHMS)}, auto")
    needs_dlk = a.suite in ("speed", "all") or not a.skip_dlk
    if not a.report_only and needs_dlk and not os.access(a.dlk_train, os.X_OK):
        p.error(f"--dlk-train {a.dlk_train}: not an executable (build dlk-train first)")
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.makedirs(args.workdir, exist_ok=True)
    suites = sorted(SUITES) if args.suite == "all" else [args.suite]
    parts = []
    for s in suites:
        if s == "link" and os.geteuid() != 0 and not args.report_only:
            parts.append("### link\n\nNot run: scripts/netbed.sh needs root.\n")
            continue
        parts.append(markdown(s, *SUITES[s](args), args))
    text = "\n".join(parts)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
