// The model, per buffer of n bytes on P ranks (alpha, beta fitted to MPI_Allreduce):
//   native:           alpha + beta n
//   compressed codec: 2 alpha + beta n ratio + encode (1 + 1/P) n + decode 2 n
// ratio is the codec's message size over n: the two phases together move about
// what one all-reduce of the compressed buffer moves. The worker encodes all of
// n, the owner decodes P messages of n/P and encodes its sum, and every rank
// decodes all of n. Candidates: native and the codecs whose error feedback keeps
// SGD's convergence (fp16, int8, onebit); topk's cost depends on its fraction,
// and int4 / bf16 / ring / ps never beat these in the model.
// native inside iallreduce and the synchronizer (libnbc's ring, waited for
// politely: dense_algorithms.cpp) matches the MPI_Allreduce fit on a link and
// for large buffers (P = 2, 64 MiB: 1.01x at 1 Gbit/s, 1.04x in shared memory);
// in shared memory around 1 MiB it took 5-6x MPI_Allreduce's time (the polite
// wait's sleeps, a few hundred microseconds per call), which the model does not see.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "comm/auto_select.hpp"
#include "comm/algorithm.hpp"
#include "comm/error.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

constexpr dlk_comm_algorithm kCandidates[] = {DLK_COMM_ALGO_FP16, DLK_COMM_ALGO_INT8,
                                              DLK_COMM_ALGO_ONEBIT};
constexpr uint64_t kSmallCount = 1024, kLargeCount = uint64_t(1) << 20;  // 4 KiB, 4 MiB
constexpr uint64_t kCodecCount = uint64_t(1) << 18;                      // 1 MiB
constexpr int kRepetitions = 3;

double fastest_allreduce(const char *call, MPI_Comm comm, std::vector<float> &data,
                         uint64_t count) {
  double best = 1e30;
  for (int rep = 0; rep <= kRepetitions; ++rep) {  // rep 0 warms up
    const Stopwatch watch;
    check_mpi(call, "MPI_Allreduce",
              MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT,
                            MPI_SUM, comm));
    if (rep > 0) best = std::min(best, watch.seconds());
  }
  return best;
}

void measure(const char *call, Communicator &comm, LinkModel &model) {
  std::vector<float> data(kLargeCount, 0.0f);
  const double small = fastest_allreduce(call, comm.mpi(), data, kSmallCount);
  const double large = fastest_allreduce(call, comm.mpi(), data, kLargeCount);

  std::vector<double> costs;  // encode, decode per candidate, seconds per byte
  std::vector<float> input(kCodecCount), residual(kCodecCount), output(kCodecCount);
  for (uint64_t i = 0; i < kCodecCount; ++i)
    input[i] = static_cast<float>((i * 2654435761u) % 2001) * 1e-3f - 1.0f;
  for (const dlk_comm_algorithm candidate : kCandidates) {
    dlk_codec_params params;
    check_codec(call, dlk_compress_params_init(&params, codec_of(candidate)));
    std::vector<uint8_t> message(4 * kCodecCount + 4096);
    double encode = 1e30, decode = 1e30;
    for (int rep = 0; rep <= kRepetitions; ++rep) {
      size_t size = 0;
      const Stopwatch e;
      check_codec(call, dlk_compress_encode(&params, input.data(), residual.data(), kCodecCount,
                                            message.data(), message.size(), &size));
      const double encoded = e.seconds();
      const Stopwatch d;
      check_codec(call, dlk_compress_decode(message.data(), size, output.data(), kCodecCount));
      if (rep > 0) {
        encode = std::min(encode, encoded);
        decode = std::min(decode, d.seconds());
      }
    }
    costs.push_back(encode / (4.0 * kCodecCount));
    costs.push_back(decode / (4.0 * kCodecCount));
  }
  costs.push_back(small);
  costs.push_back(large);
  // Every rank decides from the same figures: the slowest rank's.
  check_mpi(call, "MPI_Allreduce",
            MPI_Allreduce(MPI_IN_PLACE, costs.data(), static_cast<int>(costs.size()),
                          MPI_DOUBLE, MPI_MAX, comm.mpi()));
  size_t at = 0;
  for (const dlk_comm_algorithm candidate : kCandidates) {
    model.encode_seconds_per_byte[codec_of(candidate)] = costs[at++];
    model.decode_seconds_per_byte[codec_of(candidate)] = costs[at++];
  }
  const double t_small = costs[at], t_large = costs[at + 1];
  model.beta = std::max(0.0, (t_large - t_small) / (4.0 * (kLargeCount - kSmallCount)));
  // A 4 KiB all-reduce is all latency; the intercept of a noisy two-point fit
  // can come out near zero or negative, which would make two phases look free.
  model.alpha = t_small;
  model.measured = true;
}

}  // namespace

dlk_comm_algorithm choose_algorithm(const char *call, Communicator &comm, uint64_t count,
                                    const dlk_comm_config &config) {
  LinkModel &model = comm.link_model();
  if (!model.measured) measure(call, comm, model);
  const double n = 4.0 * static_cast<double>(count);
  const double p = comm.size();
  dlk_comm_algorithm best = DLK_COMM_ALGO_NATIVE;
  double best_time = model.alpha + model.beta * n;
  std::string why = "native " + std::to_string(best_time * 1e3) + " ms";
  if (comm.size() > 1)
    for (const dlk_comm_algorithm candidate : kCandidates) {
      dlk_codec_params params;
      check_codec(call, dlk_compress_params_init(&params, codec_of(candidate)));
      if (config.block_size) params.block_size = config.block_size;
      size_t bytes = 0;
      check_codec(call, dlk_compress_max_message_size(&params, count, &bytes));
      const dlk_codec_algorithm codec = codec_of(candidate);
      const double t = 2 * model.alpha + model.beta * static_cast<double>(bytes) +
                       model.encode_seconds_per_byte[codec] * n * (1 + 1 / p) +
                       model.decode_seconds_per_byte[codec] * n * 2;
      why += std::string(", ") + algorithm_name(candidate) + " " + std::to_string(t * 1e3) + " ms";
      if (t < best_time) {
        best_time = t;
        best = candidate;
      }
    }
  if (comm.verbose() >= 1 && comm.rank() == 0)
    std::fprintf(stderr,
                 "dlk_verbose,comm,auto,count:%llu,chose %s: predicted %s (alpha %.1f us, "
                 "link %.3f GB/s)\n",
                 static_cast<unsigned long long>(count), algorithm_name(best), why.c_str(),
                 model.alpha * 1e6, model.beta > 0 ? 1e-9 / model.beta : 0.0);
  return best;
}

}  // namespace dlk::comm
