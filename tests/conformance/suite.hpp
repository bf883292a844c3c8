// The conformance driver's loop, in the manner of benchdnn: a suite is a seeded,
// reproducible list of cases; each case runs on every target; a failure prints
// the problem, what was wrong and a repro line that reruns just that case.
//
// Environment (read once):
//   DLK_CONFORMANCE_SEED=<n>            seed of the random cases and data (default 1)
//   DLK_CONFORMANCE_RANDOM=<n>          random cases per suite, on top of the fixed ones (default 40)
//   DLK_CONFORMANCE_CASE=<suite>/<i>    run only that case
//   DLK_CONFORMANCE_BACKENDS=<a,b>      run only these targets (see targets.hpp)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/conformance/rng.hpp"
#include "tests/conformance/targets.hpp"
#include "tests/conformance/verdict.hpp"

namespace dlk::conformance {

// The op and types a case needs, as dlk_context_supports takes them.
struct OpTypes {
  dlk_op op;
  dlk_dtype a, b, c;
};

class Suite {
 public:
  // id names the suite in case ids and repro lines ("gemm.f32").
  explicit Suite(std::string id);

  // The generator of the suite's case list.
  Rng case_rng() const;
  int random_cases() const;

  // Whether case `index` runs (all do unless DLK_CONFORMANCE_CASE picks one).
  bool selected(size_t index) const;
  // The generator of case `index`'s data, the same whichever cases run.
  Rng data_rng(size_t index) const;

  // Runs case `index` on every target that implements `types`.
  void run(size_t index, const std::string &problem, const OpTypes &types,
           const std::function<Verdict(const Target &)> &on_target);

  // Reports the counts and the skips; fails the test case if any case failed.
  void finish();

 private:
  struct TargetTally {
    int64_t passed = 0, failed = 0;
    double worst_ratio = 0;
    std::map<std::string, int64_t> unsupported;  // "gemm bf16:bf16:f32" -> cases skipped
  };

  std::string repro(size_t index, const std::string &target) const;

  std::string id_;
  int64_t cases_ = 0;
  int64_t failures_reported_ = 0;
  std::map<std::string, TargetTally> tallies_;
};

}  // namespace dlk::conformance
