#!/usr/bin/env python3
"""A/B of two builds of libdlk on `dlk-perf conv`: the speed of a change.

  scripts/conv_ab.py [--perf build/release/perf/dlk-perf] [--rounds 3] OLD_LIB_DIR NEW_LIB_DIR \\
      -- <dlk-perf conv arguments>

Runs dlk-perf conv with LD_LIBRARY_PATH at each directory (copies of libdlk.so*
from the two builds), alternated and the order swapped each round, so that a
drift of the machine falls on both. Prints a line per point: the median over
the rounds of old time / new time (> 1: the new build is faster), the new
build's median ratio to oneDNN-any from the same runs where measured, and each
build's kernel (dlk_context_last_op)."""
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
    kernel = ({}, {})
    to_any = {}
    for r in range(opts.rounds):
        for build in ((0, 1) if r % 2 == 0 else (1, 0)):
            env = dict(os.environ, LD_LIBRARY_PATH=(opts.old, opts.new)[build])
            out = subprocess.run([opts.perf, 'conv', *conv_args, '--json'], env=env,
                                 capture_output=True, text=True, check=True).stdout
            for p in json.loads(out)['points']:
                key = (p['dtype'], p['format'], p['pass'], p['set'], p['layer'],
                       f"n={p['batch']}", f"t={p['threads']}")
                seconds[build].setdefault(key, []).append(p['dlk_seconds'])
                kernel[build][key] = p['dlk_implementation']
                if build == 1 and p.get('ratio_to_onednn_any') is not None:
                    to_any.setdefault(key, []).append(p['ratio_to_onednn_any'])
    for key, new in seconds[1].items():
        ratio = statistics.median(seconds[0][key]) / statistics.median(new)
        versus = f"{statistics.median(to_any[key]):.2f}" if key in to_any else '-'
        print(f"{' '.join(key)}  {ratio:.2f}x  x any {versus}  "
              f"{kernel[0][key]} -> {kernel[1][key]}")


if __name__ == '__main__':
    main()
