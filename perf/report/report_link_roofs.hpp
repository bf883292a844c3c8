// The all-reduce rows of `dlk-perf report`'s verdict: each algorithm at the
// largest size measured, held against two roofs instead of a memory level:
//   the link roof: this machine's own link as MPI_Allreduce's alpha-beta fit
//     shows it (alpha, and the bus bandwidth 2(P-1)/P n / (t - alpha)), applied
//     to the bytes the algorithm put on the wire: alpha + wire / bandwidth;
//   the codec roof: its encode and decode-and-add work at the codec section's
//     rates (two-phase: encode (1 + 1/P) n, decode-and-add 2 n; topk: n each).
// The roof is the larger of the two (the chunks pipeline one under the other);
// the bound says which, and for the link whether latency is most of it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "perf/common/report_table.hpp"
#include "perf/plan/link_spec.hpp"
#include "perf/report/report_allreduce.hpp"
#include "perf/workloads/compress_points.hpp"

namespace dlk::perf {

// This machine's link from the run's MPI_Allreduce fit; none where the run has
// no such fit (a per-message latency alpha / (2 (P-1)) as plan's model takes it).
std::optional<LinkSpec> machine_link(const AllreduceRun &run);

void add_allreduce_roof_verdicts(ReportTable &verdict, const AllreduceRun &run,
                                 const std::map<std::string, CodecRates> &codec_rates);

}  // namespace dlk::perf
