#include "backends/cuda/conv_im2col.hpp"

#include "backends/cuda/conv_kernels.hpp"
#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &a, LtGemm &gemm, DeviceScratch &col,
                                     cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  const size_t element = d.src_type == DLK_DTYPE_F32 ? 4 : 2;
  void *columns = col.get(static_cast<size_t>(d.groups * d.kh * d.kw * a.c_per_group * a.oh * a.ow) * element);
  core::OpResult gemm_result;
  for (int64_t image = 0; image < d.n; ++image) {
    check_cuda(launch_im2col(a, image, columns, stream), "im2col kernel launch");
    gemm_result = gemm.run(im2col_gemm_args(a, image, columns));
  }
  std::string implementation = "dlk_im2col+" + gemm_result.implementation;
  if (a.bias || a.desc.relu) {
    check_cuda(launch_bias_relu(a, stream), "bias_relu kernel launch");
    implementation += "+dlk_bias_relu";
  }
  return {implementation, 0};
}

}  // namespace dlk::cuda
