// libFuzzer target: dlk-train's IDX reader (examples/train/idx_reader.cpp), the
// parser of the dataset files a user points --data at. The fuzzer's bytes are
// parsed as they are, and, on every other input, gzip-compressed first so that
// the header and size checks are reached through the inflate path too. Every
// input must parse or be refused with IdxError naming the file; a parsed array
// holds exactly its dimensions' product of bytes.
#include <zlib.h>

#include <cstdint>
#include <vector>

#include "examples/train/idx_reader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

std::vector<uint8_t> gzip(const uint8_t *data, size_t size) {
  z_stream zs{};
  dlk_fuzz::require(deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::vector<uint8_t> out(deflateBound(&zs, size));
  zs.next_in = const_cast<Bytef *>(data);
  zs.avail_in = static_cast<uInt>(size);
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  dlk_fuzz::require(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

void parse(const uint8_t *data, size_t size) {
  try {
    const dlk_train::IdxArray a = dlk_train::parse_idx(data, size, "f", 1 << 20);
    uint64_t n = 1;
    for (const uint32_t d : a.dims) n *= d;
    dlk_fuzz::require(!a.dims.empty() && n == a.data.size());
  } catch (const dlk_train::IdxError &e) {
    dlk_fuzz::require(std::string(e.what()).rfind("f: ", 0) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 0 && data[0] % 2 == 1) {
    const std::vector<uint8_t> z = gzip(data + 1, size - 1);
    parse(z.data(), z.size());
  } else {
    parse(data, size);
  }
  return 0;
}
