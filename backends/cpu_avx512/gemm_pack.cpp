#include "backends/cpu_avx512/gemm_pack.hpp"

#include <algorithm>

#include "backends/cpu_avx512/float_storage.hpp"

namespace dlk::cpu {
namespace {

const void *element_at(const void *base, dlk_dtype dtype, int64_t offset) {
  return static_cast<const unsigned char *>(base) +
         offset * static_cast<int64_t>(dlk_dtype_size(dtype));
}

// Copies one micro-panel, converting each element with `load`. Two loop orders,
// so the loop that walks memory contiguously is the inner one: along the panel's
// width when outer_stride is 1 (vectorisable), else along k.
template <class Elem, class Out, class Load>
void pack_panel(const Elem *src, int64_t outer_stride, int64_t inner_stride, int64_t rows,
                int64_t kc, int width, Out *out, Load load) {
  if (outer_stride == 1) {
    for (int64_t p = 0; p < kc; ++p) {
      const Elem *s = src + p * inner_stride;
      Out *o = out + p * width;
      for (int64_t t = 0; t < rows; ++t) o[t] = load(s[t]);
      for (int64_t t = rows; t < width; ++t) o[t] = Out{0};
    }
    return;
  }
  for (int64_t t = 0; t < rows; ++t) {
    const Elem *s = src + t * outer_stride;
    for (int64_t p = 0; p < kc; ++p) out[p * width + t] = load(s[p * inner_stride]);
  }
  for (int64_t t = rows; t < width; ++t)
    for (int64_t p = 0; p < kc; ++p) out[p * width + t] = Out{0};
}

template <class Elem, class Out, class Load>
void pack_panels(const PanelSource &src, int64_t count, int64_t kc, int width, Out *out,
                 Load load) {
  const Elem *base = static_cast<const Elem *>(src.ptr);
  for (int64_t o0 = 0; o0 < count; o0 += width) {
    const int64_t rows = std::min<int64_t>(width, count - o0);
    pack_panel(base + o0 * src.outer_stride, src.outer_stride, src.inner_stride, rows, kc, width,
               out, load);
    out += kc * width;
  }
}

// The rows layout of the AMX kernels (gemm_pack.hpp), `flip` xored into every
// element from src.
template <class T>
void pack_rows(const PanelSource &src, int64_t count, int64_t kc, int64_t group, T flip, T *out) {
  const auto *base = static_cast<const T *>(src.ptr);
  const int64_t ld = (kc + group - 1) / group * group;
  for (int64_t t = 0; t < count; ++t) {
    const T *row = base + t * src.outer_stride;
    T *o = out + t * ld;
    if (src.inner_stride == 1 && flip == 0)
      std::copy(row, row + kc, o);
    else
      for (int64_t p = 0; p < kc; ++p) o[p] = static_cast<T>(row[p * src.inner_stride] ^ flip);
    std::fill(o + kc, o + ld, T{0});
  }
}

}  // namespace

PanelSource a_block(const core::GemmArgs &g, int64_t batch, int64_t i0, int64_t p0) {
  const int64_t offset = batch * g.a.batch_stride + i0 * g.a.rs + p0 * g.a.cs;
  return {element_at(g.a.ptr, g.a.dtype, offset), g.a.dtype, g.a.rs, g.a.cs};
}

PanelSource b_block(const core::GemmArgs &g, int64_t batch, int64_t p0, int64_t j0) {
  const int64_t offset = batch * g.b.batch_stride + p0 * g.b.rs + j0 * g.b.cs;
  return {element_at(g.b.ptr, g.b.dtype, offset), g.b.dtype, g.b.cs, g.b.rs};
}

namespace {

// A stride in bytes for `steps` elements along it: with one element (or none)
// validation lets the stride be anything, so it is not multiplied out (found by
// fuzz_gemm: lda = INT64_MAX with one row of A overflowed).
int64_t stride_bytes(int64_t stride, int64_t size, int64_t steps) {
  return steps > 1 ? stride * size : 0;
}

// The packing kernels' view of a source whose elements are `elem_bytes` wide:
// true when a stride is 1 and the kernels packed the panels.
bool pack_unit_stride(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                      int64_t count, int64_t kc, int width, uint8_t flip, void *out) {
  const int64_t size = dlk_dtype_size(src.dtype);
  const int64_t panel_bytes = (kc * size + 3) / 4 * 4 * width;
  const auto *base = static_cast<const uint8_t *>(src.ptr);
  auto *o = static_cast<uint8_t *>(out);
  if (src.inner_stride != 1 && src.outer_stride != 1) return false;
  // Panel rows along the lines: all the panels in one call, each line read once.
  if (src.inner_stride != 1) {
    kernels.panel_contiguous(base, stride_bytes(src.inner_stride, size, kc),
                             static_cast<int>(size), kc, static_cast<int>(count), width,
                             static_cast<int>((count + width - 1) / width), flip, o);
    return true;
  }
  for (int64_t o0 = 0; o0 < count; o0 += width, o += panel_bytes) {
    const int rows = static_cast<int>(std::min<int64_t>(width, count - o0));
    kernels.k_contiguous(base + o0 * src.outer_stride * size,
                         stride_bytes(src.outer_stride, size, rows), rows, kc * size, width, flip,
                         o);
  }
  return true;
}

}  // namespace

void pack_f32_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                     int64_t count, int64_t kc, int width, float *out) {
  if (src.dtype == DLK_DTYPE_F32 && pack_unit_stride(kernels, src, count, kc, width, 0, out))
    return;
  if (src.dtype == DLK_DTYPE_BF16 && kernels.bf16_as_f32 &&
      (src.outer_stride == 1 || src.inner_stride == 1)) {
    const auto *base = static_cast<const uint16_t *>(src.ptr);
    for (int64_t o0 = 0; o0 < count; o0 += width, out += kc * width)
      kernels.bf16_as_f32(base + o0 * src.outer_stride, src.outer_stride, src.inner_stride,
                          static_cast<int>(std::min<int64_t>(width, count - o0)), kc, width, out);
    return;
  }
  with_float_storage(src.dtype, [&](auto storage) {
    using Storage = decltype(storage);
    using T = typename Storage::type;
    // A lambda rather than &Storage::load, so the conversion inlines.
    pack_panels<T>(src, count, kc, width, out, [](T v) { return Storage::load(v); });
  });
}

namespace {

// The k-group layouts (G consecutive k per row or column) from any strides, for
// sources no packing kernel takes.
template <class Elem, int G, class Out, class Load>
void pack_group_panels(const PanelSource &src, int64_t count, int64_t kc, int width, Out *out,
                       Load load) {
  const Elem *base = static_cast<const Elem *>(src.ptr);
  const int64_t kcg = (kc + G - 1) / G * G;
  for (int64_t o0 = 0; o0 < count; o0 += width) {
    const int64_t rows = std::min<int64_t>(width, count - o0);
    const Elem *s = base + o0 * src.outer_stride;
    std::fill(out, out + kcg * width, Out{0});
    for (int64_t t = 0; t < rows; ++t)
      for (int64_t p = 0; p < kc; ++p)
        out[(p / G) * width * G + t * G + p % G] =
            load(s[t * src.outer_stride + p * src.inner_stride]);
    out += kcg * width;
  }
}

}  // namespace

void pack_u8_quad_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                         int64_t count, int64_t kc, int width, uint8_t *out) {
  // s8 A becomes u8 by adding 128: flipping the sign bit.
  const uint8_t flip = src.dtype == DLK_DTYPE_U8 ? 0 : 0x80;
  if (pack_unit_stride(kernels, src, count, kc, width, flip, out)) return;
  if (src.dtype == DLK_DTYPE_U8)
    return pack_group_panels<uint8_t, 4>(src, count, kc, width, out, [](uint8_t v) { return v; });
  pack_group_panels<int8_t, 4>(src, count, kc, width, out, [](int8_t v) {
    return static_cast<uint8_t>(static_cast<uint8_t>(v) ^ 0x80u);
  });
}

void pack_s8_quad_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                         int64_t count, int64_t kc, int width, int8_t *out) {
  if (pack_unit_stride(kernels, src, count, kc, width, 0, out)) return;
  pack_group_panels<int8_t, 4>(src, count, kc, width, out, [](int8_t v) { return v; });
}

void pack_bf16_pair_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                           int64_t count, int64_t kc, int width, uint16_t *out) {
  if (pack_unit_stride(kernels, src, count, kc, width, 0, out)) return;
  pack_group_panels<uint16_t, 2>(src, count, kc, width, out, [](uint16_t v) { return v; });
}

void pack_bf16_rows(const PanelSource &src, int64_t count, int64_t kc, uint16_t *out) {
  pack_rows<uint16_t>(src, count, kc, 2, 0, out);
}

void pack_int8_rows(const PanelSource &src, int64_t count, int64_t kc, uint8_t flip,
                    uint8_t *out) {
  pack_rows<uint8_t>(src, count, kc, 4, flip, out);
}

void BPanelPacker::pack_panels(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                               const PackedPanel &first, int64_t count) const {
  const int64_t group = first.type == PackedType::bf16_pairs ? 2
                        : first.type == PackedType::f32        ? 1
                                                               : 4;
  // Bytes of one panel: every layout is 4-byte units, kc padded to the group.
  const int64_t panel_bytes = (kc + group - 1) / group * first.width * 4;
  for (int64_t q = 0; q < count; ++q)
    pack(batch, p0, kc, j0 + q * first.width, std::min<int64_t>(first.width, cols - q * first.width),
         PackedPanel{static_cast<char *>(first.data) + q * panel_bytes, first.type, first.width});
}

void StridedBPanelPacker::pack_panels(int64_t batch, int64_t p0, int64_t kc, int64_t j0,
                                      int64_t cols, const PackedPanel &first,
                                      int64_t count) const {
  const PanelSource src = b_block(args_, batch, p0, j0);
  // Row-major B already in the panels' element type (u8 quads: or s8, shifted
  // by 128).
  const bool u8 = first.type == PackedType::u8_quads;
  const dlk_dtype same = first.type == PackedType::f32          ? DLK_DTYPE_F32
                         : first.type == PackedType::bf16_pairs ? DLK_DTYPE_BF16
                         : u8                                   ? DLK_DTYPE_U8
                                                                : DLK_DTYPE_S8;
  const bool shifted = u8 && src.dtype == DLK_DTYPE_S8;
  if (count == 1 || (src.dtype != same && !shifted) || src.outer_stride != 1 ||
      first.width != 32)
    return BPanelPacker::pack_panels(batch, p0, kc, j0, cols, first, count);
  const int64_t size = dlk_dtype_size(src.dtype);
  kernels_.panel_contiguous(static_cast<const uint8_t *>(src.ptr),
                            stride_bytes(src.inner_stride, size, kc),
                            static_cast<int>(size), kc, static_cast<int>(cols), 32,
                            static_cast<int>(count), shifted ? 0x80 : 0,
                            static_cast<uint8_t *>(first.data));
}

void StridedBPanelPacker::pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                               const PackedPanel &panel) const {
  const PanelSource src = b_block(args_, batch, p0, j0);
  if (panel.type == PackedType::bf16_pairs)
    return pack_bf16_pair_panels(kernels_, src, cols, kc, panel.width,
                                 static_cast<uint16_t *>(panel.data));
  if (panel.type == PackedType::s8_quads)
    return pack_s8_quad_panels(kernels_, src, cols, kc, panel.width,
                               static_cast<int8_t *>(panel.data));
  if (panel.type == PackedType::u8_quads)
    return pack_u8_quad_panels(kernels_, src, cols, kc, panel.width,
                               static_cast<uint8_t *>(panel.data));
  pack_f32_panels(kernels_, src, cols, kc, panel.width, static_cast<float *>(panel.data));
}

}  // namespace dlk::cpu
