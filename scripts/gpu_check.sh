#!/usr/bin/env bash
# scripts/gpu_check.sh <build dir> <log dir> [total seconds]
#
# Every check of the cuda backend that needs a GPU, in one run, for a machine
# that has one but no Debian packages: the build directory was built elsewhere
# with -DDLK_WITH_CUDA=ON and carried here, and the caller has set
# LD_LIBRARY_PATH so that libdlk*, the CUDA runtime, cuBLAS(Lt), cuDNN and the
# Debian libraries dlk-perf needs are found. Test programs run directly (no
# ctest). Each step has a time limit, cut further so that the whole run stays
# within [total seconds] (default 330); its output goes to <log dir>/<step>.log
# and one summary line per step to stdout and <log dir>/summary.txt.
#
# The build directory may be a CMake build tree (tests/..., perf/dlk-perf) or a
# flat folder of the programs (bin/ or the folder itself).
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 <build dir> <log dir> [total seconds]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
logs=$2
total=${3:-330}
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
summary=$logs/summary.txt
: > "$summary"
start=$SECONDS
failed=0

# The path of a program of the build: tree layout first, then flat.
program() {
  local name=$1 rel
  for rel in "tests/conformance/$name" "tests/cuda/$name" "perf/$name" "bin/$name" "$name"; do
    if [ -x "$build/$rel" ]; then
      echo "$build/$rel"
      return 0
    fi
  done
  return 1
}

# step [--expect-failure] <name> <seconds> <command...>: runs it with a limit,
# logs it, says how it went.
step() {
  local expect_failure=0
  if [ "$1" = --expect-failure ]; then
    expect_failure=1
    shift
  fi
  local name=$1 limit=$2
  shift 2
  local left=$((total - (SECONDS - start)))
  if [ "$left" -lt 5 ]; then
    echo "== $name: SKIPPED: the run's $total s are spent" | tee -a "$summary"
    failed=1
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local begin=$SECONDS rc verdict=ok
  timeout --kill-after=5 "$limit" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    verdict="TIMED OUT after $limit s"
  elif [ $expect_failure -eq 1 ]; then
    [ $rc -ne 0 ] && verdict="failed, as expected (rc=$rc)" || verdict="passed, though expected to fail"
  elif [ $rc -ne 0 ]; then
    verdict="FAILED rc=$rc"
  fi
  case $verdict in ok | "failed, as expected"*) ;; *) failed=1 ;; esac
  echo "== $name: $verdict, $((SECONDS - begin)) s :: $(tail -n 3 "$logs/$name.log" | tr '\n' ' ' | cut -c1-240)" |
    tee -a "$summary"
}

# run_program [--expect-failure] <name> <seconds> [VAR=value...] <program> [args...]:
# as step, for a program of the build, with the variables set.
run_program() {
  local flag=()
  if [ "$1" = --expect-failure ]; then
    flag=(--expect-failure)
    shift
  fi
  local name=$1 limit=$2
  shift 2
  local vars=()
  while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
    vars+=("$1")
    shift
  done
  local path
  if ! path=$(program "$1"); then
    echo "== $name: MISSING: no $1 in $build" | tee -a "$summary"
    failed=1
    return
  fi
  shift
  step "${flag[@]}" "$name" "$limit" env "${vars[@]}" "$path" "$@"
}

export DLK_CONFORMANCE_BACKENDS=cuda
echo "gpu_check: build $build, logs $logs, $total s in all, $(date -u +%FT%TZ)" | tee -a "$summary"

step nvidia_smi 10 nvidia-smi
# The host-side logic, then the GPU: pointers, routes, errors (cuda_device_test)
# and the device codecs against libdlk_compress byte for byte (cuda_codec_test).
run_program cuda_host_logic 15 cuda_host_logic_test
run_program cuda_device 30 cuda_device_test
run_program cuda_codec 45 cuda_codec_test

# The conformance suite on the cuda backend (docs/cuda.md, "What a GPU session must run").
run_program conf_gemm 45 conformance_test '[gemm]'
run_program conf_pool 25 conformance_test '[pool2d]'
# Deterministic (the default) takes 38 s on an H100: some 16-bit shapes' first heuristic call
# takes 2-3 s (docs/cuda_h100.md); the timed search with DLK_CUDA_DETERMINISTIC=0 about 4 s.
run_program conf_conv 90 DLK_VERBOSE=1 conformance_test '[conv2d]'
run_program conf_conv_nondeterministic 30 DLK_CUDA_DETERMINISTIC=0 conformance_test '[conv2d]'
run_program conf_conv_im2col 20 DLK_CUDA_CONV=im2col conformance_test '[conv2d][forward]'

# dlk-perf: the measured ceilings, dlk against cuBLASLt / cuDNN called directly,
# the device codecs against the device's copy bandwidth.
run_program perf_roofline 35 dlk-perf roofline --backend cuda --sizes 1024,4096 --min-seconds 0.2
run_program perf_gemm 40 dlk-perf gemm --backend cuda --dtypes f32,bf16,int8 --shapes square,transformer \
  --min-seconds 0.05 --min-samples 3 --max-seconds 1
run_program perf_conv 40 dlk-perf conv --backend cuda --dtypes f32,bf16 --sets resnet50_3x3 --batches 32 \
  --passes fwd,bwd_data,bwd_weights --min-seconds 0.05 --min-samples 3
run_program perf_compress 40 dlk-perf compress --backend cuda --min-seconds 0.2

# What the verbose lines say each int8 route ran; TF32 outside the f32 bound.
run_program conf_gemm_int8_verbose 25 DLK_VERBOSE=2 DLK_BACKEND=cuda conformance_test '[gemm][int8]'
run_program --expect-failure conf_gemm_tf32 20 DLK_CUDA_TF32=1 conformance_test '[gemm][f32]'

echo "gpu_check: $((SECONDS - start)) s in all; $( [ $failed -eq 0 ] && echo 'every step ok' || echo 'some steps did not pass (see above)')" |
  tee -a "$summary"
exit $failed
