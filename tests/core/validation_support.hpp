// What every validation test needs: the one check of a rejected call (status and
// "<call>: argument '<name>' <rule>"), buffers that prove a failed call left them
// untouched, a way to store out-of-range enum values, and a context that the
// environment of the test run cannot change.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "dlk/dlk.h"

namespace dlk_test {

// The status names read better than numbers when a check fails.
inline std::string status_name(dlk_status status) { return dlk_status_name(status); }

// The call failed with `expected` (DLK_STATUS_INVALID_ARGUMENT unless the rule
// says otherwise) and dlk_last_error() names the call and the argument, followed
// by the rule.
inline void expect_rejected(dlk_status status, const std::string &call, const std::string &argument,
                            dlk_status expected = DLK_STATUS_INVALID_ARGUMENT) {
  const std::string message = dlk_last_error();
  const std::string prefix = call + ": argument '" + argument + "' ";
  INFO("dlk_last_error(): " << message);
  CHECK(status_name(status) == status_name(expected));
  CHECK_THAT(message, Catch::StartsWith(prefix));
  CHECK(message.size() > prefix.size());  // the rule follows the argument
}

// Runs one rule of a table: a valid call (rule.base) with one thing broken
// (rule.edit) must be rejected by `call`, naming rule.argument, and leave every
// output untouched. Args has run(context, call) and untouched().
template <class Args, class Rule, class Call, class CallName>
void expect_rule_rejected(dlk_context_t context, const Rule &rule, Call call, CallName call_name) {
  INFO("broken: " << rule.broken << ", call: " << call_name(call));
  Args args;
  rule.base(args);
  rule.edit(args);
  expect_rejected(args.run(context, call), call_name(call), rule.argument);
  CHECK(args.untouched());
}

// Every rule of a table on every call it lists (rule.calls).
template <class Args, class Rule, class CallName>
void expect_rules_rejected_by_their_calls(dlk_context_t context, const std::vector<Rule> &rules,
                                          CallName call_name) {
  for (const Rule &rule : rules)
    for (auto call : rule.calls) expect_rule_rejected<Args>(context, rule, call, call_name);
}

// The call succeeded and left no message behind.
inline void expect_success(dlk_status status) {
  INFO("dlk_last_error(): " << dlk_last_error());
  CHECK(status_name(status) == status_name(DLK_STATUS_SUCCESS));
  CHECK(std::string(dlk_last_error()).empty());
}

// Host memory filled with a byte pattern that no op writes by chance.
class SentinelBuffer {
 public:
  static constexpr unsigned char kPattern = 0xA5;
  explicit SentinelBuffer(size_t bytes = 1 << 16) : bytes_(bytes, kPattern) {}
  unsigned char *data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  bool untouched() const {
    return std::all_of(bytes_.begin(), bytes_.end(), [](unsigned char b) { return b == kPattern; });
  }

 private:
  std::vector<unsigned char> bytes_;
};

// Stores an int in an enum field the way a C caller can; the test never reads
// the field back as the enum type (that would be undefined behaviour in C++).
template <class Enum>
void store_int(Enum &field, int value) {
  static_assert(sizeof(Enum) == sizeof(int), "the enums of dlk.h are int-sized");
  std::memcpy(&field, &value, sizeof value);
}

// A CPU context configured entirely from code (code wins over DLK_*), so a test
// sees the same context whatever the environment of the run says.
class TestContext {
 public:
  explicit TestContext(int verbose = 0) {
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cpu";
    options.num_threads = 1;
    options.verbose = verbose;
    const dlk_status status = dlk_context_create(&context_, &options);
    INFO("dlk_last_error(): " << dlk_last_error());
    REQUIRE(status == DLK_STATUS_SUCCESS);
  }
  ~TestContext() { dlk_context_destroy(context_); }
  TestContext(const TestContext &) = delete;
  TestContext &operator=(const TestContext &) = delete;
  dlk_context_t get() const { return context_; }

 private:
  dlk_context_t context_ = nullptr;
};

}  // namespace dlk_test
