#include "perf/workloads/compress_read_roof.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf {
namespace {

constexpr size_t kPage = 4096;

size_t round_up(size_t bytes, size_t unit) { return (bytes + unit - 1) / unit * unit; }

}  // namespace

void ReadRoof::Free::operator()(char *p) const { std::free(p); }

ReadRoof::ReadRoof(size_t working_set)
    : bytes_(round_up(working_set, kernels::kReadGranule)),
      buffer_(static_cast<char *>(std::aligned_alloc(kPage, round_up(bytes_, kPage)))),
      loop_(widest_read_loop()) {
  if (!buffer_) throw std::bad_alloc();
  std::memset(buffer_.get(), 1, bytes_);
}

Candidate ReadRoof::candidate(const std::string &name) {
  return {name, [this] { sink_ += loop_.run(buffer_.get(), bytes_); }};
}

}  // namespace dlk::perf
