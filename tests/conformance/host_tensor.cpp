#include "tests/conformance/host_tensor.hpp"

#include <cmath>
#include <cstring>

#include "core/numeric.hpp"

namespace dlk::conformance {

namespace {

template <class T>
T load(const unsigned char *p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <class T>
void store(unsigned char *p, int64_t i, T v) {
  std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

}  // namespace

HostTensor::HostTensor(dlk_dtype dtype, int64_t elements)
    : dtype_(dtype),
      size_(elements),
      bytes_(static_cast<size_t>(elements) * dlk_dtype_size(dtype)) {}

double HostTensor::get(int64_t i) const {
  const unsigned char *p = bytes_.data();
  switch (dtype_) {
    case DLK_DTYPE_F32: return load<float>(p, i);
    case DLK_DTYPE_F16: return core::f16_to_f32(load<uint16_t>(p, i));
    case DLK_DTYPE_BF16: return core::bf16_to_f32(load<uint16_t>(p, i));
    case DLK_DTYPE_S8: return load<int8_t>(p, i);
    case DLK_DTYPE_U8: return load<uint8_t>(p, i);
    case DLK_DTYPE_S32: return load<int32_t>(p, i);
  }
  return NAN;
}

void HostTensor::set(int64_t i, double value) {
  unsigned char *p = bytes_.data();
  switch (dtype_) {
    case DLK_DTYPE_F32: store(p, i, static_cast<float>(value)); return;
    case DLK_DTYPE_F16: store(p, i, core::f32_to_f16(static_cast<float>(value))); return;
    case DLK_DTYPE_BF16: store(p, i, core::f32_to_bf16(static_cast<float>(value))); return;
    case DLK_DTYPE_S8: store(p, i, static_cast<int8_t>(value)); return;
    case DLK_DTYPE_U8: store(p, i, static_cast<uint8_t>(value)); return;
    case DLK_DTYPE_S32: store(p, i, static_cast<int32_t>(value)); return;
  }
}

bool is_float_type(dlk_dtype dtype) {
  return dtype == DLK_DTYPE_F32 || dtype == DLK_DTYPE_F16 || dtype == DLK_DTYPE_BF16;
}

bool is_int8_type(dlk_dtype dtype) { return dtype == DLK_DTYPE_S8 || dtype == DLK_DTYPE_U8; }

const char *fill_name(Fill fill) {
  switch (fill) {
    case Fill::uniform: return "uniform";
    case Fill::few_values: return "few_values";
    case Fill::negative: return "negative";
    case Fill::extreme: return "extreme";
  }
  return "unknown";
}

double random_value(Rng &rng, dlk_dtype dtype, Fill fill) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
    case DLK_DTYPE_S8: lo = -128, hi = 127; break;
    case DLK_DTYPE_U8: lo = 0, hi = 255; break;
    case DLK_DTYPE_S32: lo = INT32_MIN, hi = INT32_MAX; break;
    default: break;
  }
  const bool floating = is_float_type(dtype);
  switch (fill) {
    case Fill::uniform:
      return floating ? 2 * rng.unit() - 1 : static_cast<double>(rng.uniform(lo, hi));
    case Fill::few_values:
      return static_cast<double>(rng.uniform(0, 4) - (dtype == DLK_DTYPE_U8 ? 0 : 2));
    case Fill::negative:
      return floating ? -1 - rng.unit() : static_cast<double>(rng.uniform(lo, lo + (hi - lo) / 2));
    case Fill::extreme:
      if (floating) return rng.chance(0.5) ? 1.0 : -1.0;
      return static_cast<double>(rng.chance(0.5) ? lo : hi);
  }
  return 0;
}

void fill(HostTensor &tensor, Rng &rng, Fill fill) {
  for (int64_t i = 0; i < tensor.size(); ++i) tensor.set(i, random_value(rng, tensor.dtype(), fill));
}

}  // namespace dlk::conformance
