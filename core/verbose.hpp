// DLK_VERBOSE output on stderr, one comma-separated line per event (as
// ONEDNN_VERBOSE): "dlk_verbose,<kind>,...".
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/op_record.hpp"

namespace dlk::core {

// Level 1: dlk_verbose,exec,<backend>,<op>,<implementation>,<types>,<problem>,<ms>,<GFLOP/s>
// and, for a simulated op, its record: sim_cycles=..,sim_ms=..,util=..,dram_read=..,
// dram_written=..,buffer_read=..,buffer_written=..,bound=compute|dram,overflows=..
void print_exec_line(const char *backend, const OpSummary &summary, const OpResult &result,
                     double seconds);
// Level 1: dlk_verbose,info,<what>
void print_info_line(const std::string &what);
// Level 2: dlk_verbose,dispatch,<decision>
void print_dispatch_line(const std::string &decision);

}  // namespace dlk::core
