#include "core/conv2d_weights.hpp"

dlk_conv2d_weights::dlk_conv2d_weights(dlk::core::Backend &owner,
                                       const dlk::core::Conv2dArgs &args, size_t bytes)
    : backend(owner), desc(args.desc) {
  desc.scales = nullptr;
  plain = backend.allocate(bytes);
  try {
    backend.copy(plain, args.weights, bytes, DLK_COPY_DEVICE_TO_DEVICE);
  } catch (...) {
    backend.deallocate(plain);
    throw;
  }
}

dlk_conv2d_weights::~dlk_conv2d_weights() { backend.deallocate(plain); }
