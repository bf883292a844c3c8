// A tensor in a target's memory (dlk_malloc, dlk_memcpy), with guard bands on
// both sides so a write past either end is seen, and an optional start a few
// elements past the allocation's 64-byte alignment.
#pragma once

#include <cstdint>
#include <vector>

#include "tests/conformance/host_tensor.hpp"
#include "tests/conformance/targets.hpp"

namespace dlk::conformance {

class DeviceBuffer {
 public:
  // Allocates and uploads `initial`; throws std::runtime_error when dlk fails.
  DeviceBuffer(const Target &target, const HostTensor &initial, int64_t misalign_elements = 0);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *data() const { return data_; }

  // The tensor as the device holds it now.
  HostTensor download() const;
  // Whether the bytes around the tensor are still those written at upload.
  bool guards_intact() const;
  // Whether the tensor still holds what was uploaded.
  bool unchanged() const;

 private:
  std::vector<unsigned char> read_all() const;

  const Target &target_;
  HostTensor initial_;
  size_t front_ = 0;  // guard bytes before the tensor
  std::vector<unsigned char> image_;  // guards and tensor as uploaded
  void *base_ = nullptr;
  void *data_ = nullptr;
};

}  // namespace dlk::conformance
