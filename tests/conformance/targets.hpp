// The backends the conformance suite runs on: every backend dlk knows, and the
// CPU backend once per ISA tier this CPU has (the contract holds on each), each
// through its own context created with the public API.
#pragma once

#include <string>
#include <vector>

#include "dlk/dlk.h"

namespace dlk::conformance {

struct Target {
  std::string name;  // "cpu", "cpu:avx2", "cpu:scalar", "cuda", "fpga_sim"
  dlk_context_t context = nullptr;
};

struct Targets {
  std::vector<Target> available;
  std::vector<std::string> skipped;  // "cuda: skipped: <reason from dlk_last_error()>"
  std::vector<std::string> errors;   // a backend that failed in a way it must not
};

// Created once per process, the first time a suite asks; DLK_CONFORMANCE_BACKENDS
// (a comma-separated list of the names above) narrows the list.
const Targets &targets();

}  // namespace dlk::conformance
