// The outcome of one case on one target, gathered from every buffer of the call.
#pragma once

#include <string>

#include "tests/conformance/device_buffer.hpp"
#include "tests/conformance/expected.hpp"

namespace dlk::conformance {

struct Verdict {
  bool passed = true;
  std::string detail;      // what went wrong, one line per finding
  double worst_ratio = 0;  // largest |error| / bound over the float results
};

// Collects the findings of one call: call with each buffer after the op ran.
class Checker {
 public:
  // The op's status: anything but success fails the case with dlk's message.
  void status(const char *call, dlk_status status);
  // The output must hold `expected` and nothing outside it may be written.
  void output(const char *name, const DeviceBuffer &buffer, const Expected &expected,
              const ElementName &element);
  // The input must come back unchanged, and nothing around it written.
  void input(const char *name, const DeviceBuffer &buffer);

  // Any other finding that fails the case.
  void fail(const std::string &finding);

  const Verdict &verdict() const { return verdict_; }

 private:
  Verdict verdict_;
};

}  // namespace dlk::conformance
