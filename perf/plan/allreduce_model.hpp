// What one bucket's all-reduce costs each algorithm of libdlk_comm on a link,
// as the algorithms in comm/ move it (alpha-beta per message, bandwidth per
// rank's link, full duplex):
//   native, ring  2(P-1) alpha + 2 (P-1)/P n / B        (ring: reduce-scatter + all-gather)
//   ps            2(P-1) alpha + 2 (P-1) n / B          (the server receives and sends P-1 copies)
//   onebit, int8, int4, fp16, bf16 (two-phase, comm/two_phase_allreduce.cpp):
//                 2(P-1) alpha + 2 (P-1)/P m / B, m the codec's message for n bytes;
//                 codec: encode (1 + 1/P) n, decode-and-add 2 n
//   topk          2(P-1) alpha + (P-1) m / B            (all-gather of every rank's k pairs);
//                 codec: encode n, P decode-and-adds of one message
//   auto          the cheapest of native, fp16, int8, onebit for the bucket (comm/auto_select.cpp)
// The compressed algorithms run in chunks (DLK_COMM_CHUNK_BYTES, 1 MiB of
// floats; topk at least 16384 / fraction elements), encoding chunk k+1 while
// chunk k is on the wire: with k chunks the bucket takes
// max(codec, network) + min(codec, network) / k, the pipeline's fill and drain.
// Pure arithmetic: the codec seconds and message sizes come in measured.
#pragma once

#include <string>
#include <vector>

#include "perf/plan/link_spec.hpp"

namespace dlk::perf {

// The algorithms `dlk-perf plan` predicts, in the order it lists them.
const std::vector<std::string> &plan_algorithms();
// Whether an algorithm compresses (has a codec).
bool is_compressed(const std::string &algorithm);

// A bucket's codec as measured on this CPU: one call each over the bucket.
struct BucketCodec {
  double message_bytes = 0;   // the codec's message for the whole bucket
  double encode_seconds = 0;  // encoding the whole bucket (with error feedback)
  double decode_seconds = 0;  // decode-and-add of the whole bucket's message
};

struct BucketCost {
  std::string algorithm;     // what ran (auto: the one chosen)
  double network_seconds = 0;  // all of its wire time
  double codec_seconds = 0;    // all of its codec work
  double wire_bytes = 0;     // bytes each rank sends (ps: the server's)
  int chunks = 1;
  // The bucket on the background thread as two phases that add up to its time:
  // the codec work not hidden under the wire (on the CPU), then the wire time
  // not hidden under the codec.
  double codec_phase_seconds = 0, network_phase_seconds = 0;
};

// The chunk of the compressed algorithms, in input bytes: DLK_COMM_CHUNK_BYTES
// when set to a positive number, else 1 MiB.
double chunk_bytes_from_environment();

// codecs: the measured codec of each compressed algorithm at this bucket size
// (looked up by name; unused for native, ring, ps). Throws std::invalid_argument
// for an unknown algorithm, ranks < 1 or a missing codec.
// topk_fraction sets topk's smallest chunk.
BucketCost bucket_cost(const std::string &algorithm, double bytes, int ranks, const LinkSpec &link,
                       const std::vector<std::pair<std::string, BucketCodec>> &codecs,
                       double chunk_bytes = 1 << 20, double topk_fraction = 0.01);

}  // namespace dlk::perf
