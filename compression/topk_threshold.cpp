#include "compression/topk_threshold.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>

#include "compression/kernels/numerics.hpp"

namespace dlk::codec {
namespace {

constexpr size_t kHighBuckets = size_t(1) << 16;  // key >> 15 (keys are < 2^31)
constexpr size_t kLowBuckets = size_t(1) << 15;   // key & 0x7FFF

// The sample holds about kSampleHits elements above the threshold (so that the
// estimate of k is within a few percent), and at least kMinSample elements.
constexpr uint64_t kSampleHits = 256;
constexpr uint64_t kMinSample = 8192;
// Sampling pays only when it reads a small part of the buffer; beyond
// count / kMaxSampleShare the exact threshold costs about as much.
constexpr uint64_t kMaxSampleShare = 8;
constexpr uint64_t kPrefetchAhead = 32;
constexpr uint64_t kLine = 16;  // floats per 64-byte cache line
// Fixed, so that the sample (hence the message) depends on the data only.
constexpr uint64_t kSampleKey = 0x646C6B746F706B31ull;  // "dlktopk1"

inline uint32_t key_at(const float *input, const float *residual, size_t i) {
  return magnitude_key(residual ? input[i] + residual[i] : input[i]);
}

// Whole runs of kLine elements.
uint64_t sample_size(size_t count, size_t k) {
  const uint64_t s = std::max<uint64_t>(kMinSample, (kSampleHits * count + k - 1) / k);
  return (s + kLine - 1) / kLine * kLine;
}

bool worth_sampling(size_t count, size_t k) {
  return sample_size(count, k) * kMaxSampleShare <= count;
}

// Walks buckets from the top down to the one holding the k-th largest key;
// `above` counts the keys in higher buckets (on entry and on return).
size_t bucket_of_kth(const uint32_t *histogram, size_t buckets, size_t k, size_t &above) {
  size_t b = buckets - 1;
  while (above + histogram[b] < k) above += histogram[b--];
  return b;
}

// The rank-th largest of keys (1 <= rank <= size, keys < 2^31), reordering them:
// the value nth_element would give. A histogram of the top 11 bits (exponent and
// 3 mantissa bits) finds the bucket that holds it, and nth_element runs only on
// that bucket's keys, a few percent of them. Both passes are branch-light; an
// nth_element over the whole sample (25600 keys for 4 MiB at 1 %) mispredicted
// its way through about 30 % of the encode's time (perf, Intel Xeon model 207).
uint32_t kth_largest(std::vector<uint32_t> &keys, size_t rank) {
  constexpr int kShift = 20;
  constexpr size_t kBuckets = size_t(1) << (31 - kShift);
  uint32_t histogram[kBuckets] = {};
  for (const uint32_t key : keys) ++histogram[key >> kShift];
  size_t above = 0;
  const size_t bucket = bucket_of_kth(histogram, kBuckets, rank, above);
  size_t in_bucket = 0;
  for (const uint32_t key : keys)
    if ((key >> kShift) == bucket) keys[in_bucket++] = key;  // in place: never ahead of the read
  const auto nth = keys.begin() + static_cast<std::ptrdiff_t>(rank - above - 1);
  std::nth_element(keys.begin(), nth, keys.begin() + static_cast<std::ptrdiff_t>(in_bucket),
                   std::greater<uint32_t>());
  return *nth;
}

}  // namespace

void reserve_threshold(ThresholdScratch &scratch, bool sampled, size_t count, size_t k) {
  if (sampled && worth_sampling(count, k))
    scratch.sample.resize(sample_size(count, k));
  else
    scratch.histogram.resize(kHighBuckets);
}

uint32_t exact_threshold(ThresholdScratch &scratch, const float *input, const float *residual,
                         size_t count, size_t k) {
  std::vector<uint32_t> &histogram = scratch.histogram;
  std::fill(histogram.begin(), histogram.end(), 0);
  for (size_t i = 0; i < count; ++i) ++histogram[key_at(input, residual, i) >> 15];
  size_t above = 0;
  const size_t high = bucket_of_kth(histogram.data(), kHighBuckets, k, above);

  std::fill(histogram.begin(), histogram.begin() + kLowBuckets, 0);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t key = key_at(input, residual, i);
    if ((key >> 15) == high) ++histogram[key & 0x7FFF];
  }
  const size_t low = bucket_of_kth(histogram.data(), kLowBuckets, k, above);
  return static_cast<uint32_t>(high << 15 | low);
}

uint32_t sampled_threshold(ThresholdScratch &scratch, const float *input,
                           const float *residual, size_t count, size_t k) {
  if (!worth_sampling(count, k)) return exact_threshold(scratch, input, residual, count, k);
  std::vector<uint32_t> &sample = scratch.sample;
  const uint64_t lines = sample.size() / kLine;
  // One run of kLine consecutive elements (a cache line when the buffer is
  // 64-byte aligned) drawn from each of `lines` strata of count / lines elements
  // (the few past the last stratum are never drawn), at a multiple of kLine
  // into it: the sample reads one line in every count / (lines * kLine) >= 8,
  // where an element per stratum read nearly every line at k = 1 % (a second
  // pass over memory before the selection pass). The draws miss the caches, so
  // those kPrefetchAhead strata on are requested early.
  const uint64_t stratum = count / lines;     // >= kLine * kMaxSampleShare
  const uint64_t starts = stratum / kLine;    // < 2^32
  auto position = [&](uint64_t j) {
    return j * stratum + ((uint64_t(random_word(kSampleKey, j)) * starts) >> 32) * kLine;
  };
  for (uint64_t j = 0; j < lines; ++j) {
    if (j + kPrefetchAhead < lines) {
      const uint64_t ahead = position(j + kPrefetchAhead);
      __builtin_prefetch(input + ahead);
      if (residual) __builtin_prefetch(residual + ahead);
    }
    const uint64_t at = position(j);
    for (uint64_t e = 0; e < kLine; ++e) sample[j * kLine + e] = key_at(input, residual, at + e);
  }
  const uint64_t s = sample.size();
  // The sample's rank that corresponds to k in the whole buffer.
  const uint64_t rank = std::min<uint64_t>(s, std::max<uint64_t>(1, (k * s + count - 1) / count));
  return kth_largest(sample, rank);
}

}  // namespace dlk::codec
