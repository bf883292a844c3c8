// libFuzzer target: dlk_pool2d_forward, _backward and dlk_pool2d_output_shape
// (the first byte picks the call) with a descriptor built from the fuzzer's
// bytes and every tensor in a guarded buffer sized from it by dlk.h's formulas.
// Backward gets argmax values from the fuzzer too: out-of-window indices must be
// refused or ignored, never followed.
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

// dlk.h: oh = (h + 2 pad_h - kh) / stride_h + 1; -1 when it is not a size.
int64_t out_extent(int64_t in, int64_t pad, int64_t kernel, int64_t stride) {
  if (in < 0 || pad < 0 || kernel < 1 || stride < 1) return -1;
  const int64_t padded = extent(pad, 2, in);
  if (padded < 0 || padded < kernel) return -1;
  return (padded - kernel) / stride + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  const int call = in.u8() % 3;
  static const dlk_pool_kind kKinds[] = {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING,
                                         DLK_POOL_AVG_EXCLUDE_PADDING};
  static const dlk_dtype kTypes[] = {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16,
                                     DLK_DTYPE_S8,  DLK_DTYPE_U8,  DLK_DTYPE_S32};
  dlk_pool2d_desc d;
  dlk_pool2d_desc_init(&d, DLK_POOL_MAX, DLK_DTYPE_F32, in.dim(), in.dim(), in.dim(), in.dim(),
                       in.dim() & 7, in.dim() & 7);
  store(d.kind, in.choice(3), kKinds);
  store(d.dtype, in.choice(6), kTypes);
  static const dlk_format kFormats[] = {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC};
  store(d.format, in.choice(2), kFormats);
  if (in.flag()) d.kh = in.dim(), d.kw = in.dim();
  if (in.flag()) d.stride_h = in.dim(), d.stride_w = in.dim();
  if (in.flag()) d.pad_h = in.dim() & 3, d.pad_w = in.dim() & 3;
  if (in.flag()) d.pad_h = in.dim(), d.pad_w = in.dim();

  const int64_t oh = out_extent(d.h, d.pad_h, d.kh, d.stride_h);
  const int64_t ow = out_extent(d.w, d.pad_w, d.kw, d.stride_w);
  if (call == 2) {
    int64_t got_h = -7, got_w = -7;
    const dlk_status status = dlk_pool2d_output_shape(&d, &got_h, in.flag() ? nullptr : &got_w);
    if (status == DLK_STATUS_SUCCESS) require(got_h == oh && got_w == ow);
    else require(got_h == -7 && got_w == -7);
    return 0;
  }

  Buffers buffers(in);
  const int64_t elem = dtype_size(d.dtype);
  const int64_t planes = extent(d.n, d.c);
  const int64_t src_elems = extent(extent(planes, d.h), d.w);
  const int64_t dst_elems = oh < 0 || ow < 0 ? -1 : extent(extent(planes, oh), ow);
  const auto bytes = [](int64_t elems, int64_t e) { return elems < 0 ? -1 : extent(elems, e); };
  const int64_t work = extent(dst_elems, std::max<int64_t>(1, extent(d.kh, d.kw)));
  buffers.add_work(work < 0 ? 1e30 : double(work));
  const bool with_argmax = in.flag();
  dlk_status status;
  if (call == 0) {
    const uint8_t *src = buffers.input(bytes(src_elems, elem));
    uint8_t *dst = buffers.output(bytes(dst_elems, elem));
    auto *argmax = with_argmax ? reinterpret_cast<int32_t *>(buffers.output(bytes(dst_elems, 4))) : nullptr;
    if (buffers.must_fail()) src = dst = nullptr, argmax = nullptr;
    status = dlk_pool2d_forward(context(), &d, src, dst, argmax);
  } else {
    const uint8_t *diff_dst = buffers.input(bytes(dst_elems, elem));
    const auto *argmax = with_argmax ? reinterpret_cast<const int32_t *>(buffers.input(bytes(dst_elems, 4))) : nullptr;
    uint8_t *diff_src = buffers.output(bytes(src_elems, elem));
    if (buffers.must_fail()) diff_dst = diff_src = nullptr, argmax = nullptr;
    status = dlk_pool2d_backward(context(), &d, diff_dst, argmax, diff_src);
  }
  check_outcome(call == 0 ? "dlk_pool2d_forward" : "dlk_pool2d_backward", status, buffers,
                src_elems == 0 && dst_elems == 0);
  return 0;
}
