#!/usr/bin/env bash
# scripts/no_skips.sh on ctest logs written here: a skipped test without the gpu
# label fails the run, a skipped gpu test passes with its name, no skip passes.
#   no_skips_test.sh NO_SKIPS_SH
set -euo pipefail

check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'Test project /b\n  Test #3: cuda:device\n\nTotal Tests: 1\n' > "$dir/gpu"

printf '100%% tests passed, 0 tests failed out of 5\n' > "$dir/clean"
"$check" "$dir/clean" "$dir/gpu"

cat > "$dir/gpu_skip" <<'LOG'
100% tests passed, 0 tests failed out of 5

The following tests did not run:
	  3 - cuda:device (Skipped)
LOG
"$check" "$dir/gpu_skip" "$dir/gpu" | grep -q "skipped (needs a GPU): cuda:device"

cat > "$dir/package_skip" <<'LOG'
100% tests passed, 0 tests failed out of 5

The following tests did not run:
	  3 - cuda:device (Skipped)
	117 - perf:charts_render_in_chromium (Skipped)
LOG
if "$check" "$dir/package_skip" "$dir/gpu" 2> "$dir/err"; then
  echo "FAIL: a skipped test without the gpu label passed"; exit 1
fi
grep -q "perf:charts_render_in_chromium was skipped" "$dir/err"
echo "no_skips.sh: clean, gpu-only and package skips judged right"
