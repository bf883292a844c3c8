// The last-error storage both libraries use (common/message_buffer.hpp): a
// message too long for it keeps its start and its end (where the valid values are).
#include <catch2/catch.hpp>

#include <string>

#include "common/message_buffer.hpp"

TEST_CASE("message buffer: short messages are kept whole", "[env]") {
  dlk::MessageBuffer buffer;
  CHECK(std::string(buffer.c_str()).empty());
  buffer.store("dlk_gemm: argument 'm' is -1; must be >= 0");
  CHECK(std::string(buffer.c_str()) == "dlk_gemm: argument 'm' is -1; must be >= 0");
  buffer.store(std::string(4095, 'a'));
  CHECK(std::string(buffer.c_str()) == std::string(4095, 'a'));
}

TEST_CASE("message buffer: a long message keeps its start and its end", "[env]") {
  dlk::MessageBuffer buffer;
  const std::string message = "call: argument 'x' has value '" + std::string(10000, 'v') +
                              "'; valid values: a, b, c";
  buffer.store(message);
  const std::string stored = buffer.c_str();
  CHECK(stored.size() == 4095);
  CHECK_THAT(stored, Catch::StartsWith("call: argument 'x' has value 'vvv"));
  CHECK_THAT(stored, Catch::Contains("vvv ... vvv"));
  CHECK_THAT(stored, Catch::EndsWith("'; valid values: a, b, c"));
}
