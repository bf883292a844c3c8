// The --svg FILE of a subcommand that places ops on the roofline (roofline,
// gemm, conv, pool, resnet50): it hands each point it measured to a
// RooflineSvg, which draws them under the ceilings of the context's backend
// (roofline_chart.hpp) and writes the file. Without --svg it obtains and
// draws nothing, so a run without a chart costs nothing more.
#pragma once

#include <string>
#include <vector>

#include "dlk/dlk.hpp"
#include "perf/ceilings/ceilings_cache.hpp"
#include "perf/ceilings/roofline.hpp"
#include "perf/charts/roofline_chart.hpp"

namespace dlk::perf {

// A peer doing the same work as dlk's call.
struct PeerTime {
  std::string name;     // the legend's series, e.g. "openblas"
  double seconds = 0;   // per call; 0: not measured, not drawn
};

class RooflineSvg {
 public:
  // When `path` is set, obtains the ceilings of the context's backend
  // (backend_ceilings: cached, or measured now with progress unless !progress):
  // construct it before a peer library starts its worker threads, which would
  // take cycles from the ceiling loops.
  RooflineSvg(std::string path, const dlk_context_info &info, bool progress);

  bool wanted() const { return !path_.empty(); }

  // dlk doing `work` in `seconds` (the accelerator's simulated time when
  // `simulated`), and each peer doing the same work, at the same intensity.
  // `label` goes beside dlk's mark (see roofline_chart.hpp).
  void add(const std::string &label, const Work &work, double seconds, bool simulated,
           const std::vector<PeerTime> &peers = {});

  // dlk's last call on `context` (the work its record gives) at `host_seconds`
  // per call; on fpga_sim at the accelerator's simulated time instead (the
  // context's last_sim).
  void add(const std::string &label, dlk::Context &context, const dlk_op_record &record, double host_seconds,
           const std::vector<PeerTime> &peers = {});

  // Writes the chart; does nothing without a path. Throws std::runtime_error
  // when the file cannot be written.
  void write(const std::string &title) const;

 private:
  std::string path_;
  std::string backend_;
  MachineCeilings ceilings_;
  std::vector<RooflineChartPoint> points_;
};

}  // namespace dlk::perf
