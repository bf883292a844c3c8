#include "perf/charts/roofline_svg.hpp"

#include <utility>

#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {

RooflineSvg::RooflineSvg(std::string path, const dlk_context_info &info, bool progress)
    : path_(std::move(path)), backend_(info.backend) {
  if (wanted()) ceilings_ = backend_ceilings(info, false, progress).ceilings;
}

void RooflineSvg::add(const std::string &label, const Work &work, double seconds, bool simulated,
                      const std::vector<PeerTime> &peers) {
  if (!wanted()) return;
  if (seconds > 0)
    points_.push_back({label, "dlk " + backend_, false, simulated, work.intensity(), work.flops / seconds});
  for (const PeerTime &p : peers)
    if (p.seconds > 0) points_.push_back({label, p.name, true, false, work.intensity(), work.flops / p.seconds});
}

void RooflineSvg::add(const std::string &label, dlk::Context &context, const dlk_op_record &record,
                      double host_seconds, const std::vector<PeerTime> &peers) {
  const bool simulated = backend_ == "fpga_sim";
  add(label, Work{record.flops, record.bytes}, simulated ? context.last_sim().seconds : host_seconds, simulated,
      peers);
}

void RooflineSvg::write(const std::string &title) const {
  if (wanted()) write_svg_file(path_, render_svg(roofline_chart(ceilings_, points_, title)));
}

}  // namespace dlk::perf
