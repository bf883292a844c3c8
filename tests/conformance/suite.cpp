#include "tests/conformance/suite.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace dlk::conformance {

namespace {

struct Settings {
  uint64_t seed = 1;
  int random_cases = 40;
  std::string only_case;  // "<suite>/<index>", empty for all
  std::vector<std::string> errors;
};

bool parse_integer(const char *name, int64_t lo, int64_t hi, int64_t &value,
                   std::vector<std::string> &errors) {
  const char *text = std::getenv(name);
  if (!text) return false;
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    errors.push_back(std::string(name) + "='" + text + "': expected an integer from " +
                     std::to_string(lo) + " to " + std::to_string(hi));
    return false;
  }
  value = v;
  return true;
}

const Settings &settings() {
  static const Settings s = [] {
    Settings r;
    int64_t v = 0;
    if (parse_integer("DLK_CONFORMANCE_SEED", 0, INT64_MAX, v, r.errors)) r.seed = static_cast<uint64_t>(v);
    if (parse_integer("DLK_CONFORMANCE_RANDOM", 0, 1000000, v, r.errors)) r.random_cases = static_cast<int>(v);
    if (const char *only = std::getenv("DLK_CONFORMANCE_CASE")) r.only_case = only;
    return r;
  }();
  return s;
}

const std::string &executable_path() {
  static const std::string path = [] {
    char buffer[4096];
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("conformance_test");
  }();
  return path;
}

std::string types_name(const OpTypes &t) {
  return std::string(dlk_op_name(t.op)) + " " + dlk_dtype_name(t.a) + ":" + dlk_dtype_name(t.b) +
         ":" + dlk_dtype_name(t.c);
}

// How many failing cases a suite describes in full; the rest are counted.
constexpr int64_t kFailuresReported = 10;

}  // namespace

Suite::Suite(std::string id) : id_(std::move(id)) {
  for (const auto &e : settings().errors) FAIL_CHECK(e);
  for (const auto &e : targets().errors) FAIL_CHECK(e);
  for (const auto &s : targets().skipped) WARN(s);
}

Rng Suite::case_rng() const { return Rng(settings().seed, id_); }
int Suite::random_cases() const { return settings().random_cases; }

bool Suite::selected(size_t index) const {
  const std::string &only = settings().only_case;
  return only.empty() || only == id_ + "/" + std::to_string(index);
}

Rng Suite::data_rng(size_t index) const { return Rng(settings().seed, id_ + "/data", index); }

std::string Suite::repro(size_t index, const std::string &target) const {
  return "DLK_CONFORMANCE_SEED=" + std::to_string(settings().seed) + " DLK_CONFORMANCE_CASE=" +
         id_ + "/" + std::to_string(index) + " DLK_CONFORMANCE_BACKENDS=" + target + " " +
         executable_path() + " \"" + Catch::getResultCapture().getCurrentTestName() + "\"";
}

void Suite::run(size_t index, const std::string &problem, const OpTypes &types,
                const std::function<Verdict(const Target &)> &on_target) {
  ++cases_;
  for (const Target &target : targets().available) {
    TargetTally &tally = tallies_[target.name];
    int supported = 0;
    if (dlk_context_supports(target.context, types.op, types.a, types.b, types.c, &supported) !=
        DLK_STATUS_SUCCESS) {
      FAIL_CHECK(target.name << ": dlk_context_supports failed: " << dlk_last_error());
      continue;
    }
    if (!supported) {
      ++tally.unsupported[types_name(types)];
      continue;
    }
    // Printed with a failure below, and by Catch2 should the call crash.
    INFO("case " << id_ << "/" << index << " on " << target.name << " (seed " << settings().seed
                 << ")\n  problem: " << problem << "\n  repro: " << repro(index, target.name));
    Verdict verdict;
    try {
      verdict = on_target(target);
    } catch (const std::exception &e) {
      verdict.passed = false;
      verdict.detail = e.what();
    }
    if (verdict.passed) {
      ++tally.passed;
      if (verdict.worst_ratio > tally.worst_ratio) tally.worst_ratio = verdict.worst_ratio;
      continue;
    }
    ++tally.failed;
    if (failures_reported_++ < kFailuresReported) FAIL_CHECK(verdict.detail);
  }
}

void Suite::finish() {
  std::string summary = id_ + " (seed " + std::to_string(settings().seed) + "): " +
                        std::to_string(cases_) + " cases";
  int64_t failed = 0;
  for (const auto &entry : tallies_) {
    const TargetTally &t = entry.second;
    char line[160];
    std::snprintf(line, sizeof line, "; %s: %lld passed, %lld failed, worst error %.3g of the bound",
                  entry.first.c_str(), static_cast<long long>(t.passed),
                  static_cast<long long>(t.failed), t.worst_ratio);
    summary += line;
    failed += t.failed;
    for (const auto &u : t.unsupported)
      WARN(entry.first << ": does not implement " << u.first << ": " << u.second
                       << " cases skipped");
  }
  std::printf("%s\n", summary.c_str());
  const std::string &only = settings().only_case;
  if (cases_ == 0 && only.compare(0, id_.size() + 1, id_ + "/") == 0)
    FAIL_CHECK("DLK_CONFORMANCE_CASE=" << only << " names no case of " << id_);
  if (targets().available.empty()) WARN(id_ << ": no backend available to test");
  if (failed > kFailuresReported)
    FAIL_CHECK(failed - kFailuresReported << " more failing cases not shown");
  CHECK(failed == 0);
}

}  // namespace dlk::conformance
