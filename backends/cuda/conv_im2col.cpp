#include "backends/cuda/conv_im2col.hpp"

#include "backends/cuda/conv_kernels.hpp"
#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {

bool forward_needs_f32_product(const core::Conv2dArgs &a) {
  return a.bias && a.desc.dst_type != DLK_DTYPE_F32;
}

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &a, LtGemm &gemm, DeviceScratch &scratch,
                                     cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  const size_t element = d.src_type == DLK_DTYPE_F32 ? 4 : 2;
  // The column matrices of one image, then (where needed) the f32 product of every image, on a
  // 256-byte boundary.
  const size_t column_bytes =
      (static_cast<size_t>(d.groups * d.kh * d.kw * a.c_per_group * a.oh * a.ow) * element + 255) / 256 * 256;
  const bool f32_product = forward_needs_f32_product(a);
  const size_t product_bytes = f32_product ? static_cast<size_t>(d.n * d.k * a.oh * a.ow) * sizeof(float) : 0;
  char *base = static_cast<char *>(scratch.get(column_bytes + product_bytes));
  float *product = f32_product ? reinterpret_cast<float *>(base + column_bytes) : nullptr;
  void *out = f32_product ? static_cast<void *>(product) : a.dst;
  const dlk_dtype out_type = f32_product ? DLK_DTYPE_F32 : d.dst_type;
  core::OpResult gemm_result;
  for (int64_t image = 0; image < d.n; ++image) {
    check_cuda(launch_im2col(a, image, base, stream), "im2col kernel launch");
    gemm_result = gemm.run(im2col_gemm_args(a, image, base, out, out_type));
  }
  std::string implementation = "dlk_im2col+" + gemm_result.implementation;
  if (a.bias || a.desc.relu) {
    check_cuda(launch_bias_relu(a, product, stream), "bias_relu kernel launch");
    implementation += f32_product ? "+dlk_bias_relu_f32" : "+dlk_bias_relu";
  }
  return {implementation, 0};
}

}  // namespace dlk::cuda
