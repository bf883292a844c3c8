// libFuzzer target: the device codecs' entry points of libdlk
// (dlk_device_codec.h) on a cpu context, which has no device codecs, so that every
// call must end in a refusal: a message from the fuzzer's bytes (now and then
// under a header sealed with a correct checksum, so the checks past it are
// reached) for dlk_codec_decode and dlk_codec_decode_add, parameters and counts
// for dlk_codec_encode and dlk_codec_max_message_size. Buffers are guarded; a
// refused call must name itself and leave its outputs untouched.
#include <cstdint>
#include <cstring>
#include <string>

#include "compression/crc32c.hpp"
#include "dlk/dlk_device_codec.h"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

void check_refused(const char *call, dlk_status status) {
  require(status != DLK_STATUS_SUCCESS);
  require(std::string(dlk_last_error()).rfind(std::string(call) + ": ", 0) == 0);
}

void put_u64(uint8_t *at, uint64_t v) { std::memcpy(at, &v, 8); }
void put_u32(uint8_t *at, uint32_t v) { std::memcpy(at, &v, 4); }

void fuzz_decode(Bytes &in, bool add) {
  const size_t size = in.u8() % 2 ? in.u8() : size_t(in.u8()) * 17;
  GuardedBuffer message(size);
  in.fill(message.data(), size);
  if (size >= DLK_CODEC_HEADER_SIZE && in.flag()) {
    // A header a sender could have written: magic, version 1, then fields from the bytes.
    std::memcpy(message.data(), "DLKC", 4);
    message.data()[4] = 1;
    message.data()[5] = 0;
    message.data()[6] = static_cast<uint8_t>(1 + in.u8() % 6);
    message.data()[7] = 0;
    put_u64(message.data() + 8, in.u8() % 4 ? in.u8() : uint64_t(in.u8()) << (in.u8() % 50));
    put_u64(message.data() + 16, in.flag() ? size - DLK_CODEC_HEADER_SIZE : in.u8());
    put_u32(message.data() + 24, in.flag() ? 16u * (in.u8() % 4) : in.u8());
    put_u32(message.data() + 28, dlk::codec::crc32c(message.data(), 28));
  }
  uint64_t count = 0;
  std::memcpy(&count, message.data() + (size >= 16 ? 8 : 0), size >= 16 ? 8 : 0);
  if (in.flag() || count > 4096) count = in.u8();
  GuardedBuffer output(4 * count);
  output.poison();
  auto *out = reinterpret_cast<float *>(output.data());
  const char *call = add ? "dlk_codec_decode_add" : "dlk_codec_decode";
  const dlk_status status = add ? dlk_codec_decode_add(context(), message.data(), size, out, count)
                                : dlk_codec_decode(context(), message.data(), size, out, count);
  check_refused(call, status);
  require(output.poisoned());
}

void fuzz_encode(Bytes &in) {
  // Filled by hand: this target links libdlk's objects, not libdlk_compress
  // (dlk_compress_params_init), as a program using only dlk_device_codec.h may.
  dlk_codec_params params{};
  const int algorithm = in.u8() % 8;  // 1..6 valid; 0 and 7 stored as a C caller may
  std::memcpy(&params.algorithm, &algorithm, sizeof algorithm);
  params.block_size = 16u * (in.u8() % 8) + (in.flag() ? in.u8() % 16 : 0);
  params.topk_fraction = in.flag() ? 0.01 : double(in.u8()) / 128;
  const int rounding = in.u8() % 3;  // 2: not a rounding
  std::memcpy(&params.rounding, &rounding, sizeof rounding);
  if (in.flag()) params.topk_count = in.u8();
  const uint64_t count = in.flag() ? in.u8() : uint64_t(in.u8()) << (in.u8() % 50);
  size_t bytes = 0;
  const dlk_status sized = dlk_codec_max_message_size(&params, count, &bytes);
  if (sized != DLK_STATUS_SUCCESS) check_refused("dlk_codec_max_message_size", sized);
  const uint64_t elements = count > 4096 ? 4096 : count;
  GuardedBuffer input(4 * elements), residual(4 * elements), message(in.u8());
  residual.poison();
  message.poison();
  const dlk_status status = dlk_codec_encode(
      context(), &params, reinterpret_cast<const float *>(input.data()),
      in.flag() ? reinterpret_cast<float *>(residual.data()) : nullptr, count, message.data(),
      in.flag() ? message.size() : bytes, &bytes);
  check_refused("dlk_codec_encode", status);
  require(residual.poisoned() && message.poisoned());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  switch (in.u8() % 3) {
    case 0: fuzz_decode(in, false); break;
    case 1: fuzz_decode(in, true); break;
    default: fuzz_encode(in);
  }
  return 0;
}
