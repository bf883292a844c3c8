#!/usr/bin/python3
"""examples/train/tables.py end to end, on a subset of Fashion-MNIST:
- the accuracy suite (2 ranks, native and topk with and without error feedback):
  one row each, native's delta +0.00 against itself, topk's paired delta is native's
  accuracy subtracted from its own, the wire bytes of each run;
- --report-only re-makes the same table from the runs' JSON without running anything,
  and a second call without --rerun keeps the runs it finds;
- a run that fails is a row that says so, not a missing row;
- the speed suite (1 rank, 1 thread, dlk-train against the PyTorch peer): a ratio;
- bad options are refused with a message naming them.

  tables_test.py TABLES DLK_TRAIN MPIEXEC
"""
import json
import os
import re
import sys
import tempfile

from script_checks import check, run

SHORT = ["--models", "lenet5", "--ranks", "2", "--epochs", "2", "--train-subset", "640",
         "--test-subset", "500", "--skip-peer"]


def table(markdown):
    """The rows of the markdown table, each a list of cells, the header first."""
    rows = [l for l in markdown.splitlines() if l.startswith("| ")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows]


def accuracy_suite(tables, dlk_train, mpiexec, tmp):
    work = os.path.join(tmp, "acc")
    base = [sys.executable, tables, "--suite", "accuracy", "--dlk-train", dlk_train,
            "--mpirun", mpiexec, "--workdir", work, *SHORT, "--algorithms", "native,topk",
            "--no-ef", "topk"]
    first = run(base).stdout
    rows = table(first)
    header, body = rows[0], rows[1:]
    col = {name: header.index(name) for name in
           ("all-reduce", "final acc % per seed", "delta pp per seed", "wire B/step", "notes")}
    by_name = {r[col["all-reduce"]]: r for r in body}
    check(sorted(by_name) == ["native", "topk", "topk, no error feedback"],
          "accuracy: a row for native, topk and topk without error feedback", first)
    native = by_name["native"]
    check(native[col["delta pp per seed"]] == "+0.00", "accuracy: native's delta is +0.00", first)
    for name, row in by_name.items():
        check(row[col["notes"]] == "" and re.fullmatch(r"\d+\.\d\d", row[col["final acc % per seed"]]),
              f"accuracy: {name} ran and has a final accuracy", first)
        delta = float(row[col["final acc % per seed"]]) - float(native[col["final acc % per seed"]])
        check(abs(float(row[col["delta pp per seed"]]) - delta) < 0.006,
              f"accuracy: {name}'s delta is its accuracy less native's", first)
    native_wire = int(native[col["wire B/step"]])
    topk_wire = int(by_name["topk"][col["wire B/step"]])
    check(0 < topk_wire < native_wire / 10,
          f"accuracy: topk sends under a tenth of native's bytes ({topk_wire} / {native_wire})",
          first)
    runs = sorted(f for f in os.listdir(work) if f.endswith(".json") and ".meta" not in f)
    check(len(runs) == 3 and all(json.load(open(os.path.join(work, f)))["schema"]
                                 == "dlk-train/run/1" for f in runs),
          f"accuracy: each run left its dlk-train/run/1 JSON {runs}", runs)

    again = run(base + ["--report-only"])
    check(table(again.stdout) == rows and "==" not in again.stderr,
          "--report-only: the same table, nothing run", again.stdout + again.stderr)
    kept = run(base)
    check(table(kept.stdout) == rows and "==" not in kept.stderr,
          "without --rerun: the runs found are kept", kept.stderr)


def failed_run(tables, mpiexec, tmp):
    out = run([sys.executable, tables, "--suite", "accuracy", "--dlk-train", "/bin/false",
               "--mpirun", mpiexec, "--workdir", os.path.join(tmp, "fail"), *SHORT,
               "--algorithms", "native", "--skip-no-ef"]).stdout
    rows = table(out)
    notes = rows[1][rows[0].index("notes")] if len(rows) == 2 else ""
    check(notes.startswith("failed (exit "), f"a failed run is a row that says so: {notes}", out)


def speed_suite(tables, dlk_train, tmp):
    out = run([sys.executable, tables, "--suite", "speed", "--dlk-train", dlk_train,
               "--workdir", os.path.join(tmp, "speed"), "--threads", "1", "--steps", "10",
               "--repeat", "1"]).stdout
    rows = table(out)
    ratio = rows[1][rows[0].index("dlk / PyTorch")] if len(rows) == 2 else ""
    check(re.fullmatch(r"\d+\.\d\d", ratio) is not None and float(ratio) > 0,
          f"speed: dlk-train / PyTorch is a ratio ({ratio})", out)


def bad_options(tables, dlk_train, tmp):
    work = ["--workdir", os.path.join(tmp, "bad")]
    for argv, named in ((["--algorithms", "native,fast"], "fast"),
                        (["--momentum-correction", "maybe"], "maybe"),
                        (["--dlk-train", os.path.join(tmp, "none")], "not an executable")):
        p = run([sys.executable, tables, "--suite", "accuracy", "--dlk-train", dlk_train,
                 *work, *argv], expect_rc=2)
        check(named in p.stderr, f"refused: {' '.join(argv)}", p.stderr)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tables, dlk_train, mpiexec = sys.argv[1:]
    # Open MPI's equivalent of --allow-run-as-root, honoured only when run as root (CI).
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with tempfile.TemporaryDirectory() as tmp:
        accuracy_suite(tables, dlk_train, mpiexec, tmp)
        failed_run(tables, mpiexec, tmp)
        speed_suite(tables, dlk_train, tmp)
        bad_options(tables, dlk_train, tmp)


if __name__ == "__main__":
    main()
