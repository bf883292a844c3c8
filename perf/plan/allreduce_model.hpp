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
// floats; two-phase: of each rank's segment of n / P, so ceil(n / (P chunk))
// rounds; topk: of the whole buffer, at least 16384 / fraction elements),
// encoding chunk k+1 while chunk k is on the wire: with k rounds the bucket
// takes max(codec, network) + min(codec, network) / k, the pipeline's fill and
// drain. Each message travels as pieces below Open MPI's eager limit
// (comm/message_pieces.hpp), each an MPI message of its own; native and ps
// hand MPI at most 16 MiB a call, one call after another (comm/algorithms.hpp's
// kMpiPieceElements), each with its own 2(P-1) latencies; a rank sends
//   native, ps        2(P-1) x ceil(n / 16 MiB) messages
//   ring              2(P-1) messages
//   two-phase         2(P-1) x rounds x pieces of a chunk's message
//   topk              (P-1) x rounds x pieces of a chunk's message
// and each costs the algorithm's measured per-message latency on top of the
// alpha-beta wire time (what TCP, the kernel and MPI's matching add per
// message; 0 unless measured: MeasuredTerms).
// Pure arithmetic: the codec seconds and message sizes come in measured.
#pragma once

#include <string>
#include <utility>
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

// An algorithm's terms at one bucket size, measured on this link by dlk-perf
// comm under mpirun (dlk-perf plan --allreduce, docs/plan.md).
struct MeasuredTerms {
  double codec_seconds = -1;    // encode + decode inside the all-reduce (slowest rank); < 0: not measured
  double message_latency = 0;   // seconds per MPI message a rank sends, beyond alpha-beta (< 0: less than its alpha)
  double cpu_seconds = -1;      // CPU time of a rank's process during the call; < 0: not measured
};

struct BucketCost {
  std::string algorithm;     // what ran (auto: the one chosen)
  double network_seconds = 0;  // all of its wire time
  double codec_seconds = 0;    // all of its codec work
  double wire_bytes = 0;     // bytes each rank sends (ps: the server's)
  int chunks = 1;              // pipeline rounds
  double messages = 0;         // MPI messages a rank sends
  double cpu_seconds = -1;     // measured CPU time of the call, < 0: not measured
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
// topk_fraction sets topk's smallest chunk. measured: the terms measured on
// this link at this bucket size, per algorithm (auto's candidates looked up by
// their own names); an algorithm not there has no per-message term.
BucketCost bucket_cost(const std::string &algorithm, double bytes, int ranks, const LinkSpec &link,
                       const std::vector<std::pair<std::string, BucketCodec>> &codecs,
                       double chunk_bytes = 1 << 20, double topk_fraction = 0.01,
                       const std::vector<std::pair<std::string, MeasuredTerms>> &measured = {});

// The MPI messages a rank sends in one all-reduce of n bytes whose codec
// message (for the whole bucket) is message_bytes, as the rule above counts them.
double allreduce_messages(const std::string &algorithm, double n, double message_bytes, int ranks,
                          double chunk_bytes, double topk_fraction);

}  // namespace dlk::perf
