#include "tests/conformance/expected.hpp"

#include <cmath>
#include <cstdio>

namespace dlk::conformance {

Expected::Expected(int64_t elements)
    : value(static_cast<size_t>(elements), 0.0), bound(static_cast<size_t>(elements), 0.0) {}

Expected Expected::unchanged(const HostTensor &initial) {
  Expected e(initial.size());
  for (int64_t i = 0; i < initial.size(); ++i) e.value[i] = initial.get(i);
  return e;
}

std::string dense_element_name(dlk_format format, int64_t c, int64_t h, int64_t w, int64_t i,
                               const char *outer) {
  int64_t n, ic, y, x;
  if (format == DLK_FORMAT_NCHW) {
    x = i % w, y = i / w % h, ic = i / (w * h) % c, n = i / (w * h * c);
  } else {
    ic = i % c, x = i / c % w, y = i / (c * w) % h, n = i / (c * w * h);
  }
  return std::string(outer) + "=" + std::to_string(n) + " c=" + std::to_string(ic) + " y=" + std::to_string(y) +
         " x=" + std::to_string(x);
}

Comparison compare(const HostTensor &actual, const Expected &expected, const ElementName &name,
                   int max_listed) {
  Comparison result;
  for (int64_t i = 0; i < expected.size(); ++i) {
    const double got = actual.get(i), want = expected.value[i], bound = expected.bound[i];
    const double error = std::fabs(got - want);
    bool ok;
    if (bound == 0) {
      ok = got == want || (std::isnan(got) && std::isnan(want));
    } else {
      ok = error <= bound;  // false for NaN
      if (ok && error / bound > result.worst_ratio) result.worst_ratio = error / bound;
    }
    if (ok) continue;
    if (result.mismatches++ < max_listed) {
      char line[256];
      if (bound == 0)
        std::snprintf(line, sizeof line, "  [%s] got %.9g, expected exactly %.9g\n",
                      name(i).c_str(), got, want);
      else
        std::snprintf(line, sizeof line,
                      "  [%s] got %.9g, expected %.9g +- %.3g (error %.3g = %.3g x bound)\n",
                      name(i).c_str(), got, want, bound, error, error / bound);
      result.report += line;
    }
  }
  if (result.mismatches > max_listed)
    result.report += "  ... " + std::to_string(result.mismatches - max_listed) + " more\n";
  return result;
}

double unit_roundoff(dlk_dtype dtype) {
  switch (dtype) {
    case DLK_DTYPE_F16: return 0x1.0p-11;
    case DLK_DTYPE_BF16: return 0x1.0p-8;
    default: return 0x1.0p-24;
  }
}

namespace {

// Half the smallest subnormal: the absolute error of rounding a tiny result.
double underflow_error(dlk_dtype dtype) {
  switch (dtype) {
    case DLK_DTYPE_F16: return 0x1.0p-25;
    case DLK_DTYPE_BF16: return 0x1.0p-134;
    default: return 0x1.0p-150;
  }
}

}  // namespace

double f32_result_bound(int64_t roundings, double magnitude, double exact, dlk_dtype out) {
  const double in_f32 = 2.0 * static_cast<double>(roundings) * unit_roundoff(DLK_DTYPE_F32) * magnitude;
  if (out == DLK_DTYPE_F32) return in_f32 + underflow_error(out);
  const double u = unit_roundoff(out);
  return in_f32 * (1 + u) + u * std::fabs(exact) + underflow_error(out);
}

}  // namespace dlk::conformance
