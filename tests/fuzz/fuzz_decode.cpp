// libFuzzer target for one decoder (the algorithm is DLK_FUZZ_ALGORITHM, one
// executable per algorithm). Each input is decoded twice: as it is (the framing
// checks: size, magic, version, checksum), and with the algorithm byte set to
// this target's, the payload size set to what the buffer holds and the checksum
// resealed (so that mutations reach the algorithm's own validation and decode).
// Every ISA tier this CPU has decodes it with decode and decode_add; the tiers
// must agree bit for bit, and a rejected message must leave the output untouched.
// Any violation traps; ASan and UBSan catch bad reads and undefined behaviour.
#include <cstdint>
#include <cstring>
#include <vector>

#include "compression/crc32c.hpp"
#include "compression/wire_format.hpp"
#include "dlk/dlk_compress.h"

namespace {

namespace wire = dlk::codec::wire;

// Outputs larger than this are not allocated: such a message is decoded into a
// small buffer, which the decoder must refuse.
constexpr uint64_t kMaxElements = uint64_t(1) << 16;
constexpr float kSentinel = 0.5f;  // not NaN: decode_add onto it is bit-exact
const char *const kIsas[] = {"avx512", "avx2", "scalar"};

void require(bool condition) {
  if (!condition) __builtin_trap();
}

bool untouched(const std::vector<float> &out) {
  for (const float v : out)
    if (std::memcmp(&v, &kSentinel, sizeof v) != 0) return false;
  return true;
}

void decode_on_every_tier(const uint8_t *message, size_t size) {
  dlk_codec_message_info info;
  uint64_t count = 16;
  if (dlk_compress_inspect(message, size, &info) == DLK_CODEC_SUCCESS &&
      info.element_count <= kMaxElements)
    count = info.element_count;

  bool first = true;
  dlk_codec_status expected[2] = {};
  std::vector<float> reference[2];
  for (const char *isa : kIsas) {
    if (dlk_compress_set_isa(isa) != DLK_CODEC_SUCCESS) continue;
    for (int add = 0; add < 2; ++add) {
      std::vector<float> out(count, kSentinel);
      const dlk_codec_status status =
          add ? dlk_compress_decode_add(message, size, out.data(), count)
              : dlk_compress_decode(message, size, out.data(), count);
      if (status != DLK_CODEC_SUCCESS) require(untouched(out));
      if (first) {
        expected[add] = status;
        reference[add] = out;
      } else {
        require(status == expected[add]);
        require(count == 0 || std::memcmp(out.data(), reference[add].data(), 4 * count) == 0);
      }
    }
    first = false;
  }
  require(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  decode_on_every_tier(data, size);
  if (size < wire::kHeaderSize) return 0;
  std::vector<uint8_t> message(data, data + size);
  message[wire::kOffsetAlgorithm] = DLK_FUZZ_ALGORITHM;
  const uint64_t payload = size - wire::kHeaderSize;
  std::memcpy(&message[wire::kOffsetPayloadSize], &payload, sizeof payload);
  const uint32_t checksum = dlk::codec::crc32c(message.data(), wire::kOffsetChecksum);
  std::memcpy(&message[wire::kOffsetChecksum], &checksum, sizeof checksum);
  decode_on_every_tier(message.data(), message.size());
  return 0;
}
