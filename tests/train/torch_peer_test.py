#!/usr/bin/python3
"""examples/train/torch_peer.py end to end, on a subset of Fashion-MNIST:
- one process, 3 epochs of 20 steps: the training loss falls epoch by epoch;
- 2 ranks under mpirun (DDP over gloo) with each all-reduce (native, fp16 hook,
  PowerSGD hook): the ranks' weight checksums are equal, the loss falls;
- a truncated and a malformed data file are rejected with a message naming the file.

  torch_peer_test.py PEER MPIEXEC
"""
import gzip
import json
import os
import shutil
import sys
import tempfile

from script_checks import check, run

DATA = "/usr/share/datasets/fashion-mnist"
SHORT = ["--model", "lenet5", "--threads", "1", "--test-subset", "1000"]


def losses(run_json):
    return [e["train_loss"] for e in run_json["epochs"]]


def one_process(peer, tmp):
    out = os.path.join(tmp, "one.json")
    run([sys.executable, peer, *SHORT, "--epochs", "3", "--train-subset", "1280", "--json", out])
    r = json.load(open(out))
    l = losses(r)
    check(r["schema"] == "dlk-train/run/1" and r["config"]["ranks"] == 1 and len(l) == 3,
          "one process: JSON has 3 epochs", r)
    check(l[2] < l[1] < l[0] and l[2] < 0.8 * l[0], f"one process: loss falls {l}", r)


def two_ranks(peer, mpiexec, tmp, algorithm):
    out = os.path.join(tmp, f"ddp_{algorithm}.json")
    run([mpiexec, "-np", "2", "--oversubscribe", "--bind-to", "none", sys.executable, peer,
         *SHORT, "--epochs", "2", "--train-subset", "1280", "--algorithm", algorithm,
         "--json", out])
    r = json.load(open(out))
    sums = [e["rank_checksums"] for e in r["epochs"]]
    check(r["config"]["ranks"] == 2 and all(len(s) == 2 and s[0] == s[1] for s in sums),
          f"2 ranks, {algorithm}: identical weights on both ranks every epoch {sums}", r)
    l = losses(r)
    check(l[1] < l[0], f"2 ranks, {algorithm}: loss falls {l}", r)
    check(r["epochs"][-1]["wire_bytes_per_step"] > 0, f"2 ranks, {algorithm}: wire bytes", r)


def bad_data(peer, tmp):
    bad = os.path.join(tmp, "bad")
    os.mkdir(bad)
    for f in os.listdir(DATA):
        shutil.copy(os.path.join(DATA, f), bad)
    labels = os.path.join(bad, "t10k-labels-idx1-ubyte.gz")
    with gzip.open(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")) as f:
        raw = f.read()
    with gzip.open(labels, "wb") as f:
        f.write(raw[:5000])
    p = run([sys.executable, peer, "--data", bad, "--steps", "1"], expect_rc=1)
    check(labels in p.stderr and "needs 10008" in p.stderr,
          "a truncated label file is rejected, naming the file", p.stderr)
    with gzip.open(labels, "wb") as f:
        f.write(b"\x00\x00\x0d\x01" + raw[4:])
    p = run([sys.executable, peer, "--data", bad, "--steps", "1"], expect_rc=1)
    check(labels in p.stderr and "bad IDX magic" in p.stderr,
          "a label file of floats (IDX type 0x0d) is rejected, naming the file", p.stderr)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    peer, mpiexec = sys.argv[1:]
    # Open MPI's equivalent of --allow-run-as-root, honoured only when run as root (CI).
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with tempfile.TemporaryDirectory() as tmp:
        one_process(peer, tmp)
        for algorithm in ("native", "fp16", "powersgd"):
            two_ranks(peer, mpiexec, tmp, algorithm)
        bad_data(peer, tmp)


if __name__ == "__main__":
    main()
