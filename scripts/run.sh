#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root): installs the Debian
# packages dlk needs when they are missing, builds, then runs what is asked.
#   scripts/run.sh report     build, then print dlk-perf's report: ceilings, a point per op,
#                             dtype and backend beside its peer, codecs, all-reduce, verdict
#   scripts/run.sh roofline   build, then print dlk-perf's roofline report of the default backend
#   scripts/run.sh test       build and run every test: Release (-Werror), ASan+UBSan, TSan
#                             (threads), fuzzers
# Build trees go to build/<name> under the source tree; re-runs are incremental.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)

packages=(
  g++ cmake ninja-build pkg-config
  libopenblas-dev libblas-dev libdnnl-dev libopenmpi-dev openmpi-bin libhwloc-dev
  libxsimd-dev catch2 libcli11-dev nlohmann-json3-dev libfmt-dev
  clang libclang-rt-14-dev libomp-dev
  iproute2  # scripts/netbed.sh (ip netns, tc)
  zlib1g-dev dataset-fashion-mnist  # dlk-train (examples/train) and its tests
  python3-torch python3-numpy  # examples/train/torch_peer.py, the PyTorch peer, and its test
  python3  # tests/docs/links_test.py (README and docs links)
  abigail-tools  # tests/abi: abidw/abidiff compare each library's ABI with tests/abi/*.abi
  chromium  # tests/perf/render_charts.sh renders every chart (perf:charts_render_in_chromium)
  python3-pytest python3-pip python3-venv python3-setuptools python3-wheel  # python/: the dlk package's tests, pip install ./python
)

install_missing_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "== installing ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# configure <build dir> [cmake args...]
configure() {
  local dir=$1; shift
  cmake -S "$root" -B "$root/build/$dir" -G Ninja -DDLK_WERROR=ON "$@" >/dev/null
}

# The sanitized builds: -O1 with line tables only (-g1) is what a sanitizer's
# report needs (file:line in every frame) and builds in about 60 % of the CPU time
# of RelWithDebInfo's -O2 -g, which set CI's length.
sanitized=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")

# Build output goes to stderr, so that `scripts/run.sh report --json | ...` gets JSON alone.
build() { cmake --build "$root/build/$1" -j "$jobs" -- "${@:2}" >&2; }

# A skipped test fails the run unless it needs a GPU (label gpu): scripts/no_skips.sh.
run_tests() {
  local dir=$1; shift
  echo "== tests: $dir"
  local logs
  logs=$(mktemp -d)
  local status=0
  (cd "$root/build/$dir" && ctest --output-on-failure -j "$jobs" "$@" | tee "$logs/ctest" &&
    ctest -N -L '^gpu$' "$@" > "$logs/gpu" && "$root/scripts/no_skips.sh" "$logs/ctest" "$logs/gpu") ||
    status=$?
  rm -rf "$logs"
  return $status
}

# dlk-perf <subcommand> [args...], built first.
cmd_perf() {
  configure release -DCMAKE_BUILD_TYPE=Release
  build release dlk-perf
  "$root/build/release/perf/dlk-perf" "$@"
}

cmd_test() {
  local start=$SECONDS
  configure release -DCMAKE_BUILD_TYPE=Release
  build release
  run_tests release

  # Sanitizers: the whole suite again under ASan and UBSan.
  configure asan "${sanitized[@]}" -DDLK_SANITIZE=address,undefined -DDLK_BUILD_PERF=OFF
  build asan
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests asan

  # ThreadSanitizer: both libraries from several threads (threads_test). OpenMP
  # stays at one thread: libgomp is not built for TSan, which would report its
  # internal synchronisation as races.
  configure tsan "${sanitized[@]}" -DDLK_SANITIZE=thread -DDLK_BUILD_PERF=OFF
  build tsan threads_test
  OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 run_tests tsan -R '^threads_test:'

  # Fuzzers: libFuzzer needs clang; each runs for a bounded time. The whole tree is
  # built with ASan, UBSan and coverage, but only the fuzzers are built.
  CC=clang CXX=clang++ configure fuzz "${sanitized[@]}" -DDLK_BUILD_FUZZERS=ON \
    -DDLK_SANITIZE=address,undefined -DDLK_BUILD_PERF=OFF
  build fuzz dlk_fuzzers
  run_tests fuzz -L fuzz
  echo "== all tests passed in $((SECONDS - start)) s"
}

case "${1:-}" in
  report | roofline) install_missing_packages; cmd_perf "$@" ;;
  test) shift; install_missing_packages; cmd_test "$@" ;;
  *) echo "usage: $0 report|roofline|test" >&2; exit 2 ;;
esac
