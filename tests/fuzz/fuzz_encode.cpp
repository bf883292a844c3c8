// libFuzzer target: the encode side of libdlk_compress. Parameters, element count
// and input (any float bit pattern) come from the fuzzer's bytes; input, residual
// and message sit in guarded buffers sized from them, the message capacity being
// dlk_compress_max_message_size or, now and then, less. A failed encode must
// leave message and residual untouched and say why; a successful one must fit
// the capacity, inspect and decode back, and leave the error-feedback residual
// (input + old residual) - decode(message), bit for bit where that sum is finite.
#include <cmath>
#include <vector>

#include "dlk/dlk_compress.h"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

bool same_float(float x, float y) {
  return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  dlk_codec_params params;
  const int algorithm = in.u8() % 8;  // 1..6 valid; 0 and 7 not, stored as a C caller may
  require(dlk_compress_params_init(&params, static_cast<dlk_codec_algorithm>(
                                                algorithm % 7 ? algorithm : 1)) == DLK_CODEC_SUCCESS);
  std::memcpy(&params.algorithm, &algorithm, sizeof algorithm);
  if (in.flag()) params.block_size = uint32_t(in.dim());
  if (in.flag()) {
    const int rounding = in.u8() % 3;
    std::memcpy(&params.rounding, &rounding, sizeof rounding);
  }
  params.seed = in.u8(), params.step = in.u8(), params.rank = in.u8();
  if (in.flag()) {
    const int selection = in.u8() % 3;
    std::memcpy(&params.topk_selection, &selection, sizeof selection);
  }
  if (in.flag()) params.topk_count = uint64_t(in.dim());
  if (in.flag()) params.topk_fraction = double(in.real());

  const int64_t wanted = in.flag() ? saturated(in.dim(), 97) / 2 + in.u8() : in.dim();
  const uint64_t count = wanted < 0 ? uint64_t(0) - uint64_t(wanted) : uint64_t(wanted);
  size_t max_size = 0;
  const dlk_codec_status sized = dlk_compress_max_message_size(&params, count, &max_size);
  Buffers buffers(in);
  const int64_t float_bytes = count > uint64_t(1) << 22 ? -1 : int64_t(count) * 4;
  float *input = reinterpret_cast<float *>(buffers.input(float_bytes));
  float *residual = in.flag() ? reinterpret_cast<float *>(buffers.input(float_bytes)) : nullptr;
  size_t capacity = sized == DLK_CODEC_SUCCESS ? max_size : 64;
  if (in.u8() >= 224 && capacity > 0) capacity -= 1 + in.u8() % capacity;
  uint8_t *message = buffers.output(capacity > size_t(kMaxBufferBytes) ? -1 : int64_t(capacity));
  if (buffers.must_fail()) {
    // Too big to run: the call gets NULL buffers and must refuse them.
    const dlk_codec_status status =
        dlk_compress_encode(&params, nullptr, nullptr, count, nullptr, capacity, &max_size);
    require(status != DLK_CODEC_SUCCESS || count == 0);
    return 0;
  }
  const size_t n = size_t(count);
  std::vector<float> old_residual(residual ? residual : input, residual ? residual + n : input);
  size_t written = ~size_t(0);
  const dlk_codec_status status =
      dlk_compress_encode(&params, input, residual, count, message, capacity, &written);
  if (status != DLK_CODEC_SUCCESS) {
    require(buffers.outputs_untouched());
    require(!residual || n == 0 || std::memcmp(residual, old_residual.data(), 4 * n) == 0);
    require(std::string(dlk_compress_last_error()).rfind("dlk_compress_encode: ", 0) == 0);
    return 0;
  }
  require(sized == DLK_CODEC_SUCCESS && written <= capacity && written <= max_size);
  dlk_codec_message_info info;
  require(dlk_compress_inspect(message, written, &info) == DLK_CODEC_SUCCESS);
  require(info.element_count == count && info.message_size == written);
  std::vector<float> decoded(n + 1);
  require(dlk_compress_decode(message, written, decoded.data(), count) == DLK_CODEC_SUCCESS);
  // The identity where v is finite (topk keeps 0 for a sent inf, where the formula gives NaN).
  if (residual)
    for (size_t i = 0; i < n; ++i) {
      const float v = input[i] + old_residual[i];
      if (std::isfinite(v)) require(same_float(residual[i], v - decoded[i]));
    }
  return 0;
}
