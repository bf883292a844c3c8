// What an output buffer must hold after an op, element by element, and the
// comparison of a backend's buffer against it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/conformance/host_tensor.hpp"

namespace dlk::conformance {

// Element i must equal value[i] exactly when bound[i] is 0 (integer results,
// elements the op must not touch; NaN matches NaN, -0 matches +0) and be within
// bound[i] of it otherwise (floating-point results, never NaN).
struct Expected {
  std::vector<double> value;
  std::vector<double> bound;

  explicit Expected(int64_t elements = 0);
  // Every element keeps its value: the start for outputs with gaps.
  static Expected unchanged(const HostTensor &initial);

  int64_t size() const { return static_cast<int64_t>(value.size()); }
  void exact(int64_t i, double v) { value[i] = v, bound[i] = 0; }
  void within(int64_t i, double v, double b) { value[i] = v, bound[i] = b; }
};

// Names element i of a buffer for a message ("b=0 i=3 j=7").
using ElementName = std::function<std::string(int64_t)>;

// Names element i of a dense n x c x h x w tensor in the format ("n=0 c=2 y=1 x=3");
// `outer` names the first dimension (conv weights: "k").
std::string dense_element_name(dlk_format format, int64_t c, int64_t h, int64_t w, int64_t i,
                               const char *outer = "n");

struct Comparison {
  int64_t mismatches = 0;
  double worst_ratio = 0;  // largest |error| / bound over the bounded elements
  std::string report;      // the first mismatches, one per line
};

Comparison compare(const HostTensor &actual, const Expected &expected, const ElementName &name,
                   int max_listed = 8);

// Unit roundoff u of a float type: the largest relative error of one rounding to nearest.
double unit_roundoff(dlk_dtype dtype);

// Bound on |result - exact| for a float result that the numerics contract computes
// in f32 with `roundings` operations (multiply-adds, the alpha and beta products,
// a bias add, a division) over values whose magnitudes sum to `magnitude`, and then
// stores in `out` (one more rounding unless out is f32).
//
// Any order of n roundings is within n * u * magnitude (Higham's gamma_n); the
// bound allows twice that, room for an implementation's extra rounding per term
// (alpha folded into packing, a reciprocal) while still far below what a real bug
// moves a result by: a wrong or missing term shifts it by about magnitude / n.
// The final rounding to f16/bf16 is allowed only the half ulp of round to nearest,
// so truncation fails; half the smallest subnormal covers results near zero.
double f32_result_bound(int64_t roundings, double magnitude, double exact, dlk_dtype out);

}  // namespace dlk::conformance
