#!/usr/bin/env bash
# quiet.sh <command...>: run a timing on a machine that others share.
# Waits for a machine-wide lock (DLK_QUIET_LOCK, default /tmp/dlk-quiet.lock) so that two
# timings never overlap, then runs the command in a session of its own at autogroup nice -20:
# Linux divides CPU time between sessions before it looks at a process's nice value, so a
# niced build in another session would otherwise still take a full share from the timing.
# Prints the start and end time and the load average to stderr. Needs root for nice -20.
set -euo pipefail
lock=${DLK_QUIET_LOCK:-/tmp/dlk-quiet.lock}
echo "quiet: waiting for $lock ($(date -u +%T))" >&2
exec flock "$lock" setsid -w bash -c '
  echo -20 > /proc/self/autogroup
  echo "quiet: start $(date -u +%T), load $(cut -d" " -f1-3 /proc/loadavg)" >&2
  "$@"; rc=$?
  echo "quiet: end $(date -u +%T)" >&2
  exit $rc' _ "$@"
