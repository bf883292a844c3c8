// libFuzzer target: dlk_conv2d_forward (plain, or through
// dlk_conv2d_weights_create and dlk_conv2d_forward_packed), _backward_data
// (plain, or through dlk_conv2d_weights_create_for and
// dlk_conv2d_backward_data_packed), _backward_weights and dlk_conv2d_output_shape (the first byte picks the
// call) with a descriptor built from the fuzzer's bytes and every tensor in a
// guarded buffer sized from it by dlk.h's formulas. The checks are fuzz_support.hpp's check_outcome; a shape
// that output_shape accepts must be the formula's.
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

struct Shape {
  int64_t oh = -1, ow = -1;
};

// dlk.h: oh = (h + 2 pad_h - dilation_h (kh - 1) - 1) / stride_h + 1; -1 when it is
// not a size (a bad field, an overflow, or no output row).
int64_t out_extent(int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride) {
  if (in < 0 || pad < 0 || dilation < 1 || kernel < 1 || stride < 1) return -1;
  const int64_t padded = extent(pad, 2, in), reach = extent(dilation, kernel - 1, 1);
  if (padded < 0 || reach < 0 || padded < reach) return -1;
  return (padded - reach) / stride + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  const int call = in.u8() % 4;
  static const dlk_dtype kFloat[] = {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16};
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, kFloat[in.u8() % 3], in.dim(), in.dim(), in.dim(), in.dim(), in.dim(),
                       in.dim() & 7, in.dim() & 7);
  if (in.flag()) d.kh = in.dim(), d.kw = in.dim();
  static const dlk_format kFormats[] = {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC};
  store(d.format, in.choice(2), kFormats);
  if (in.flag()) d.stride_h = in.dim(), d.stride_w = in.dim();
  if (in.flag()) d.pad_h = in.dim() & 3, d.pad_w = in.dim() & 3;
  if (in.flag()) d.pad_h = in.dim(), d.pad_w = in.dim();
  if (in.flag()) d.dilation_h = in.dim(), d.dilation_w = in.dim();
  if (in.flag()) d.groups = in.dim();
  d.relu = in.u8() < 192 ? 0 : in.u8() % 2;
  static const dlk_scale_mode kScales[] = {DLK_SCALE_NONE, DLK_SCALE_PER_TENSOR, DLK_SCALE_PER_CHANNEL};
  int scale_mode = 0;  // read back instead of the field, which may hold a non-enum value
  if (in.u8() >= 160) {  // an int8 forward: u8|s8 x s8 -> s32|f32|s8|u8
    static const dlk_dtype kSrc[] = {DLK_DTYPE_U8, DLK_DTYPE_S8};
    static const dlk_dtype kDst[] = {DLK_DTYPE_S32, DLK_DTYPE_F32, DLK_DTYPE_S8, DLK_DTYPE_U8};
    d.src_type = kSrc[in.u8() % 2], d.weights_type = DLK_DTYPE_S8, d.dst_type = kDst[in.u8() % 4];
    d.src_zero_point = int(in.u8()) - 128, d.dst_zero_point = int(in.u8()) - 128;
    scale_mode = in.choice(3);
    store(d.scale_mode, scale_mode, kScales);
  }
  static const dlk_dtype kAny[] = {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16,
                                   DLK_DTYPE_S8,  DLK_DTYPE_U8,  DLK_DTYPE_S32};
  if (in.u8() >= 248) store(d.weights_type, in.choice(6), kAny);

  const Shape s{out_extent(d.h, d.pad_h, d.dilation_h, d.kh, d.stride_h),
                out_extent(d.w, d.pad_w, d.dilation_w, d.kw, d.stride_w)};
  if (call == 3) {
    int64_t oh = -7, ow = -7;
    const dlk_status status = dlk_conv2d_output_shape(&d, in.flag() ? nullptr : &oh, &ow);
    if (status == DLK_STATUS_SUCCESS) require(oh == s.oh && ow == s.ow);
    else require(oh == -7 && ow == -7);
    return 0;
  }

  Buffers buffers(in);
  static const dlk_dtype kF32 = DLK_DTYPE_F32;
  const int64_t cg = d.groups >= 1 ? d.c / d.groups : -1;
  const int64_t src_elems = extent(extent(extent(d.n, d.c), d.h), d.w);
  const int64_t dst_elems = s.oh < 0 || s.ow < 0 ? -1 : extent(extent(extent(d.n, d.k), s.oh), s.ow);
  const int64_t wei_elems = extent(extent(extent(d.k, cg), d.kh), d.kw);
  const auto bytes = [](int64_t elems, const dlk_dtype &t) { return elems < 0 ? -1 : extent(elems, dtype_size(t)); };
  const int64_t work = extent(dst_elems, std::max<int64_t>(1, extent(extent(cg, d.kh), d.kw)));
  buffers.add_work(work < 0 ? 1e30 : double(work));
  const bool with_bias = in.flag();
  const char *names[] = {"dlk_conv2d_forward", "dlk_conv2d_backward_data", "dlk_conv2d_backward_weights"};
  const char *name = names[call];
  // The forward and backward data also through packed weights (packed for
  // this desc, or for another batch; for backward data with the passes the
  // fuzzer's bytes give), destroyed once the outcome is checked.
  const bool through_packed = call <= 1 && in.flag();
  dlk_conv2d_weights_t packed = nullptr;
  const dlk_status status = [&] {
    switch (call) {
      case 0: {
        const int64_t scale_count = scale_mode == 1 ? 1 : scale_mode == 2 ? d.k : 0;
        float *scales = reinterpret_cast<float *>(buffers.input(extent(scale_count, 4)));
        if (scales)
          for (int64_t i = 0; i < scale_count; ++i) scales[i] = in.real();
        d.scales = scales;
        const uint8_t *src = buffers.input(bytes(src_elems, d.src_type));
        const uint8_t *wei = buffers.input(bytes(wei_elems, d.weights_type));
        const auto *bias = with_bias ? reinterpret_cast<const float *>(buffers.input(bytes(d.k, kF32))) : nullptr;
        uint8_t *dst = buffers.output(bytes(dst_elems, d.dst_type));
        if (buffers.must_fail()) src = wei = dst = nullptr, bias = nullptr;
        if (!through_packed) return dlk_conv2d_forward(context(), &d, src, wei, bias, dst);
        dlk_conv2d_desc packed_for = d;
        if (in.flag()) packed_for.n = in.dim();
        const dlk_status made = dlk_conv2d_weights_create(context(), &packed_for, wei, &packed);
        if (made != DLK_STATUS_SUCCESS) {
          require(packed == nullptr);
          name = "dlk_conv2d_weights_create";
          return made;
        }
        name = "dlk_conv2d_forward_packed";
        return dlk_conv2d_forward_packed(context(), &d, src, packed, bias, dst);
      }
      case 1: {
        const uint8_t *diff_dst = buffers.input(bytes(dst_elems, d.dst_type));
        const uint8_t *wei = buffers.input(bytes(wei_elems, d.weights_type));
        uint8_t *diff_src = buffers.output(bytes(src_elems, d.src_type));
        if (buffers.must_fail()) diff_dst = wei = diff_src = nullptr;
        if (!through_packed) return dlk_conv2d_backward_data(context(), &d, diff_dst, wei, diff_src);
        dlk_conv2d_desc packed_for = d;
        if (in.flag()) packed_for.n = in.dim();
        const unsigned passes = in.u8() < 224 ? DLK_CONV2D_PASS_BACKWARD_DATA | (in.flag() ? DLK_CONV2D_PASS_FORWARD : 0)
                                              : in.u8();
        const dlk_status made = dlk_conv2d_weights_create_for(context(), &packed_for, wei, passes, &packed);
        if (made != DLK_STATUS_SUCCESS) {
          require(packed == nullptr);
          name = "dlk_conv2d_weights_create_for";
          return made;
        }
        name = "dlk_conv2d_backward_data_packed";
        return dlk_conv2d_backward_data_packed(context(), &d, diff_dst, packed, diff_src);
      }
      default: {
        const uint8_t *src = buffers.input(bytes(src_elems, d.src_type));
        const uint8_t *diff_dst = buffers.input(bytes(dst_elems, d.dst_type));
        uint8_t *diff_wei = buffers.output(bytes(wei_elems, d.weights_type));
        auto *diff_bias = with_bias ? reinterpret_cast<float *>(buffers.output(bytes(d.k, kF32))) : nullptr;
        if (buffers.must_fail()) src = diff_dst = diff_wei = nullptr, diff_bias = nullptr;
        return dlk_conv2d_backward_weights(context(), &d, src, diff_dst, diff_wei, diff_bias);
      }
    }
  }();
  // Without tensors to read or write, no buffer is needed and the call may succeed:
  // an empty batch reads nothing, but backward weights still writes diff_weights.
  const bool nothing = src_elems == 0 && dst_elems == 0 && wei_elems == 0;
  check_outcome(name, status, buffers, call == 2 ? wei_elems == 0 : d.n == 0 || nothing);
  require(dlk_conv2d_weights_destroy(context(), packed) == DLK_STATUS_SUCCESS);
  return 0;
}
