#!/usr/bin/env bash
# background.sh <command...>: run a build, a test or an accuracy run beside timings taken with
# scripts/quiet.sh: in a session of its own at autogroup nice 19, so that it gets almost no CPU
# while a timing runs (plain `nice` does not do this: see quiet.sh).
exec setsid -w bash -c 'echo 19 > /proc/self/autogroup; exec nice -n 19 "$@"' _ "$@"
