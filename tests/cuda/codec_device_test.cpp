// The device codecs (include/dlk/dlk_device_codec.h) on a real GPU against
// libdlk_compress on the host: for every codec the cuda backend runs, on the same
// input, the message must be the CPU's byte for byte, the residual and the decoded
// (and decoded-and-added) values the CPU's bit for bit. A failure names the codec,
// the parameters, the count and the first byte or element that differs, with both
// values, so that one GPU run says what is wrong. Every case skips, saying why,
// where no cuda context can be created.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_context.hpp"
#include "dlk/dlk.h"
#include "dlk/dlk_compress.h"
#include "dlk/dlk_device_codec.h"

namespace {

using dlk::cuda_test::CudaContext;

// Device memory of `bytes` bytes (at least 1), freed with the object.
class DeviceBuffer {
 public:
  DeviceBuffer(dlk_context_t context, size_t bytes) : context_(context), bytes_(bytes) {
    REQUIRE(dlk_malloc(context, bytes ? bytes : 1, &ptr_) == DLK_STATUS_SUCCESS);
  }
  ~DeviceBuffer() { dlk_free(context_, ptr_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  template <class T>
  T *as() const {
    return static_cast<T *>(ptr_);
  }
  void upload(const void *host, size_t bytes, size_t offset = 0) {
    if (bytes == 0) return;
    REQUIRE(dlk_memcpy(context_, static_cast<char *>(ptr_) + offset, host, bytes, DLK_COPY_HOST_TO_DEVICE) ==
            DLK_STATUS_SUCCESS);
  }
  template <class T>
  std::vector<T> download(size_t count, size_t offset = 0) const {
    std::vector<T> out(count);
    if (count)
      REQUIRE(dlk_memcpy(context_, out.data(), static_cast<const char *>(ptr_) + offset, count * sizeof(T),
                         DLK_COPY_DEVICE_TO_HOST) == DLK_STATUS_SUCCESS);
    return out;
  }

 private:
  dlk_context_t context_;
  size_t bytes_;
  void *ptr_ = nullptr;
};

std::string hex32(uint32_t bits) {
  std::ostringstream s;
  s << "0x" << std::hex << bits;
  return s.str();
}

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Where byte `offset` of a message lies: header, per-block data or element codes.
std::string message_region(const dlk_codec_params &p, uint64_t count, size_t offset) {
  if (offset < DLK_CODEC_HEADER_SIZE) return "header byte " + std::to_string(offset);
  const size_t at = offset - DLK_CODEC_HEADER_SIZE;
  if (p.algorithm == DLK_CODEC_FP16 || p.algorithm == DLK_CODEC_BF16)
    return "element " + std::to_string(at / 2);
  const uint64_t blocks = (count + p.block_size - 1) / p.block_size;
  const unsigned per_block = p.algorithm == DLK_CODEC_ONEBIT ? 8 : 4;
  if (at < blocks * per_block) {
    const char *what = p.algorithm != DLK_CODEC_ONEBIT ? "scale" : (at % 8 < 4 ? "positive mean" : "negative mean");
    return std::string(what) + " of block " + std::to_string(at / per_block);
  }
  const size_t code = at - blocks * per_block;
  const unsigned per_byte = p.algorithm == DLK_CODEC_ONEBIT ? 8 : p.algorithm == DLK_CODEC_INT4 ? 2 : 1;
  return "codes of elements " + std::to_string(code * per_byte) + ".." + std::to_string(code * per_byte + per_byte - 1) +
         " (block " + std::to_string(code * per_byte / p.block_size) + ")";
}

// Empty when equal; else the first difference, described.
std::string message_difference(const dlk_codec_params &p, uint64_t count, const std::vector<uint8_t> &cpu,
                               const std::vector<uint8_t> &gpu) {
  if (cpu.size() != gpu.size())
    return "sizes differ: cpu " + std::to_string(cpu.size()) + ", gpu " + std::to_string(gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu[i] == gpu[i]) continue;
    std::ostringstream s;
    s << "first differing byte " << i << " (" << message_region(p, count, i) << "): cpu " << int(cpu[i]) << ", gpu "
      << int(gpu[i]);
    size_t differing = 0;
    for (size_t j = i; j < cpu.size(); ++j) differing += cpu[j] != gpu[j];
    s << "; " << differing << " bytes differ in all";
    return s.str();
  }
  return "";
}

std::string float_difference(const char *what, const std::vector<float> &cpu, const std::vector<float> &gpu) {
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (bits_of(cpu[i]) == bits_of(gpu[i])) continue;
    size_t differing = 0;
    for (size_t j = i; j < cpu.size(); ++j) differing += bits_of(cpu[j]) != bits_of(gpu[j]);
    std::ostringstream s;
    s << what << ": first differing element " << i << ": cpu " << cpu[i] << " (" << hex32(bits_of(cpu[i])) << "), gpu "
      << gpu[i] << " (" << hex32(bits_of(gpu[i])) << "); " << differing << " elements differ in all";
    return s.str();
  }
  return "";
}

// Inputs: gradients of a few scales, with the specials each codec has rules for.
enum class Values { normal, specials, huge };

uint64_t mix(uint64_t x) {  // splitmix64: a fast, reproducible stream for large inputs
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::vector<float> make_input(uint64_t count, Values kind, uint32_t seed) {
  std::vector<float> v(count);
  const uint64_t key = mix(seed);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t h = mix(key ^ i);
    // Uniform in (-1, 1) times 2^e, e in [-30, 9]: magnitudes as gradients have.
    const float unit = static_cast<float>(static_cast<int32_t>(h >> 32)) * 0x1p-31f;
    v[i] = std::ldexp(unit, static_cast<int>(h % 40) - 30);
  }
  if (kind == Values::specials) {
    // One NaN bit pattern only: where two NaNs meet, the CPU's result depends on
    // the compiler's operand order (docs/cuda.md), so such inputs are not compared.
    const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f, 1e-40f, -1e-45f, 65520.0f,
                              -65504.0f, 3e38f};
    for (uint64_t k = 0; k < 12 && count; ++k) v[mix(key + k) % count] = specials[k % 10];
  } else if (kind == Values::huge) {
    // Sums past FLT_MAX: onebit's rescaled means.
    for (uint64_t i = 0; i < count; ++i) v[i] = (i % 3 == 0 ? -4e35f : 4e35f) * (1.0f + float(i % 7) / 8);
  }
  return v;
}

struct Case {
  dlk_codec_algorithm algorithm;
  uint32_t block_size;  // 0: the default
  dlk_codec_rounding rounding;
};

std::string describe(const dlk_codec_params &p, uint64_t count, bool residual, Values kind) {
  std::ostringstream s;
  s << dlk_compress_algorithm_name(p.algorithm) << " block_size=" << p.block_size
    << (p.rounding == DLK_CODEC_ROUND_STOCHASTIC ? " stochastic" : "") << " count=" << count
    << (residual ? " with residual" : " no residual")
    << (kind == Values::specials ? " inf/NaN/denormals" : kind == Values::huge ? " huge" : "");
  return s.str();
}

// Encodes on both, compares message and residual; decodes (and decode-adds) the
// message on both, compares.
void compare_with_cpu(dlk_context_t context, const dlk_codec_params &params, uint64_t count, bool with_residual,
                      Values kind, uint32_t seed) {
  INFO(describe(params, count, with_residual, kind));
  const std::vector<float> input = make_input(count, kind, seed);
  std::vector<float> residual = with_residual ? make_input(count, Values::normal, seed + 1) : std::vector<float>();
  for (auto &r : residual) r *= 0.25f;
  size_t capacity = 0;
  REQUIRE(dlk_compress_max_message_size(&params, count, &capacity) == DLK_CODEC_SUCCESS);
  size_t device_capacity = 0;
  REQUIRE(dlk_codec_max_message_size(&params, count, &device_capacity) == DLK_STATUS_SUCCESS);
  CHECK(device_capacity == capacity);

  // The CPU.
  std::vector<uint8_t> cpu_message(capacity);
  std::vector<float> cpu_residual = residual;
  size_t cpu_size = 0;
  REQUIRE(dlk_compress_encode(&params, input.data(), with_residual ? cpu_residual.data() : nullptr, count,
                              cpu_message.data(), capacity, &cpu_size) == DLK_CODEC_SUCCESS);
  cpu_message.resize(cpu_size);

  // The GPU. Every other message starts at an odd address: messages may lie anywhere.
  const size_t offset = seed % 2;
  DeviceBuffer d_input(context, 4 * count), d_residual(context, 4 * count), d_message(context, capacity + 1);
  d_input.upload(input.data(), 4 * count);
  if (with_residual) d_residual.upload(residual.data(), 4 * count);
  uint8_t *message = d_message.as<uint8_t>() + offset;
  size_t gpu_size = 0;
  REQUIRE(dlk_codec_encode(context, &params, d_input.as<float>(), with_residual ? d_residual.as<float>() : nullptr,
                           count, message, capacity, &gpu_size) == DLK_STATUS_SUCCESS);
  const std::vector<uint8_t> gpu_message = d_message.download<uint8_t>(gpu_size, offset);
  CHECK(message_difference(params, count, cpu_message, gpu_message) == "");
  if (with_residual) CHECK(float_difference("residual", cpu_residual, d_residual.download<float>(count)) == "");
  CHECK(float_difference("input (must be untouched)", input, d_input.download<float>(count)) == "");

  // Decode the CPU's message on both.
  std::vector<float> cpu_decoded(count);
  REQUIRE(dlk_compress_decode(cpu_message.data(), cpu_size, cpu_decoded.data(), count) == DLK_CODEC_SUCCESS);
  DeviceBuffer d_sent(context, cpu_size + 1), d_output(context, 4 * count);
  const size_t sent_offset = 1 - offset;
  const uint8_t *sent = d_sent.as<uint8_t>() + sent_offset;
  d_sent.upload(cpu_message.data(), cpu_size, sent_offset);
  REQUIRE(dlk_codec_decode(context, sent, cpu_size, d_output.as<float>(), count) == DLK_STATUS_SUCCESS);
  CHECK(float_difference("decoded", cpu_decoded, d_output.download<float>(count)) == "");

  // Decode-and-add into an accumulator holding values and infinities of both signs.
  std::vector<float> accumulator = make_input(count, Values::normal, seed + 2);
  for (uint64_t i = 0; i < count; i += 97) accumulator[i] = (i / 97) % 2 ? INFINITY : -INFINITY;
  std::vector<float> cpu_sum = accumulator;
  REQUIRE(dlk_compress_decode_add(cpu_message.data(), cpu_size, cpu_sum.data(), count) == DLK_CODEC_SUCCESS);
  d_output.upload(accumulator.data(), 4 * count);
  REQUIRE(dlk_codec_decode_add(context, sent, cpu_size, d_output.as<float>(), count) == DLK_STATUS_SUCCESS);
  CHECK(float_difference("decode_add", cpu_sum, d_output.download<float>(count)) == "");
}

dlk_codec_params params_of(const Case &c) {
  dlk_codec_params p;
  REQUIRE(dlk_compress_params_init(&p, c.algorithm) == DLK_CODEC_SUCCESS);
  if (c.block_size) p.block_size = c.block_size;
  p.rounding = c.rounding;
  p.seed = 42;
  p.step = 7;
  p.rank = 3;
  return p;
}

const std::vector<Case> &device_cases() {
  static const std::vector<Case> cases = {
      {DLK_CODEC_ONEBIT, 0, DLK_CODEC_ROUND_NEAREST_EVEN},     // 1024: staged in shared memory
      {DLK_CODEC_ONEBIT, 16, DLK_CODEC_ROUND_NEAREST_EVEN},    // the smallest block
      {DLK_CODEC_ONEBIT, 48, DLK_CODEC_ROUND_NEAREST_EVEN},    // not a power of two
      {DLK_CODEC_ONEBIT, 4096, DLK_CODEC_ROUND_NEAREST_EVEN},  // past the stage: read twice
      {DLK_CODEC_INT8, 0, DLK_CODEC_ROUND_NEAREST_EVEN},       // 256
      {DLK_CODEC_INT8, 16, DLK_CODEC_ROUND_NEAREST_EVEN},
      {DLK_CODEC_INT8, 2064, DLK_CODEC_ROUND_NEAREST_EVEN},    // past the stage
      {DLK_CODEC_INT8, 0, DLK_CODEC_ROUND_STOCHASTIC},
      {DLK_CODEC_INT4, 0, DLK_CODEC_ROUND_NEAREST_EVEN},       // 128
      {DLK_CODEC_INT4, 48, DLK_CODEC_ROUND_NEAREST_EVEN},
      {DLK_CODEC_INT4, 1040, DLK_CODEC_ROUND_NEAREST_EVEN},    // past the stage
      {DLK_CODEC_INT4, 0, DLK_CODEC_ROUND_STOCHASTIC},
      {DLK_CODEC_FP16, 0, DLK_CODEC_ROUND_NEAREST_EVEN},
      {DLK_CODEC_BF16, 0, DLK_CODEC_ROUND_NEAREST_EVEN},
  };
  return cases;
}

}  // namespace

TEST_CASE("cuda codecs: messages, residuals and decoded values equal the CPU's bit for bit",
          "[cuda][gpu][codec]") {
  CudaContext context;
  if (context.skip()) return;
  // Odd counts, a partial last block and a partial last byte of codes, and one
  // count past a grid's first pass of tiles.
  const uint64_t counts[] = {0, 1, 7, 16, 17, 33, 1000, 4099, (uint64_t(1) << 20) + 5};
  uint32_t seed = 1;
  for (const Case &c : device_cases()) {
    const dlk_codec_params params = params_of(c);
    for (const uint64_t count : counts)
      for (const bool residual : {false, true}) compare_with_cpu(context.get(), params, count, residual, Values::normal, seed++);
  }
}

TEST_CASE("cuda codecs: inf, NaN, denormal and overflowing inputs give the CPU's bits", "[cuda][gpu][codec]") {
  CudaContext context;
  if (context.skip()) return;
  uint32_t seed = 1000;
  for (const Case &c : device_cases()) {
    const dlk_codec_params params = params_of(c);
    for (const uint64_t count : {uint64_t(50), uint64_t(5000)})
      for (const bool residual : {false, true}) {
        compare_with_cpu(context.get(), params, count, residual, Values::specials, seed++);
        compare_with_cpu(context.get(), params, count, residual, Values::huge, seed++);
      }
  }
}

TEST_CASE("cuda codecs: a gradient larger than the L2 cache (16 Mi elements) equals the CPU's",
          "[cuda][gpu][codec][large]") {
  CudaContext context;
  if (context.skip()) return;
  const uint64_t count = uint64_t(1) << 24;
  for (const dlk_codec_algorithm a : {DLK_CODEC_ONEBIT, DLK_CODEC_INT8, DLK_CODEC_INT4, DLK_CODEC_BF16})
    compare_with_cpu(context.get(), params_of({a, 0, DLK_CODEC_ROUND_NEAREST_EVEN}), count, true, Values::normal, 77);
}

TEST_CASE("cuda codecs: bad messages and pointers are refused before anything runs", "[cuda][gpu][codec]") {
  CudaContext context;
  if (context.skip()) return;
  const uint64_t count = 33;  // int4: the last code byte has 4 padding bits
  const std::vector<float> input = make_input(count, Values::normal, 5);
  dlk_codec_params params = params_of({DLK_CODEC_INT4, 16, DLK_CODEC_ROUND_NEAREST_EVEN});
  size_t capacity = 0, size = 0;
  REQUIRE(dlk_compress_max_message_size(&params, count, &capacity) == DLK_CODEC_SUCCESS);
  std::vector<uint8_t> message(capacity);
  REQUIRE(dlk_compress_encode(&params, input.data(), nullptr, count, message.data(), capacity, &size) ==
          DLK_CODEC_SUCCESS);
  DeviceBuffer d_message(context.get(), size), d_output(context.get(), 4 * count), d_input(context.get(), 4 * count);
  const std::vector<float> sentinel(count, 7.0f);

  SECTION("a wrong header checksum") {
    std::vector<uint8_t> bad = message;
    bad[8] ^= 1;
    d_message.upload(bad.data(), size);
  }
  SECTION("padding bits after the last code") {
    std::vector<uint8_t> bad = message;
    bad[size - 1] |= 0x80;
    d_message.upload(bad.data(), size);
  }
  d_output.upload(sentinel.data(), 4 * count);
  CHECK(dlk_codec_decode(context.get(), d_message.as<uint8_t>(), size, d_output.as<float>(), count) ==
        DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith("dlk_codec_decode: corrupt message: "));
  CHECK(float_difference("output (must be untouched)", sentinel, d_output.download<float>(count)) == "");

  // Host memory where device memory belongs.
  size_t written = 0;
  CHECK(dlk_codec_encode(context.get(), &params, input.data(), nullptr, count, d_message.as<uint8_t>(), size,
                         &written) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith("dlk_codec_encode: argument 'input' is not device memory"));
  CHECK(dlk_codec_decode(context.get(), message.data(), size, d_output.as<float>(), count) ==
        DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith("dlk_codec_decode: argument 'message' is not device memory"));

  // topk is not on the device.
  dlk_codec_params topk = params_of({DLK_CODEC_TOPK, 0, DLK_CODEC_ROUND_NEAREST_EVEN});
  CHECK(dlk_codec_encode(context.get(), &topk, d_input.as<float>(), nullptr, count, d_message.as<uint8_t>(), size,
                         &written) == DLK_STATUS_UNSUPPORTED);

  // The context still works.
  d_message.upload(message.data(), size);
  CHECK(dlk_codec_decode(context.get(), d_message.as<uint8_t>(), size, d_output.as<float>(), count) ==
        DLK_STATUS_SUCCESS);
}
