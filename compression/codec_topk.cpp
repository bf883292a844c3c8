// topk: the k largest magnitudes of v = input (+ residual) as count u32 indices
// (strictly increasing) then count f32 values. The selection pass writes pairs
// straight into the message; when more elements pass the threshold than k (ties
// at an exact threshold, or a sampled threshold that came out low), the pairs
// past k go to a scratch of k more, and each time it fills the k largest of both
// are kept (ties: lower index first) and the threshold rises above the smallest
// kept key. So the message never holds more than k pairs, the pass stays one
// pass, and memory is bounded by 3 k pairs, allocated before anything is written.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "compression/codec.hpp"
#include "compression/error.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/params.hpp"
#include "compression/topk_threshold.hpp"

namespace dlk::codec {
namespace {

struct Pairs {
  uint8_t *indices;
  uint8_t *values;
  size_t size;
};

struct Candidate {
  uint32_t key, index;
};

// Ranks a before b: larger magnitude, then lower index.
inline bool ranks_before(const Candidate &a, const Candidate &b) {
  return a.key != b.key ? a.key > b.key : a.index < b.index;
}

// Left uninitialised (new T[]), so that the pages of an overflow that does not
// happen are never touched: most encodes need none.
struct Overflow {
  size_t capacity;
  std::unique_ptr<uint32_t[]> indices;
  std::unique_ptr<float[]> values;
  std::unique_ptr<Candidate[]> candidates;

  explicit Overflow(size_t k)
      : capacity(std::max<size_t>(k, kGroup)),  // a vector group always fits
        indices(new uint32_t[capacity]),
        values(new float[capacity]),
        candidates(new Candidate[k + capacity]) {}
  uint8_t *index_bytes() { return reinterpret_cast<uint8_t *>(indices.get()); }
  uint8_t *value_bytes() { return reinterpret_cast<uint8_t *>(values.get()); }
};

// Keeps the k best of `kept` (in the message) and `extra` (in the overflow), in
// index order, in the message; the others go back to the residual (the kernel
// had set it to 0 for them). Returns the pairs kept; `trimmed` says whether some
// were dropped, and then `cut` is the lowest-ranked pair kept.
size_t keep_largest(Pairs kept, Overflow &overflow, size_t extra, size_t k, float *residual,
                    bool &trimmed, Candidate &cut) {
  const size_t total = kept.size + extra;
  auto pair_at = [&](size_t j, uint32_t &index, float &value) {
    if (j < kept.size) {
      index = load_le<uint32_t>(kept.indices + 4 * j);
      value = load_le<float>(kept.values + 4 * j);
    } else {
      index = overflow.indices[j - kept.size];
      value = overflow.values[j - kept.size];
    }
  };
  trimmed = total > k;
  if (trimmed) {
    for (size_t j = 0; j < total; ++j) {
      uint32_t index;
      float value;
      pair_at(j, index, value);
      overflow.candidates[j] = {magnitude_key(value), index};
    }
    Candidate *all = overflow.candidates.get();
    std::nth_element(all, all + (k - 1), all + total, ranks_before);
    cut = overflow.candidates[k - 1];
  }
  // In place: the write position never passes the read position.
  size_t written = 0;
  for (size_t j = 0; j < total; ++j) {
    uint32_t index;
    float value;
    pair_at(j, index, value);
    if (!trimmed || !ranks_before(cut, {magnitude_key(value), index})) {
      store_le<uint32_t>(kept.indices + 4 * written, index);
      store_le<float>(kept.values + 4 * written, value);
      ++written;
    } else if (residual) {
      residual[index] = value;
    }
  }
  return written;
}

uint64_t encode(const EncodeJob &job) {
  const size_t n = job.count, k = topk_k(job.params, n);
  if (k == 0) return 0;
  const bool sampled = job.params.topk_selection == DLK_CODEC_TOPK_SAMPLED;
  ThresholdScratch scratch;
  reserve_threshold(scratch, sampled, n, k);
  Overflow overflow(k);

  uint32_t threshold =
      sampled ? sampled_threshold(scratch, job.input, job.residual, n, k)
              : exact_threshold(scratch, job.input, job.residual, n, k);
  Pairs message{job.payload, job.payload + 4 * k, 0};
  size_t at = 0;
  message.size = job.kernels.topk_select(job.input, job.residual, 0, n, threshold,
                                         message.indices, message.values, k, &at);
  while (at < n) {
    const size_t extra = job.kernels.topk_select(job.input, job.residual, at, n, threshold,
                                                 overflow.index_bytes(), overflow.value_bytes(),
                                                 overflow.capacity, &at);
    bool trimmed;
    Candidate cut{};  // set by keep_largest when it trims (gcc -O2 -fsanitize=thread cannot tell)
    message.size = keep_largest(message, overflow, extra, k, job.residual, trimmed, cut);
    if (!trimmed) continue;
    // Later elements have higher indices: only a larger key can displace `cut`.
    if (cut.key == 0x7FFFFFFFu) {  // nothing ranks above; finish the residual
      if (job.residual)
        for (size_t i = at; i < n; ++i) job.residual[i] = job.input[i] + job.residual[i];
      break;
    }
    threshold = std::max(threshold, cut.key + 1);
  }
  std::memmove(job.payload + 4 * message.size, message.values, 4 * message.size);
  return 8 * message.size;
}

// The shape (whole pairs, at most n of them) is checked: the indices remain.
void validate_payload(const char *call, const wire::Header &header, const uint8_t *payload) {
  const uint64_t n = header.element_count, pairs = header.payload_size / 8;
  uint64_t next = 0;  // the smallest index allowed next
  for (uint64_t j = 0; j < pairs; ++j) {
    const uint32_t index = load_le<uint32_t>(payload + 4 * j);
    if (index < next)
      throw_corrupt(call, "pair " + std::to_string(j) + " has index " + std::to_string(index) +
                              ", not above the previous one (indices must be strictly "
                              "increasing, hence unique)");
    if (index >= n)
      throw_corrupt(call, "pair " + std::to_string(j) + " has index " + std::to_string(index) +
                              ", out of range for " + std::to_string(n) + " elements");
    next = uint64_t(index) + 1;
  }
}

void decode(const DecodeJob &job) {
  const size_t pairs = job.header.payload_size / 8;
  const uint8_t *indices = job.payload, *values = job.payload + 4 * pairs;
  if (job.store != Store::accumulate && job.header.element_count > 0)
    std::memset(job.output, 0, sizeof(float) * job.header.element_count);
  for (size_t j = 0; j < pairs; ++j) {
    const uint32_t index = load_le<uint32_t>(indices + 4 * j);
    const float value = load_le<float>(values + 4 * j);
    job.output[index] = job.store == Store::accumulate ? job.output[index] + value : value;
  }
}

}  // namespace

const Codec kTopkCodec = {encode, validate_payload, decode};

}  // namespace dlk::codec
