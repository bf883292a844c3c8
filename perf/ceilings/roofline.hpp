// Roofline arithmetic (Williams, Waterman, Patterson 2009): a kernel doing `flops`
// while moving `bytes` cannot run faster than min(peak, intensity * bandwidth).
#pragma once

namespace dlk::perf {

enum class Bound { compute, memory };

// "compute" or "memory".
const char *bound_name(Bound bound);

// Work of one op, counted as the roofline counts it: FLOPs of the math and bytes
// of the tensors read and written once.
struct Work {
  double flops = 0;
  double bytes = 0;
  // FLOPs per byte; 0 when bytes is 0.
  double intensity() const;
};

// Two ceilings of one machine: peak arithmetic rate (FLOP/s) and memory bandwidth
// (bytes/s), both > 0.
struct Roof {
  double peak_flops = 0;
  double bandwidth = 0;

  // Intensity where the two ceilings meet (FLOP/byte).
  double ridge_intensity() const;
  // The attainable rate at an intensity: min(peak, intensity * bandwidth).
  double at(double intensity) const;
  // memory below the ridge, compute at and above it.
  Bound bound(double intensity) const;
};

// What one measured run of some work reaches against a roof.
struct RooflinePoint {
  double intensity = 0;       // FLOP/byte
  double rate = 0;            // achieved FLOP/s
  double roof = 0;            // attainable FLOP/s at this intensity
  double percent_of_roof = 0;
  Bound bound = Bound::compute;
};

// seconds > 0.
RooflinePoint place_on_roof(const Work &work, double seconds, const Roof &roof);

}  // namespace dlk::perf
