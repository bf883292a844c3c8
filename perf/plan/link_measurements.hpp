// The all-reduce terms `dlk-perf plan --allreduce FILE` takes from a run of
// `dlk-perf comm --json` on the link itself (under mpirun or scripts/netbed.sh,
// at the model's bucket sizes: --sizes), per algorithm and size:
//   codec      encode + decode seconds inside the all-reduce (dlk_comm_report,
//              slowest rank): what the algorithm's codec costs as it runs, in
//              place of (1 + 1/P) encode + 2 decode-and-add measured alone;
//   per-message latency   (measured seconds - the alpha-beta model's seconds
//              with that codec) / the MPI messages a rank sends, at least 0:
//              what each message costs beyond the link's alpha-beta (TCP, the
//              kernel, MPI's matching, the pieces below the eager limit);
//   CPU        the CPU seconds of a rank's process during the call (every
//              thread, user and system): how busy the all-reduce keeps the
//              cores, hence how much it slows the compute beside it.
// MPI_Allreduce (the peer) and auto (its candidates' terms are looked up) are
// skipped.
#pragma once

#include <string_view>

#include "perf/plan/step_plan.hpp"

namespace dlk::perf {

// link: the alpha-beta the terms are measured against (MPI_Allreduce's fit on
// the same link). Throws std::invalid_argument naming the member that is
// missing or wrong ("points[3].seconds: ...") or the schema.
LinkMeasurements parse_link_measurements(std::string_view comm_json, const LinkSpec &link,
                                         const CodecLookup &codecs, double chunk_bytes, double topk_fraction);

}  // namespace dlk::perf
