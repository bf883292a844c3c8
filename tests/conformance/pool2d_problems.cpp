#include "tests/conformance/pool2d_problems.hpp"

#include <cmath>
#include <sstream>

#include "tests/conformance/reference_pool2d.hpp"

namespace dlk::conformance {

namespace {

struct Window {
  int64_t n, c, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w;
};

// Non-overlapping and overlapping windows, 1x1, global, asymmetric, the widest
// padding allowed (kernel / 2), strides past the kernel, 17 channels (odd for
// NHWC vectors), and an empty batch.
constexpr Window kWindows[] = {
    {2, 3, 8, 8, 2, 2, 2, 2, 0, 0},   {1, 4, 7, 9, 3, 3, 2, 2, 1, 1},  {1, 2, 5, 5, 3, 3, 1, 1, 1, 1},
    {1, 3, 4, 6, 1, 1, 1, 1, 0, 0},   {2, 5, 6, 7, 6, 7, 1, 1, 0, 0},  {1, 2, 10, 5, 3, 2, 1, 2, 1, 1},
    {0, 3, 6, 6, 2, 2, 2, 2, 0, 0},   {1, 2, 11, 13, 5, 5, 3, 3, 2, 2}, {1, 2, 10, 10, 2, 2, 3, 3, 0, 0},
    {1, 17, 6, 5, 3, 3, 2, 2, 1, 1},
};

PoolProblem make(dlk_op op, dlk_dtype dtype, dlk_pool_kind kind, dlk_format format, const Window &w) {
  PoolProblem p;
  p.op = op;
  dlk_pool2d_desc &d = p.desc;
  dlk_pool2d_desc_init(&d, kind, dtype, w.n, w.c, w.h, w.w, w.kh, w.kw);
  d.format = format;
  d.kind = kind;
  d.n = w.n, d.c = w.c, d.h = w.h, d.w = w.w, d.kh = w.kh, d.kw = w.kw;
  d.stride_h = w.stride_h, d.stride_w = w.stride_w;
  d.pad_h = w.pad_h, d.pad_w = w.pad_w;
  d.dtype = dtype;
  return p;
}

// A kernel and padding the image holds: pad <= kernel / 2, kernel <= padded size.
void fit_window(int64_t in, int64_t &kernel, int64_t &pad) {
  while (kernel > in + 2 * pad) {
    --kernel;
    if (pad > kernel / 2) pad = kernel / 2;
  }
}

PoolProblem random_problem(dlk_op op, dlk_dtype dtype, Rng &rng) {
  Window w{};
  w.n = rng.chance(0.03) ? 0 : rng.uniform(1, 3);
  w.c = rng.uniform(1, 20);
  w.h = rng.uniform(1, 20), w.w = rng.uniform(1, 20);
  w.kh = rng.uniform(1, 6), w.kw = rng.uniform(1, 6);
  w.stride_h = rng.uniform(1, 4), w.stride_w = rng.uniform(1, 4);
  w.pad_h = rng.chance(0.5) ? 0 : rng.uniform(0, w.kh / 2);
  w.pad_w = rng.chance(0.5) ? 0 : rng.uniform(0, w.kw / 2);
  fit_window(w.h, w.kh, w.pad_h);
  fit_window(w.w, w.kw, w.pad_w);
  PoolProblem p = make(op, dtype, rng.pick({DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING}),
                       rng.chance(0.5) ? DLK_FORMAT_NCHW : DLK_FORMAT_NHWC, w);
  p.fill = rng.pick({Fill::uniform, Fill::uniform, Fill::few_values, Fill::negative});
  p.argmax = rng.chance(0.8);
  p.nans = op == DLK_OP_POOL2D_FORWARD && p.desc.kind == DLK_POOL_MAX && is_float_type(dtype) &&
           rng.chance(0.25);
  return p;
}

const char *kind_name(dlk_pool_kind kind) {
  switch (kind) {
    case DLK_POOL_MAX: return "max";
    case DLK_POOL_AVG_INCLUDE_PADDING: return "avg_include_padding";
    case DLK_POOL_AVG_EXCLUDE_PADDING: return "avg_exclude_padding";
  }
  return "unknown";
}

}  // namespace

std::string PoolProblem::describe() const {
  const dlk_pool2d_desc &d = desc;
  std::ostringstream s;
  s << dlk_op_name(op) << " " << kind_name(d.kind) << " " << dlk_dtype_name(d.dtype) << " "
    << (d.format == DLK_FORMAT_NCHW ? "nchw" : "nhwc") << " n=" << d.n << " c=" << d.c
    << " h=" << d.h << " w=" << d.w << " kh=" << d.kh << " kw=" << d.kw << " stride=" << d.stride_h
    << ":" << d.stride_w << " pad=" << d.pad_h << ":" << d.pad_w;
  if (op == DLK_OP_POOL2D_FORWARD && d.kind == DLK_POOL_MAX) s << (argmax ? " argmax" : " no_argmax");
  s << " fill=" << fill_name(fill) << (nans ? " nans" : "");
  return s.str();
}

std::vector<PoolProblem> pool2d_problems(dlk_op op, dlk_dtype dtype, Rng &rng, int random_count) {
  std::vector<PoolProblem> list;
  int i = 0;
  for (dlk_pool_kind kind : {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING})
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
      for (const Window &w : kWindows) {
        PoolProblem p = make(op, dtype, kind, format, w);
        // Ties (max: the first in window order wins; average of integers: half to
        // even) and all-negative data (max must not count the padding as 0).
        p.fill = i % 3 == 0 ? Fill::uniform : i % 3 == 1 ? Fill::few_values : Fill::negative;
        p.argmax = i % 4 != 3;
        list.push_back(p);
        ++i;
      }
  // NaN anywhere in a window is its maximum; several NaNs and ties among them.
  if (op == DLK_OP_POOL2D_FORWARD && is_float_type(dtype))
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
      for (const Window &w : kWindows) {
        PoolProblem p = make(op, dtype, DLK_POOL_MAX, format, w);
        p.fill = Fill::few_values;
        p.nans = true;
        list.push_back(p);
      }
  for (int r = 0; r < random_count; ++r) list.push_back(random_problem(op, dtype, rng));
  return list;
}

PoolTensors make_pool_tensors(const PoolProblem &p, Rng &rng) {
  const dlk_pool2d_desc &d = p.desc;
  const PoolGeometry g(d);
  const auto garbage = [&](dlk_dtype dtype, int64_t elements) {
    HostTensor t(dtype, elements);
    for (int64_t i = 0; i < elements; ++i)
      t.set(i, is_float_type(dtype) ? NAN : random_value(rng, dtype, Fill::uniform));
    return t;
  };
  PoolTensors t;
  t.src = HostTensor(d.dtype, g.src_elements(d));
  fill(t.src, rng, p.fill);
  if (p.nans)
    for (int64_t i = 0; i < t.src.size(); ++i)
      if (rng.chance(0.125)) t.src.set(i, NAN);
  const bool max = d.kind == DLK_POOL_MAX;
  if (p.op == DLK_OP_POOL2D_FORWARD) {
    t.dst = garbage(d.dtype, g.dst_elements(d));
    t.argmax = garbage(DLK_DTYPE_S32, max && p.argmax ? g.dst_elements(d) : 0);
    return t;
  }
  t.diff_dst = HostTensor(d.dtype, g.dst_elements(d));
  fill(t.diff_dst, rng, Fill::uniform);
  t.diff_src = garbage(d.dtype, g.src_elements(d));
  return t;
}

}  // namespace dlk::conformance
