// Tensors in host memory, stored exactly as their dtype stores them and read or
// written as doubles, so the references compute in double on the very values a
// backend sees.
#pragma once

#include <cstdint>
#include <vector>

#include "dlk/dlk.h"
#include "tests/conformance/rng.hpp"

namespace dlk::conformance {

class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(dlk_dtype dtype, int64_t elements);

  dlk_dtype dtype() const { return dtype_; }
  int64_t size() const { return size_; }
  size_t bytes() const { return bytes_.size(); }
  const void *data() const { return bytes_.data(); }
  void *data() { return bytes_.data(); }

  double get(int64_t i) const;
  // Rounds to nearest even for float types; integers must be in range.
  void set(int64_t i, double value);

 private:
  dlk_dtype dtype_ = DLK_DTYPE_F32;
  int64_t size_ = 0;
  std::vector<unsigned char> bytes_;
};

bool is_float_type(dlk_dtype dtype);
bool is_int8_type(dlk_dtype dtype);

// How values are drawn. Every value is representable in the tensor's type, so a
// backend and the reference start from the same numbers.
enum class Fill {
  uniform,      // floats in [-1, 1], integers over their whole range
  few_values,   // small integers in [-2, 2] ([0, 4] for u8): many exact ties
  negative,     // floats in [-2, -1], integers in the lower half of their range
  extreme,      // the largest magnitudes of the type (integers), +-1 (floats)
};

const char *fill_name(Fill fill);
double random_value(Rng &rng, dlk_dtype dtype, Fill fill);
void fill(HostTensor &tensor, Rng &rng, Fill fill);

}  // namespace dlk::conformance
