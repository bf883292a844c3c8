// libFuzzer target: dlk-train's checkpoint parser (examples/train/
// checkpoint_format.cpp), the reader of --resume files. The fuzzer's bytes are
// parsed as they are, and, on every other input, with a valid checksum appended
// so that the parser's length checks are reached past it. Every input must parse
// or be refused with CheckpointError naming the file; a parsed checkpoint
// serializes back to the same bytes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "examples/train/checkpoint_format.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

void parse(const uint8_t *data, size_t size) {
  try {
    const dlk_train::Checkpoint c = dlk_train::parse_checkpoint(data, size, "c");
    const std::vector<uint8_t> again = dlk_train::serialize_checkpoint(c);
    dlk_fuzz::require(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  } catch (const dlk_train::CheckpointError &e) {
    dlk_fuzz::require(std::string(e.what()).rfind("c: ", 0) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || data[0] % 2 == 0) {
    parse(data, size);
    return 0;
  }
  // The bytes after the first, then their FNV-1a.
  std::vector<uint8_t> sealed(data + 1, data + size);
  uint64_t h = 1469598103934665603ull;
  for (const uint8_t b : sealed) h = (h ^ b) * 1099511628211ull;
  const auto *p = reinterpret_cast<const uint8_t *>(&h);
  sealed.insert(sealed.end(), p, p + sizeof h);
  parse(sealed.data(), sealed.size());
  return 0;
}
