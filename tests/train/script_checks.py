"""What the end-to-end tests of examples/train's Python scripts share: run a
command and fail with its output unless it exits as expected; a named check."""
import subprocess
import sys


def run(cmd, expect_rc=0):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if p.returncode != expect_rc:
        sys.exit(f"FAIL: {' '.join(cmd)}\nexit {p.returncode}, want {expect_rc}\n"
                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def check(cond, what, detail):
    if not cond:
        sys.exit(f"FAIL: {what}\n{detail}")
    print(f"ok: {what}")
