#include "perf/workloads/compress_workload.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

#include "dlk/dlk_compress.hpp"

namespace dlk::perf {
namespace {

constexpr size_t kLine = 64;
constexpr size_t kFloatsPerLine = kLine / sizeof(float);

}  // namespace

const char *codec_op_name(CodecOp op) {
  switch (op) {
    case CodecOp::encode: return "encode";
    case CodecOp::decode: return "decode";
    case CodecOp::decode_add: return "decode_add";
  }
  return "unknown";
}

void CompressWorkload::Free::operator()(void *p) const { std::free(p); }

// Line-aligned, and written once so that the pages exist before any timing.
template <class T>
CompressWorkload::Buffer<T> CompressWorkload::allocate(size_t count) {
  const size_t bytes = (count * sizeof(T) + kLine - 1) / kLine * kLine;
  void *p = std::aligned_alloc(kLine, bytes ? bytes : kLine);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return Buffer<T>(static_cast<T *>(p));
}

CompressWorkload::CompressWorkload(const dlk_codec_params &params, size_t bytes)
    : params_(params),
      count_(bytes / sizeof(float)),
      input_(allocate<float>(count_)),
      residual_(allocate<float>(count_)),
      output_(allocate<float>(count_)),
      accumulator_(allocate<float>(count_)) {
  std::mt19937 generator(42);
  std::normal_distribution<float> gradient(0.0f, 1.0f);
  for (size_t i = 0; i < count_; ++i) input_[i] = gradient(generator);
  capacity_ = dlk::compress::max_message_size(params_, count_);
  message_ = allocate<uint8_t>(capacity_);
  encoded_ = allocate<uint8_t>(capacity_);
  message_size_ = dlk::compress::encode(params_, input_.get(), residual_.get(), count_,
                                        message_.get(), capacity_);
  if (params_.algorithm == DLK_CODEC_TOPK) {
    // Indices are increasing: count the distinct lines they fall in.
    const size_t pairs = (message_size_ - DLK_CODEC_HEADER_SIZE) / 8;
    size_t last = SIZE_MAX;
    for (size_t j = 0; j < pairs; ++j) {
      uint32_t index;
      std::memcpy(&index, message_.get() + DLK_CODEC_HEADER_SIZE + 4 * j, sizeof index);
      if (index / kFloatsPerLine != last) ++touched_lines_;
      last = index / kFloatsPerLine;
    }
  }
}

std::vector<Candidate> CompressWorkload::candidates() {
  // Decode reads the message encoded at construction: a timed encode may write
  // one of another size (sampled topk), into its own buffer.
  return {{"encode",
           [this] {
             dlk::compress::encode(params_, input_.get(), residual_.get(), count_, encoded_.get(),
                                   capacity_);
           }},
          {"decode",
           [this] { dlk::compress::decode(message_.get(), message_size_, output_.get(), count_); }},
          {"decode_add", [this] {
             dlk::compress::decode_add(message_.get(), message_size_, accumulator_.get(), count_);
           }}};
}

CodecTraffic codec_traffic(CodecOp op, size_t count, size_t message_size) {
  const double floats = 4.0 * count, message = static_cast<double>(message_size);
  switch (op) {
    case CodecOp::encode:  // input and residual read, residual written, message written
      return {3 * floats + message, 2 * 4 * count + message_size};
    case CodecOp::decode:  // message read, output written
      return {floats + message, 4 * count + message_size};
    case CodecOp::decode_add:  // message and accumulator read, accumulator written
      return {2 * floats + message, 4 * count + message_size};
  }
  return {};
}

CodecTraffic CompressWorkload::traffic(CodecOp op) const {
  if (op == CodecOp::decode_add && params_.algorithm == DLK_CODEC_TOPK)
    return {2.0 * kLine * touched_lines_ + static_cast<double>(message_size_), 4 * count_ + message_size_};
  return codec_traffic(op, count_, message_size_);
}

}  // namespace dlk::perf
