#include "perf/workloads/device_codec_points.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "dlk/dlk_device_codec.h"
#include "perf/workloads/compress_workload.hpp"

namespace dlk::perf {
namespace {

// Each sample covers at least this much input, so that the one synchronization
// per sample costs under a percent of it.
constexpr size_t kSampleInputBytes = size_t{256} << 20;

class DeviceCodecWorkload {
 public:
  DeviceCodecWorkload(dlk::Context &context, const dlk_codec_params &params, size_t bytes)
      : context_(context), params_(params), count_(bytes / sizeof(float)),
        repeats_(static_cast<int>((kSampleInputBytes + bytes - 1) / bytes)),
        input_(context, count_), residual_(context, count_), output_(context, count_),
        accumulator_(context, count_) {
    std::vector<float> host(count_);
    std::mt19937 generator(42);
    std::normal_distribution<float> gradient(0.0f, 1.0f);
    for (float &v : host) v = gradient(generator);
    input_.upload(host.data());
    std::fill(host.begin(), host.end(), 0.0f);
    residual_.upload(host.data());
    accumulator_.upload(host.data());
    dlk::check(dlk_codec_max_message_size(&params_, count_, &capacity_));
    message_ = dlk::Buffer<unsigned char>(context, capacity_);
    encoded_ = dlk::Buffer<unsigned char>(context, capacity_);
    dlk::check(dlk_codec_encode(context_.get(), &params_, input_.get(), residual_.get(), count_, message_.get(),
                                capacity_, &message_size_));
    context_.synchronize();
  }

  int repeats() const { return repeats_; }
  size_t elements() const { return count_; }
  size_t message_bytes() const { return message_size_; }

  // encode, decode, decode_add: repeats() calls, then one synchronization.
  std::vector<Candidate> candidates() {
    return {{"encode",
             [this] {
               size_t size = 0;
               for (int r = 0; r < repeats_; ++r)
                 dlk::check(dlk_codec_encode(context_.get(), &params_, input_.get(), residual_.get(), count_,
                                             encoded_.get(), capacity_, &size));
               context_.synchronize();
             }},
            {"decode",
             [this] {
               for (int r = 0; r < repeats_; ++r)
                 dlk::check(dlk_codec_decode(context_.get(), message_.get(), message_size_, output_.get(), count_));
               context_.synchronize();
             }},
            {"decode_add", [this] {
               for (int r = 0; r < repeats_; ++r)
                 dlk::check(
                     dlk_codec_decode_add(context_.get(), message_.get(), message_size_, accumulator_.get(), count_));
               context_.synchronize();
             }}};
  }

 private:
  dlk::Context &context_;
  dlk_codec_params params_;
  size_t count_;
  int repeats_;
  dlk::Buffer<float> input_, residual_, output_, accumulator_;
  dlk::Buffer<unsigned char> message_, encoded_;
  size_t capacity_ = 0, message_size_ = 0;
};

// The roof: device-to-device copies of a buffer of half the working set (read
// and written: the whole set moves), repeated as often as the calls are. What
// the buffers hold does not matter to a copy: they are left as allocated.
class CopyRoof {
 public:
  CopyRoof(dlk::Context &context, size_t working_set, int repeats)
      : context_(context), bytes_(working_set / 2), repeats_(repeats), src_(context, bytes_), dst_(context, bytes_) {}
  Candidate candidate(const std::string &name) {
    return {name, [this] {
              for (int r = 0; r < repeats_; ++r)
                context_.memcpy(dst_.get(), src_.get(), bytes_, DLK_COPY_DEVICE_TO_DEVICE);
              context_.synchronize();
            }};
  }
  // Bytes read and written per second, for a sample that took `seconds`.
  double bandwidth(double seconds) const { return 2.0 * static_cast<double>(bytes_) * repeats_ / seconds; }

 private:
  dlk::Context &context_;
  size_t bytes_;
  int repeats_;
  dlk::Buffer<unsigned char> src_, dst_;
};

}  // namespace

CodecRates add_device_codec_points(ReportTable &table, dlk::Context &context, const std::string &algorithm,
                                   const dlk_codec_params &params, size_t bytes, const TimingOptions &timing) {
  DeviceCodecWorkload workload(context, params, bytes);
  const size_t count = workload.elements(), message = workload.message_bytes();
  const CodecOp ops[] = {CodecOp::encode, CodecOp::decode, CodecOp::decode_add};
  CopyRoof encode_roof(context, codec_traffic(CodecOp::encode, count, message).working_set, workload.repeats());
  CopyRoof decode_roof(context, codec_traffic(CodecOp::decode, count, message).working_set, workload.repeats());
  std::vector<Candidate> candidates = workload.candidates();
  candidates.push_back(encode_roof.candidate("device copy, encode's set"));
  candidates.push_back(decode_roof.candidate("device copy, decode's set"));
  const std::vector<Timing> timings = time_interleaved(candidates, timing);
  const double decode_bandwidth = decode_roof.bandwidth(timings[4].summary().median);
  const double roofs[] = {encode_roof.bandwidth(timings[3].summary().median), decode_bandwidth, decode_bandwidth};
  const double ratio = 4.0 * static_cast<double>(count) / static_cast<double>(message);
  double input_rates[3];
  for (size_t i = 0; i < 3; ++i) {
    const Summary t = timings[i].summary();
    const double per_call = t.median / workload.repeats(), min_per_call = t.min / workload.repeats();
    const CodecTraffic traffic = codec_traffic(ops[i], count, message);
    const double rate = traffic.bytes / per_call;
    input_rates[i] = 4.0 * static_cast<double>(count) / per_call;
    table.add_row({algorithm, std::string(codec_op_name(ops[i])), static_cast<std::int64_t>(bytes), ratio, per_call,
                   min_per_call, static_cast<std::int64_t>(t.count), input_rates[i], traffic.bytes, rate,
                   static_cast<std::int64_t>(traffic.working_set), std::string("device"), roofs[i],
                   100 * rate / roofs[i]});
  }
  return {input_rates[0], input_rates[1], input_rates[2]};
}

}  // namespace dlk::perf
