#include "tests/conformance/verdict.hpp"

#include <algorithm>

namespace dlk::conformance {

void Checker::fail(const std::string &finding) {
  verdict_.passed = false;
  verdict_.detail += finding;
  if (finding.empty() || finding.back() != '\n') verdict_.detail += '\n';
}

void Checker::status(const char *call, dlk_status status) {
  if (status != DLK_STATUS_SUCCESS)
    fail(std::string(call) + " returned " + dlk_status_name(status) + ": " + dlk_last_error());
}

void Checker::output(const char *name, const DeviceBuffer &buffer, const Expected &expected,
                     const ElementName &element) {
  if (!verdict_.passed) return;  // the call failed: its outputs mean nothing
  const Comparison c = compare(buffer.download(), expected, element);
  verdict_.worst_ratio = std::max(verdict_.worst_ratio, c.worst_ratio);
  if (c.mismatches > 0)
    fail(std::string(name) + ": " + std::to_string(c.mismatches) + " of " +
         std::to_string(expected.size()) + " elements wrong:\n" + c.report);
  if (!buffer.guards_intact()) fail(std::string(name) + ": written outside the tensor");
}

void Checker::input(const char *name, const DeviceBuffer &buffer) {
  if (!buffer.unchanged()) fail(std::string(name) + ": input modified by the call");
  if (!buffer.guards_intact()) fail(std::string(name) + ": written outside the tensor");
}

}  // namespace dlk::conformance
