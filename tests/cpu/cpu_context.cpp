#include "tests/cpu/cpu_context.hpp"

#include <map>
#include <stdexcept>

namespace dlk::cpu_test {

std::vector<std::string> cpu_tiers() {
  std::vector<std::string> tiers;
  for (const char *isa : {"avx512", "avx2", "scalar"}) {
    dlk_context_options o;
    dlk_context_options_init(&o);
    o.backend = "cpu", o.cpu_isa = isa;
    dlk_context_t ctx = nullptr;
    if (dlk_context_create(&ctx, &o) != DLK_STATUS_SUCCESS) continue;
    dlk_context_info info;
    // A tier above the CPU's is capped to what it has: keep each tier once.
    if (dlk_context_get_info(ctx, &info) == DLK_STATUS_SUCCESS && std::string(info.isa) == isa)
      tiers.push_back(isa);
    dlk_context_destroy(ctx);
  }
  return tiers;
}

Context::Context(const std::string &isa, int threads) {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "cpu", o.cpu_isa = isa.empty() ? nullptr : isa.c_str(), o.num_threads = threads;
  if (dlk_context_create(&ctx_, &o) != DLK_STATUS_SUCCESS)
    throw std::runtime_error(dlk_last_error());
}

Context::~Context() { dlk_context_destroy(ctx_); }

std::vector<float> column_major_gemm(const Context &ctx, const dlk_gemm_desc &d,
                                     const std::vector<float> &a, const std::vector<float> &b) {
  Buffer<float> da(ctx, a), db(ctx, b);
  Buffer<float> dc(ctx, std::vector<float>(static_cast<size_t>(d.n * d.ldc), -1.0f));
  if (dlk_gemm(ctx.get(), &d, da.data(), db.data(), dc.data()) != DLK_STATUS_SUCCESS)
    throw std::runtime_error(dlk_last_error());
  return dc.values();
}

std::string implementation(const Context &ctx) {
  dlk_op_record record;
  if (dlk_context_last_op(ctx.get(), &record) != DLK_STATUS_SUCCESS)
    throw std::runtime_error(dlk_last_error());
  return record.implementation;
}

bool runs_on_amx(const std::string &isa, dlk_dtype type) {
  static std::map<std::pair<std::string, dlk_dtype>, bool> known;
  const auto key = std::make_pair(isa, type);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  const Context ctx(isa, 1);
  const bool int8 = type != DLK_DTYPE_BF16;
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, type, int8 ? DLK_DTYPE_S8 : type, int8 ? DLK_DTYPE_S32 : DLK_DTYPE_F32,
                     32, 32, 64);
  // Zero bytes of either type, enough for both.
  const std::vector<uint16_t> zeros(32 * 64, 0);
  Buffer<uint16_t> a(ctx, zeros), b(ctx, zeros);
  Buffer<float> c(ctx, std::vector<float>(32 * 32, 0.0f));
  if (dlk_gemm(ctx.get(), &d, a.data(), b.data(), c.data()) != DLK_STATUS_SUCCESS)
    throw std::runtime_error(dlk_last_error());
  return known[key] = implementation(ctx).find("amx") != std::string::npos;
}

bool lowers_to_amx(const std::string &isa, dlk_dtype type, int64_t c, int64_t groups) {
  const bool int8 = type == DLK_DTYPE_U8 || type == DLK_DTYPE_S8;
  return (type == DLK_DTYPE_BF16 || int8) && c / groups >= 16 &&
         runs_on_amx(isa, int8 ? DLK_DTYPE_U8 : type);
}

std::vector<int> random_ints(size_t count, int lo, int hi, std::mt19937 &rng) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(count);
  for (int &x : v) x = dist(rng);
  return v;
}

uint16_t bf16_bits(float v) {  // round to nearest even
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

uint16_t f16_bits(int64_t v) {
  if (v < -2047 || v > 2047) throw std::invalid_argument("f16_bits: |v| must be below 2048");
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const uint32_t m = static_cast<uint32_t>(v < 0 ? -v : v);
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;  // m in [2^e, 2^(e + 1))
  return static_cast<uint16_t>(sign | (e + 15) << 10 | ((m << (10 - e)) & 0x3ffu));
}

}  // namespace dlk::cpu_test
