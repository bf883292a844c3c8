#!/usr/bin/env bash
# Fails when ctest skipped a test that must run: on a machine that scripts/run.sh
# set up, every test of the suite runs except those that need a GPU (ctest label
# gpu), which skip saying so. A skip for want of a package means a package is
# missing from run.sh's list, and must not pass as green.
#   no_skips.sh CTEST_LOG ALLOWED_FILE
# CTEST_LOG is ctest's output; ALLOWED_FILE is `ctest -N -L '^gpu$'`'s output
# (its "Test #N: name" lines name the tests that may skip).
set -euo pipefail

log=$1; allowed=$2
mapfile -t may_skip < <(sed -n 's/^ *Test *#[0-9]*: *//p' "$allowed")
# ctest's summary: "The following tests did not run:" then "  12 - name (Skipped)".
mapfile -t skipped < <(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (\(Skipped\|Not Run\|Disabled\))$/\1/p' "$log")
status=0
for name in "${skipped[@]}"; do
  ok=0
  for allowed_name in "${may_skip[@]}"; do [ "$name" = "$allowed_name" ] && ok=1; done
  if [ $ok -eq 0 ]; then
    echo "FAIL: $name was skipped; only tests that need a GPU (label gpu) may skip: install what it needs (scripts/run.sh's packages)" >&2
    status=1
  else
    echo "skipped (needs a GPU): $name"
  fi
done
exit $status
