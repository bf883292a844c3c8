#include "perf/ceilings/roofline.hpp"

#include <algorithm>

namespace dlk::perf {

const char *bound_name(Bound bound) { return bound == Bound::memory ? "memory" : "compute"; }

double Work::intensity() const { return bytes > 0 ? flops / bytes : 0; }

double Roof::ridge_intensity() const { return peak_flops / bandwidth; }

double Roof::at(double intensity) const { return std::min(peak_flops, intensity * bandwidth); }

Bound Roof::bound(double intensity) const {
  return intensity * bandwidth < peak_flops ? Bound::memory : Bound::compute;
}

RooflinePoint place_on_roof(const Work &work, double seconds, const Roof &roof) {
  RooflinePoint p;
  p.intensity = work.intensity();
  p.rate = work.flops / seconds;
  p.roof = roof.at(p.intensity);
  p.percent_of_roof = p.roof > 0 ? 100.0 * p.rate / p.roof : 0;
  p.bound = roof.bound(p.intensity);
  return p;
}

}  // namespace dlk::perf
