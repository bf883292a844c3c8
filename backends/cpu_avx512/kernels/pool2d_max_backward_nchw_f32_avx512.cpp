// f32 NCHW max-pooling backward with AVX-512 intrinsics, as a gather: the
// generic tier scatters each output's gradient to its argmax, one scalar add per
// output (vector scatters cannot add); here each run of 16 diff_src elements of
// a row is one register that collects, from every output whose window holds
// the element, that output's gradient where the output's argmax is the
// element's index. The outputs a row's 16 columns can hear from are at most 32
// consecutive ones of an output row (any window with stride 1 or 2 up to
// 17 or 33 wide), two loads put in each lane's place by vpermt2ps.
//
// The sums are the scatter's: each element adds its outputs' gradients in
// increasing output index (output rows, then columns), starting from +0, so the
// results are bit-identical to the other tiers'. That holds when every argmax
// lies in its output's window; dlk.h allows any index of the plane, so each
// plane counts the argmaxes it met, and a plane that met fewer than its outputs
// is scattered again by the caller's loops.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/cpu_avx512/kernels/pool2d_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

// Candidate t of each lane j of a chunk: output column lo(x0 + j) + t, element
// idx[j] of the 32 outputs from the chunk's base, in `valid` lanes.
struct Candidate {
  alignas(64) int32_t idx[kLanes];
  __mmask16 valid;
};

// Input columns x0 .. x0 + 16 of every row.
struct Chunk {
  int64_t x0, base;
  __mmask16 store, load_lo, load_hi;
  bool one_table;  // every candidate within the first 16 outputs
  std::vector<Candidate> candidates;
};

// The chunks of a row, or none when some chunk's outputs span more than 32.
std::vector<Chunk> plan_chunks(const core::Pool2dArgs &a) {
  const int64_t w = a.desc.w;
  std::vector<Chunk> chunks;
  for (int64_t x0 = 0; x0 < w; x0 += kLanes) {
    const int64_t count = std::min(kLanes, w - x0);
    Chunk c;
    c.x0 = x0, c.store = lane_range(0, count);
    c.base = outputs_holding_column(a, x0).lo;
    int64_t span = 0, candidates = 0;
    for (int64_t j = 0; j < count; ++j) {
      const OutputRange o = outputs_holding_column(a, x0 + j);
      if (o.lo > o.hi) continue;
      span = std::max(span, o.hi - c.base + 1);
      candidates = std::max(candidates, o.hi - o.lo + 1);
    }
    if (span > 2 * kLanes) return {};
    c.one_table = span <= kLanes;
    c.load_lo = lane_range(0, a.ow - c.base), c.load_hi = lane_range(0, a.ow - c.base - kLanes);
    for (int64_t t = 0; t < candidates; ++t) {
      Candidate k{};
      for (int64_t j = 0; j < count; ++j) {
        const OutputRange o = outputs_holding_column(a, x0 + j);
        if (o.lo + t > o.hi) continue;
        k.idx[j] = static_cast<int32_t>(o.lo + t - c.base);
        k.valid = static_cast<__mmask16>(k.valid | (1u << j));
      }
      c.candidates.push_back(k);
    }
    chunks.push_back(std::move(c));
  }
  return chunks;
}

// Chunks [first, last) whose candidates are alike (same lanes, same places
// relative to a base `step` outputs further on for each chunk, all within 16
// outputs that lie in the output row): the middle of a row, where the loop is
// tight. Stride 1, 2, 4, ...: 16 columns on, the windows repeat.
struct Run {
  size_t first = 0, last = 0;
  int64_t step = 0;
};

bool alike(const Chunk &a, const Chunk &b) {
  if (a.store != 0xffff || b.store != 0xffff || a.load_lo != 0xffff || b.load_lo != 0xffff) return false;
  if (!a.one_table || !b.one_table || a.candidates.size() != b.candidates.size()) return false;
  for (size_t t = 0; t < a.candidates.size(); ++t)
    if (a.candidates[t].valid != b.candidates[t].valid ||
        !std::equal(a.candidates[t].idx, a.candidates[t].idx + kLanes, b.candidates[t].idx))
      return false;
  return true;
}

Run plan_run(const std::vector<Chunk> &chunks) {
  Run best;
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    Run r{i, i + 1, chunks[i + 1].base - chunks[i].base};
    while (r.last < chunks.size() && alike(chunks[i], chunks[r.last]) &&
           chunks[r.last].base - chunks[r.last - 1].base == r.step)
      ++r.last;
    if (!alike(chunks[i], chunks[i])) continue;
    if (r.last - r.first > best.last - best.first) best = r;
  }
  return best;
}

// Chunk c's lanes hear from output row `oy` (from `g` and `am` on), added to
// sum; hits counted. T: c's candidates when 1 or 2 (its loops unrolled), else 0.
template <int T>
void add_row(const Chunk &c, const float *g, const int32_t *am, __m512i element, __m512 &sum, __m512i &met) {
  const size_t candidates = T ? T : c.candidates.size();
  const __m512i am_lo = _mm512_maskz_loadu_epi32(c.load_lo, am);
  const __m512 g_lo = _mm512_maskz_loadu_ps(c.load_lo, g);
  const __m512i minus_one = _mm512_set1_epi32(-1);
  if (c.one_table) {
    for (size_t t = 0; t < candidates; ++t) {
      const Candidate &k = c.candidates[t];
      const __m512i idx = _mm512_load_si512(k.idx);
      const __mmask16 hit = _mm512_mask_cmpeq_epi32_mask(k.valid, _mm512_permutexvar_epi32(idx, am_lo), element);
      sum = _mm512_mask_add_ps(sum, hit, sum, _mm512_permutexvar_ps(idx, g_lo));
      met = _mm512_mask_sub_epi32(met, hit, met, minus_one);
    }
    return;
  }
  const __m512i am_hi = _mm512_maskz_loadu_epi32(c.load_hi, am + kLanes);
  const __m512 g_hi = _mm512_maskz_loadu_ps(c.load_hi, g + kLanes);
  for (size_t t = 0; t < candidates; ++t) {
    const Candidate &k = c.candidates[t];
    const __m512i idx = _mm512_load_si512(k.idx);
    const __mmask16 hit =
        _mm512_mask_cmpeq_epi32_mask(k.valid, _mm512_permutex2var_epi32(am_lo, idx, am_hi), element);
    sum = _mm512_mask_add_ps(sum, hit, sum, _mm512_permutex2var_ps(g_lo, idx, g_hi));
    met = _mm512_mask_sub_epi32(met, hit, met, minus_one);
  }
}

template <int T>
void chunk_row(const core::Pool2dArgs &a, const Chunk &c, OutputRange rows, int64_t y, const float *diff_dst,
               const int32_t *argmax, float *diff_src, __m512i &met);

const __m512i kLane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

// The run's chunks of input row y, T candidates each, kept in registers.
template <int T>
void run_row(const core::Pool2dArgs &a, const std::vector<Chunk> &chunks, const Run &run, OutputRange rows,
             int64_t y, const float *diff_dst, const int32_t *argmax, float *diff_src, __m512i &met) {
  const Chunk &c0 = chunks[run.first];
  __m512i idx[T];
  __mmask16 valid[T];
  for (int t = 0; t < T; ++t) idx[t] = _mm512_load_si512(c0.candidates[t].idx), valid[t] = c0.candidates[t].valid;
  const __m512i minus_one = _mm512_set1_epi32(-1);
  __m512i element = _mm512_add_epi32(kLane, _mm512_set1_epi32(static_cast<int32_t>(y * a.desc.w + c0.x0)));
  float *out = diff_src + y * a.desc.w + c0.x0;
  for (size_t i = run.first; i < run.last; ++i) {
    const int64_t base = c0.base + static_cast<int64_t>(i - run.first) * run.step;
    __m512 sum = _mm512_setzero_ps();
    for (int64_t oy = rows.lo; oy <= rows.hi; ++oy) {
      const __m512i am = _mm512_loadu_si512(argmax + oy * a.ow + base);
      const __m512 g = _mm512_loadu_ps(diff_dst + oy * a.ow + base);
      for (int t = 0; t < T; ++t) {
        const __mmask16 hit = _mm512_mask_cmpeq_epi32_mask(valid[t], _mm512_permutexvar_epi32(idx[t], am), element);
        sum = _mm512_mask_add_ps(sum, hit, sum, _mm512_permutexvar_ps(idx[t], g));
        met = _mm512_mask_sub_epi32(met, hit, met, minus_one);
      }
    }
    _mm512_storeu_ps(out, sum);
    out += kLanes;
    element = _mm512_add_epi32(element, _mm512_set1_epi32(kLanes));
  }
}

template <int T>
void chunk_row(const core::Pool2dArgs &a, const Chunk &c, OutputRange rows, int64_t y, const float *diff_dst,
               const int32_t *argmax, float *diff_src, __m512i &met) {
  const __m512i element = _mm512_add_epi32(kLane, _mm512_set1_epi32(static_cast<int32_t>(y * a.desc.w + c.x0)));
  __m512 sum = _mm512_setzero_ps();
  for (int64_t oy = rows.lo; oy <= rows.hi; ++oy)
    add_row<T>(c, diff_dst + oy * a.ow + c.base, argmax + oy * a.ow + c.base, element, sum, met);
  _mm512_mask_storeu_ps(diff_src + y * a.desc.w + c.x0, c.store, sum);
}

struct Plan {
  std::vector<Chunk> chunks;
  Run run;
  std::vector<OutputRange> rows;  // rows[y]: the output rows whose windows hold row y
};

// One plane; returns how many outputs' argmaxes it met.
int64_t gather_plane(const core::Pool2dArgs &a, const Plan &plan, const float *diff_dst, const int32_t *argmax,
                     float *diff_src) {
  const size_t run_candidates = plan.run.last > plan.run.first ? plan.chunks[plan.run.first].candidates.size() : 0;
  __m512i met = _mm512_setzero_si512();
  for (int64_t y = 0; y < a.desc.h; ++y) {
    const OutputRange rows = plan.rows[y];
    for (size_t i = 0; i < plan.chunks.size(); ++i) {
      if (i == plan.run.first && run_candidates == 1) {
        run_row<1>(a, plan.chunks, plan.run, rows, y, diff_dst, argmax, diff_src, met);
        i = plan.run.last - 1;
        continue;
      }
      if (i == plan.run.first && run_candidates == 2) {
        run_row<2>(a, plan.chunks, plan.run, rows, y, diff_dst, argmax, diff_src, met);
        i = plan.run.last - 1;
        continue;
      }
      const Chunk &c = plan.chunks[i];
      switch (c.candidates.size()) {
        case 1: chunk_row<1>(a, c, rows, y, diff_dst, argmax, diff_src, met); break;
        case 2: chunk_row<2>(a, c, rows, y, diff_dst, argmax, diff_src, met); break;
        default: chunk_row<0>(a, c, rows, y, diff_dst, argmax, diff_src, met);
      }
    }
  }
  return _mm512_reduce_add_epi32(met);
}

}  // namespace

bool pool2d_max_backward_nchw_f32_avx512(const core::Pool2dArgs &a, int threads,
                                         void (*scatter_plane)(const core::Pool2dArgs &, int64_t)) {
  Plan plan;
  plan.chunks = plan_chunks(a);
  if (plan.chunks.empty()) return false;
  plan.run = plan_run(plan.chunks);
  plan.rows.resize(static_cast<size_t>(a.desc.h));
  for (int64_t y = 0; y < a.desc.h; ++y) plan.rows[y] = outputs_holding_row(a, y);
  const int64_t plane = a.desc.h * a.desc.w, out_plane = a.oh * a.ow;
  const float *diff_dst = static_cast<const float *>(a.diff_dst);
  float *diff_src = static_cast<float *>(a.diff_src);
  parallel_for(a.desc.n * a.desc.c, threads, [&](int64_t p, int) {
    const int64_t met = gather_plane(a, plan, diff_dst + p * out_plane, a.argmax_in + p * out_plane,
                                     diff_src + p * plane);
    if (met != out_plane) scatter_plane(a, p);
  });
  return true;
}

}  // namespace dlk::cpu::kernels
