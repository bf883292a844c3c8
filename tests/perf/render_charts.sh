#!/usr/bin/env bash
# Renders each kind of chart dlk-perf draws (sample figures from
# WRITE_SAMPLE_CHARTS), the charts its subcommands write with --svg (DLK_PERF run
# at its smallest sizes, 1 thread; comm needs mpirun and is left to the
# network sample) and any SVG_FILE, in headless Chromium, and checks that each
# is well-formed XML (the one thing that makes Chromium show a parse error
# instead of the picture; Python's expat parser checks it for all the files in
# one run, not a browser start per file) and that the picture is not blank: the
# PNG must be 1000x620 and at least 4x the size of a blank page rendered the
# same way (a white page compresses to a few hundred bytes; a chart with
# text and lines to tens of KiB). Skips (exit 77) without Chromium.
#   render_charts.sh WRITE_SAMPLE_CHARTS DLK_PERF [SVG_FILE...]
set -euo pipefail

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIP: Chromium is not installed (Debian package chromium); charts not rendered"
  exit 77
fi

writer=$1; dlk_perf=$2; shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$writer" "$out"
export XDG_CACHE_HOME="$out/cache" DLK_NUM_THREADS=1
quick=(--quiet --min-seconds 0.01)
"$dlk_perf" roofline --sizes 64 --dram-mib 8 "${quick[@]}" --svg "$out/cli_roofline.svg" >/dev/null
"$dlk_perf" gemm --shapes small --max-gflop 0.001 --min-samples 1 "${quick[@]}" --svg "$out/cli_gemm.svg" >/dev/null
"$dlk_perf" conv --sets lenet5 --passes fwd --min-samples 1 "${quick[@]}" --svg "$out/cli_conv.svg" >/dev/null
"$dlk_perf" pool --batches 1 --passes fwd "${quick[@]}" --svg "$out/cli_pool.svg" >/dev/null
"$dlk_perf" compress --sizes 1 --algorithms onebit,int8 "${quick[@]}" --svg "$out/cli_compress.svg" >/dev/null
"$dlk_perf" resnet50 --backend fpga_sim --passes 1 --quiet --svg "$out/cli_resnet50_fpga_sim.svg" >/dev/null
"$dlk_perf" plan --model lenet5 --batch 8 --min-seconds 0.005 --scaling 2 --quiet --svg "$out/cli_plan.svg" \
  --roofline-svg "$out/cli_plan_roofline.svg" >/dev/null
charts=()
for svg in "$out"/*.svg; do
  [ "$(basename "$svg")" = blank.svg ] || charts+=("$svg")
done
charts+=("$@")

# Root needs --no-sandbox; a private profile keeps runs independent.
browse() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$out/profile" --window-size=1000,620 "$@" 2>/dev/null
}

png_size() {  # prints "width height" from the IHDR chunk after checking the signature
  local header
  header=$(od -An -tx1 -N24 "$1" | tr -d ' \n')
  [ "${header:0:16}" = "89504e470d0a1a0a" ] || { echo "not a PNG: $1" >&2; return 1; }
  echo "$((16#${header:32:8})) $((16#${header:40:8}))"
}

malformed=$(/usr/bin/python3 -c '
import sys, xml.dom.minidom
for path in sys.argv[1:]:
    try:
        xml.dom.minidom.parse(path)
    except Exception as error:
        print(path, error)
' "${charts[@]}")
browse --screenshot="$out/blank.png" "file://$out/blank.svg"
blank_bytes=$(stat -c %s "$out/blank.png")
status=0
for svg in "${charts[@]}"; do
  name=$(basename "$svg" .svg)
  if grep -qF "$svg " <<<"$malformed"; then
    echo "FAIL $name: not well-formed XML: $(grep -F "$svg " <<<"$malformed")"; status=1; continue
  fi
  browse --screenshot="$out/$name.png" "file://$svg"
  read -r width height < <(png_size "$out/$name.png")
  bytes=$(stat -c %s "$out/$name.png")
  if [ "$width" != 1000 ] || [ "$height" != 620 ]; then
    echo "FAIL $name: rendered ${width}x${height}, expected 1000x620"; status=1
  elif [ "$bytes" -lt $((4 * blank_bytes)) ]; then
    echo "FAIL $name: PNG of $bytes bytes is blank (a white page gives $blank_bytes)"; status=1
  else
    echo "ok $name: ${width}x${height}, $bytes bytes PNG (blank page: $blank_bytes)"
  fi
done
exit $status
