#include "tests/conformance/reference_pool2d.hpp"

#include <cmath>
#include <vector>

namespace dlk::conformance {

namespace {

int64_t offset(const dlk_pool2d_desc &d, int64_t h, int64_t w, int64_t n, int64_t c, int64_t y,
               int64_t x) {
  return d.format == DLK_FORMAT_NCHW ? ((n * d.c + c) * h + y) * w + x
                                     : ((n * h + y) * w + x) * d.c + c;
}

// The image rows [y0, y1) and columns [x0, x1) under the window of output (oy, ox).
struct Window {
  int64_t y0, y1, x0, x1;
  int64_t taps() const { return (y1 - y0) * (x1 - x0); }
};

Window window(const dlk_pool2d_desc &d, int64_t oy, int64_t ox) {
  const int64_t top = oy * d.stride_h - d.pad_h, left = ox * d.stride_w - d.pad_w;
  Window win;
  win.y0 = top < 0 ? 0 : top;
  win.y1 = top + d.kh > d.h ? d.h : top + d.kh;
  win.x0 = left < 0 ? 0 : left;
  win.x1 = left + d.kw > d.w ? d.w : left + d.kw;
  return win;
}

double divisor(const dlk_pool2d_desc &d, const Window &win) {
  return static_cast<double>(d.kind == DLK_POOL_AVG_INCLUDE_PADDING ? d.kh * d.kw : win.taps());
}

}  // namespace

PoolGeometry::PoolGeometry(const dlk_pool2d_desc &d)
    : oh((d.h + 2 * d.pad_h - d.kh) / d.stride_h + 1),
      ow((d.w + 2 * d.pad_w - d.kw) / d.stride_w + 1) {}

PoolForward reference_pool2d_forward(const dlk_pool2d_desc &d, const HostTensor &src) {
  const PoolGeometry g(d);
  const int64_t elements = g.dst_elements(d);
  const bool max = d.kind == DLK_POOL_MAX;
  PoolForward out{Expected(elements), Expected(max ? elements : 0),
                  HostTensor(DLK_DTYPE_S32, max ? elements : 0)};
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const Window win = window(d, oy, ox);
          const int64_t at = offset(d, g.oh, g.ow, n, c, oy, ox);
          if (max) {
            // Row-major window order; a strict > keeps the first of equal maxima,
            // and the first NaN beats every number (dlk.h's NaN rule).
            int64_t best_index = win.y0 * d.w + win.x0;
            double best = src.get(offset(d, d.h, d.w, n, c, win.y0, win.x0));
            for (int64_t y = win.y0; y < win.y1; ++y)
              for (int64_t x = win.x0; x < win.x1; ++x) {
                const double v = src.get(offset(d, d.h, d.w, n, c, y, x));
                if (v > best || (std::isnan(v) && !std::isnan(best))) best = v, best_index = y * d.w + x;
              }
            out.dst.exact(at, best);
            out.argmax.exact(at, static_cast<double>(best_index));
            out.indices.set(at, static_cast<double>(best_index));
            continue;
          }
          double sum = 0, magnitude = 0;
          for (int64_t y = win.y0; y < win.y1; ++y)
            for (int64_t x = win.x0; x < win.x1; ++x) {
              const double v = src.get(offset(d, d.h, d.w, n, c, y, x));
              sum += v;
              magnitude += std::fabs(v);
            }
          const double div = divisor(d, win), mean = sum / div;
          if (is_float_type(d.dtype))
            out.dst.within(at, mean, f32_result_bound(win.taps() + 1, magnitude / div, mean, d.dtype));
          else
            out.dst.exact(at, std::nearbyint(mean));  // the mean of integers rounds half to even
        }
  return out;
}

Expected reference_pool2d_backward(const dlk_pool2d_desc &d, const HostTensor &diff_dst,
                                   const HostTensor &argmax) {
  const PoolGeometry g(d);
  const int64_t elements = g.src_elements(d);
  std::vector<double> sum(elements, 0.0), magnitude(elements, 0.0);
  std::vector<int64_t> terms(elements, 0);
  const auto add = [&](int64_t at, double term) {
    sum[at] += term;
    magnitude[at] += std::fabs(term);
    ++terms[at];
  };
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const int64_t at = offset(d, g.oh, g.ow, n, c, oy, ox);
          const double dd = diff_dst.get(at);
          if (d.kind == DLK_POOL_MAX) {
            const auto index = static_cast<int64_t>(argmax.get(at));
            add(offset(d, d.h, d.w, n, c, index / d.w, index % d.w), dd);
            continue;
          }
          const Window win = window(d, oy, ox);
          for (int64_t y = win.y0; y < win.y1; ++y)
            for (int64_t x = win.x0; x < win.x1; ++x)
              add(offset(d, d.h, d.w, n, c, y, x), dd / divisor(d, win));
        }
  Expected out(elements);
  // Each average term is a division (one more rounding), so allow two per term.
  const int64_t per_term = d.kind == DLK_POOL_MAX ? 1 : 2;
  for (int64_t i = 0; i < elements; ++i)
    out.within(i, sum[i], f32_result_bound(per_term * terms[i], magnitude[i], sum[i], d.dtype));
  return out;
}

}  // namespace dlk::conformance
