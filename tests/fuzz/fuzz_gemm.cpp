// libFuzzer target: dlk_gemm with a descriptor built from the fuzzer's bytes and
// A, B, C and the scales in guarded buffers sized from it. A call that fails must
// leave C untouched and say why; a call whose buffers could not be given (too
// big, or sizes that make no sense) must fail.
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

const dlk_dtype kTypes[] = {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16,
                            DLK_DTYPE_S8,  DLK_DTYPE_U8,  DLK_DTYPE_S32};

// Bytes of `batch` stored matrices (outer x inner, ld apart, stride apart) of
// `elem`-byte elements; 0 when any count is 0; -1 when it cannot be sized.
int64_t stored_bytes(int64_t batch, int64_t stride, int64_t outer, int64_t ld, int64_t inner,
                     int64_t elem) {
  if (batch < 0 || outer < 0 || inner < 0) return -1;
  if (batch == 0 || outer == 0 || inner == 0) return 0;
  const int64_t last = extent(batch - 1, stride, extent(outer - 1, ld));
  return last < 0 ? -1 : extent(extent(last, 1, inner), elem);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  dlk_gemm_desc d;
  const bool valid_types = in.u8() < 224;
  const dlk_dtype a_type = kTypes[in.u8() % 6], b_type = kTypes[in.u8() % 6], c_type = kTypes[in.u8() % 6];
  // Mostly a combination GEMM defines, so the fuzzer reaches past the type check.
  static const dlk_dtype kCombos[][3] = {
      {DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32},   {DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F32},
      {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16}, {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_U8},
      {DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_F32},     {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32},
      {DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_S8},      {DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F16}};
  const auto &combo = kCombos[in.u8() % 8];
  dlk_gemm_desc_init(&d, valid_types ? combo[0] : a_type, valid_types ? combo[1] : b_type,
                     valid_types ? combo[2] : c_type, in.dim(), in.dim(), in.dim());
  static const dlk_layout kLayouts[] = {DLK_ROW_MAJOR, DLK_COL_MAJOR};
  static const dlk_transpose kTrans[] = {DLK_NO_TRANSPOSE, DLK_TRANSPOSE};
  static const dlk_scale_mode kScales[] = {DLK_SCALE_NONE, DLK_SCALE_PER_TENSOR, DLK_SCALE_PER_CHANNEL};
  // The choices, not the fields, are read back: a field may hold a value outside
  // its enum, which C++ may not load as the enum.
  const int layout = in.choice(2), trans_a = in.choice(2), trans_b = in.choice(2),
            scale_mode = in.choice(3);
  store(d.layout, layout, kLayouts);
  store(d.trans_a, trans_a, kTrans);
  store(d.trans_b, trans_b, kTrans);
  store(d.scale_mode, scale_mode, kScales);
  // Leading dimensions: the tightest the layout allows, plus a little, or anything.
  const bool row = layout != 1, ta = trans_a == 1, tb = trans_b == 1;
  const int64_t a_rows = ta ? d.k : d.m, a_cols = ta ? d.m : d.k;
  const int64_t b_rows = tb ? d.n : d.k, b_cols = tb ? d.k : d.n;
  const auto ld = [&](int64_t rows, int64_t cols) {
    const uint8_t b = in.u8();
    const int64_t tight = std::max<int64_t>(1, row ? cols : rows);
    return b < 192 ? tight + (tight < (int64_t(1) << 40) ? (b & 3) : 0) : in.dim();
  };
  d.lda = ld(a_rows, a_cols), d.ldb = ld(b_rows, b_cols), d.ldc = ld(d.m, d.n);
  if (in.u8() < 64) d.batch_count = in.dim();
  d.stride_a = saturated(in.dim(), 8), d.stride_b = saturated(in.dim(), 8),
  d.stride_c = saturated(in.dim(), 16);
  d.alpha = in.real(), d.beta = in.real();
  d.a_zero_point = in.u8() < 128 ? 0 : int(in.u8()) - 128;
  d.c_zero_point = in.u8() < 128 ? 0 : int(in.u8()) - 128;

  // Sizes as dlk.h describes them: A and B are read only when m, n, k, batch > 0.
  Buffers buffers(in);
  const int64_t batch = d.batch_count;
  const bool reads_ab = d.m > 0 && d.n > 0 && d.k > 0 && batch > 0;
  const int64_t sa = batch > 1 ? d.stride_a : 0, sb = batch > 1 ? d.stride_b : 0,
                sc = batch > 1 ? d.stride_c : 0;
  const auto elem = [](dlk_dtype t) { return int64_t(dlk_dtype_size(t)); };
  const int64_t a_bytes = reads_ab ? stored_bytes(batch, sa, row ? a_rows : a_cols, d.lda,
                                                  row ? a_cols : a_rows, elem(d.a_type)) : 0;
  const int64_t b_bytes = reads_ab ? stored_bytes(batch, sb, row ? b_rows : b_cols, d.ldb,
                                                  row ? b_cols : b_rows, elem(d.b_type)) : 0;
  const int64_t c_bytes =
      stored_bytes(batch, sc, row ? d.m : d.n, d.ldc, row ? d.n : d.m, elem(d.c_type));
  const int64_t scale_count = scale_mode == 1 ? 1 : scale_mode == 2 ? d.n : 0;
  float *scales = reinterpret_cast<float *>(buffers.input(extent(scale_count, 4)));
  if (scales)
    for (int64_t j = 0; j < scale_count; ++j) scales[j] = in.real();
  d.scales = scales;
  const uint8_t *a = buffers.input(a_bytes);
  const uint8_t *b = buffers.input(b_bytes);
  uint8_t *c = buffers.output(c_bytes);
  buffers.add_work(double(batch) * double(d.m) * double(d.n) * double(std::max<int64_t>(d.k, 1)));
  if (buffers.must_fail()) a = b = c = nullptr;  // nothing that could run on them

  check_outcome("dlk_gemm", dlk_gemm(context(), &d, a, b, c), buffers,
                a_bytes == 0 && b_bytes == 0 && c_bytes == 0);
  return 0;
}
