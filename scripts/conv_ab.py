#!/usr/bin/env python3
"""A/B of two builds of libdlk on `dlk-perf conv`: the speed of a change.

  scripts/conv_ab.py [--perf build/release/perf/dlk-perf] [--rounds 3] OLD_LIB_DIR NEW_LIB_DIR \\
      -- <dlk-perf conv arguments>

Runs dlk-perf conv with LD_LIBRARY_PATH at each directory (copies of libdlk.so*
from the two builds), alternated and the order swapped each round, so that a
drift of the machine falls on both. Prints a line per point: the median over
the rounds of old time / new time (> 1: the new build is faster), the same for
the call with packed weights where dlk-perf measures one (`pk`), each build's
median ratio to oneDNN-any from its own runs (`x any old -> new`; oneDNN timed
beside dlk in each run, so the machine's drift cancels), and each build's
kernel (dlk_context_last_op)."""
import argparse
import json
import os
import statistics
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if '--' not in argv:
        sys.exit(__doc__)
    split = argv.index('--')
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument('--perf', default='build/release/perf/dlk-perf')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('old')
    parser.add_argument('new')
    opts = parser.parse_args(argv[:split])
    conv_args = argv[split + 1:]
    seconds = ({}, {})
    packed = ({}, {})
    kernel = ({}, {})
    to_any = ({}, {})
    for r in range(opts.rounds):
        for build in ((0, 1) if r % 2 == 0 else (1, 0)):
            env = dict(os.environ, LD_LIBRARY_PATH=(opts.old, opts.new)[build])
            out = subprocess.run([opts.perf, 'conv', *conv_args, '--json'], env=env,
                                 capture_output=True, text=True, check=True).stdout
            for p in json.loads(out)['points']:
                key = (p['dtype'], p['format'], p['pass'], p['set'], p['layer'],
                       f"n={p['batch']}", f"t={p['threads']}")
                seconds[build].setdefault(key, []).append(p['dlk_seconds'])
                if p.get('dlk_packed_seconds') is not None:
                    packed[build].setdefault(key, []).append(p['dlk_packed_seconds'])
                kernel[build][key] = p['dlk_implementation']
                if p.get('ratio_to_onednn_any') is not None:
                    to_any[build].setdefault(key, []).append(p['ratio_to_onednn_any'])

    def speedup(times, key):
        if key not in times[0] or key not in times[1]:
            return '-'
        return f"{statistics.median(times[0][key]) / statistics.median(times[1][key]):.2f}x"

    for key in seconds[1]:
        versus = ' -> '.join(f"{statistics.median(to_any[b][key]):.2f}" if key in to_any[b]
                             else '-' for b in (0, 1))
        print(f"{' '.join(key)}  {speedup(seconds, key)}  pk {speedup(packed, key)}  "
              f"x any {versus}  {kernel[0][key]} -> {kernel[1][key]}")


if __name__ == '__main__':
    main()
