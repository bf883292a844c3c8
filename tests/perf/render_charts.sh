#!/usr/bin/env bash
# Renders each chart dlk-perf draws in headless Chromium and checks that the
# browser took it as well-formed SVG and that the picture is not blank: the
# PNG must be 1000x620 and at least 4x the size of a blank page rendered the
# same way (a white page compresses to a few hundred bytes; a chart with
# text and lines to tens of KiB). Skips (exit 77) without Chromium.
#   render_charts.sh WRITE_SAMPLE_CHARTS [SVG_FILE...]
set -euo pipefail

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIP: Chromium is not installed (Debian package chromium); charts not rendered"
  exit 77
fi

writer=$1; shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$writer" "$out"
charts=("$out/roofline.svg" "$out/network.svg" "$@")

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

browse --screenshot="$out/blank.png" "file://$out/blank.svg"
blank_bytes=$(stat -c %s "$out/blank.png")
status=0
for svg in "${charts[@]}"; do
  name=$(basename "$svg" .svg)
  if browse --dump-dom "file://$svg" | grep -q parsererror; then
    echo "FAIL $name: Chromium reports an XML parse error"; status=1; continue
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
