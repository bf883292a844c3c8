// The plan section of `dlk-perf report`: `dlk-perf plan`'s prediction for one
// model (lenet5, global batch 64) on this machine's own link (MPI_Allreduce's
// fit from the all-reduce section) and its rank count, every algorithm; the
// layers measured on the cpu backend (cached like the ceilings).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "perf/common/report_table.hpp"
#include "perf/plan/link_spec.hpp"

namespace dlk::perf {

struct ReportPlan {
  bool ran = false;
  std::string reason;  // when !ran
  std::string model;
  std::int64_t batch = 0;
  int ranks = 0;
  LinkSpec link;
  ReportTable steps{{{"algorithm", "algorithm", 1, 0},
                     {"step_seconds", "step ms", 1e3, 3},
                     {"compute_seconds", "compute ms", 1e3, 3},
                     {"exposed_seconds", "exposed ms", 1e3, 3},
                     {"speedup_vs_native", "x native", 1, 2}}};
  std::string winner;

  nlohmann::ordered_json json() const;
};

// link: none where the all-reduce section did not run (the plan says so).
ReportPlan plan_on_machine_link(const std::optional<LinkSpec> &link, int ranks, int threads, bool quick);

}  // namespace dlk::perf
