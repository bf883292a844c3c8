// The ceilings as tables, shared by `dlk-perf ceilings` and `dlk-perf report`:
// compute peaks per dtype and ISA tier, memory levels, the raw sweep; each
// measured figure beside its theoretical one.
#pragma once

#include <string>

#include "dlk/dlk.h"
#include "perf/ceilings/machine_ceilings.hpp"
#include "perf/common/report_table.hpp"

namespace dlk::perf {

ReportTable compute_ceilings_table(const MachineCeilings &ceilings);
ReportTable memory_ceilings_table(const MachineCeilings &ceilings);
ReportTable sweep_table(const MachineCeilings &ceilings);

// The dtypes without a loop on this CPU, one line each saying why; empty when none.
std::string missing_dtypes_text(const MachineCeilings &ceilings);

// The ceilings a non-CPU backend reports about itself (dlk_context_get_info):
// theoretical figures, runs 0, one memory level "device". For fpga_sim they
// come from its accelerator description; nothing is measured.
MachineCeilings reported_ceilings(const dlk_context_info &info);

}  // namespace dlk::perf
