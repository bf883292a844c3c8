#include "tests/conformance/device_buffer.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace dlk::conformance {

namespace {

constexpr size_t kGuardBytes = 64;
// All ones: NaN in every float type, so a kernel that reads past an end and
// uses what it found produces NaN rather than a plausible number.
constexpr unsigned char kGuardByte = 0xff;

void check(dlk_status status, const char *what) {
  if (status != DLK_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " returned " + dlk_status_name(status) + ": " +
                             dlk_last_error());
}

}  // namespace

DeviceBuffer::DeviceBuffer(const Target &target, const HostTensor &initial, int64_t misalign_elements)
    : target_(target),
      initial_(initial),
      front_(kGuardBytes + static_cast<size_t>(misalign_elements) * dlk_dtype_size(initial.dtype())) {
  image_.assign(front_ + initial.bytes() + kGuardBytes, kGuardByte);
  if (initial.bytes() > 0) std::memcpy(image_.data() + front_, initial.data(), initial.bytes());
  check(dlk_malloc(target_.context, image_.size(), &base_), "dlk_malloc");
  data_ = static_cast<unsigned char *>(base_) + front_;
  check(dlk_memcpy(target_.context, base_, image_.data(), image_.size(), DLK_COPY_HOST_TO_DEVICE),
        "dlk_memcpy (host to device)");
}

DeviceBuffer::~DeviceBuffer() { dlk_free(target_.context, base_); }

std::vector<unsigned char> DeviceBuffer::read_all() const {
  std::vector<unsigned char> bytes(image_.size());
  check(dlk_synchronize(target_.context), "dlk_synchronize");
  check(dlk_memcpy(target_.context, bytes.data(), base_, bytes.size(), DLK_COPY_DEVICE_TO_HOST),
        "dlk_memcpy (device to host)");
  return bytes;
}

HostTensor DeviceBuffer::download() const {
  HostTensor t(initial_.dtype(), initial_.size());
  const std::vector<unsigned char> bytes = read_all();
  if (t.bytes() > 0) std::memcpy(t.data(), bytes.data() + front_, t.bytes());
  return t;
}

bool DeviceBuffer::guards_intact() const {
  const std::vector<unsigned char> bytes = read_all();
  const size_t back = front_ + initial_.bytes();
  return std::memcmp(bytes.data(), image_.data(), front_) == 0 &&
         std::memcmp(bytes.data() + back, image_.data() + back, bytes.size() - back) == 0;
}

bool DeviceBuffer::unchanged() const {
  const std::vector<unsigned char> bytes = read_all();
  return std::memcmp(bytes.data() + front_, image_.data() + front_, initial_.bytes()) == 0;
}

}  // namespace dlk::conformance
