// libFuzzer target: the memory and record calls of dlk.h in an order and with
// arguments from the fuzzer's bytes, on one cpu context. dlk_malloc of any size
// (beyond PTRDIFF_MAX refused), dlk_free of its blocks, of NULL, of a block
// freed already and of memory it never gave; dlk_memcpy between host memory and
// its blocks with every kind, NULL and overlapping ranges; dlk_synchronize; dlk_context_last_op_sized,
// dlk_context_last_sim and the *_desc_init_sized calls with the caller's struct
// size below, at and above this library's sizeof, each into a buffer of exactly
// that size, so a byte written past it faults.
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

constexpr int kSlots = 4;

struct Block {
  void *ptr = nullptr;
  size_t bytes = 0;
};

// A failure names the call; a success leaves no message.
void check_message(const char *call, dlk_status status) {
  if (status != DLK_STATUS_SUCCESS)
    require(std::string(dlk_last_error()).rfind(std::string(call) + ": ", 0) == 0);
  else
    require(dlk_last_error()[0] == '\0');
}

// A struct size around `size`: 0, a little below or above, exactly it; a
// multiple of 8, so the struct, which ends flush against the guard page, stays
// aligned as a C caller's is.
size_t struct_size_around(Bytes &in, size_t size) {
  switch (in.u8() % 5) {
    case 0: return 0;
    case 1: return size - 8;
    case 2: return size + 8 * (1 + in.u8() % 8);
    case 3: return in.u8() % (size + 1) / 8 * 8;
    default: return size;
  }
}

void malloc_block(Bytes &in, Block &b, dlk_context_t ctx) {
  if (b.ptr) return;
  const uint8_t kind = in.u8();
  // Sizes past PTRDIFF_MAX must be refused before any allocation (libFuzzer
  // itself stops on a real allocation of gigabytes).
  const size_t bytes = kind < 224   ? size_t(kind) * (1 + in.u8() % 64)
                       : kind < 240 ? size_t(PTRDIFF_MAX) + 1 + (kind & 1)
                                    : SIZE_MAX - (kind & 7);
  void *const kUntouched = reinterpret_cast<void *>(uintptr_t{0x5a5a0});
  void *ptr = kUntouched;
  const dlk_status status = dlk_malloc(ctx, bytes, &ptr);
  check_message("dlk_malloc", status);
  if (status != DLK_STATUS_SUCCESS) {
    require(status == DLK_STATUS_OUT_OF_MEMORY && ptr == kUntouched);
    return;
  }
  require(bytes <= size_t(PTRDIFF_MAX));
  require(bytes == 0 ? ptr == nullptr : ptr != nullptr && reinterpret_cast<uintptr_t>(ptr) % 64 == 0);
  if (bytes) std::memset(ptr, 0x3c, bytes);  // the whole block is usable
  b.ptr = ptr, b.bytes = bytes;
}

void free_block(Bytes &in, Block &b, dlk_context_t ctx, GuardedBuffer &host) {
  switch (in.u8() % 4) {
    case 0: {  // its own block, then that block again: no longer owned
      const dlk_status status = dlk_free(ctx, b.ptr);
      check_message("dlk_free", status);
      require(status == DLK_STATUS_SUCCESS);
      if (b.ptr) require(dlk_free(ctx, b.ptr) == DLK_STATUS_INVALID_ARGUMENT);
      b = Block{};
      return;
    }
    case 1: require(dlk_free(ctx, nullptr) == DLK_STATUS_SUCCESS); return;
    case 2: {  // memory dlk never gave: refused, nothing freed
      const dlk_status status = dlk_free(ctx, host.data());
      check_message("dlk_free", status);
      require(status == DLK_STATUS_INVALID_ARGUMENT);
      return;
    }
    default:  // inside its own block, not its start
      if (b.bytes > 1) {
        const dlk_status status = dlk_free(ctx, static_cast<char *>(b.ptr) + 1);
        check_message("dlk_free", status);
        require(status == DLK_STATUS_INVALID_ARGUMENT);
      }
  }
}

void copy(Bytes &in, Block &b, dlk_context_t ctx, GuardedBuffer &host) {
  // Valid kinds only: C++ cannot pass a by-value enum outside its range (a raw
  // int there is tested from C, tests/core/c_enum_calls.c).
  static const dlk_copy_kind kKinds[] = {DLK_COPY_HOST_TO_DEVICE, DLK_COPY_DEVICE_TO_HOST,
                                         DLK_COPY_DEVICE_TO_DEVICE};
  const dlk_copy_kind kind = kKinds[in.u8() % 3];
  const bool to_device = in.flag();
  const size_t room = std::min(b.bytes, host.size());
  size_t bytes = room ? in.u8() % (room + 1) : 0;
  void *dst = to_device ? b.ptr : static_cast<void *>(host.data());
  const void *src = to_device ? static_cast<const void *>(host.data()) : b.ptr;
  const uint8_t twist = in.u8() % 8;
  if (twist == 0) dst = nullptr;
  if (twist == 1) src = nullptr;
  if (twist == 2 && b.bytes > 1) {  // the block onto itself, shifted by one: overlapping
    dst = static_cast<char *>(b.ptr) + 1, src = b.ptr;
    bytes = b.bytes - 1 ? 1 + in.u8() % (b.bytes - 1) : 0;
  }
  in.fill(host.data(), host.size());
  std::vector<uint8_t> before(host.data(), host.data() + host.size());
  const dlk_status status = dlk_memcpy(ctx, dst, src, bytes, kind);
  check_message("dlk_memcpy", status);
  if (status != DLK_STATUS_SUCCESS) {
    require(std::memcmp(before.data(), host.data(), host.size()) == 0);
    return;
  }
  if (dst && src && bytes) require(std::memcmp(dst, src, bytes) == 0 || twist == 2);
}

void records(Bytes &in, dlk_context_t ctx) {
  {
    const size_t size = struct_size_around(in, sizeof(dlk_op_record));
    GuardedBuffer out(size);
    out.poison();
    const dlk_status status =
        dlk_context_last_op_sized(ctx, reinterpret_cast<dlk_op_record *>(out.data()), size);
    check_message("dlk_context_last_op", status);
    if (status != DLK_STATUS_SUCCESS) require(out.poisoned());
    if (size < sizeof(dlk_op_record)) require(status == DLK_STATUS_INVALID_ARGUMENT);
  }
  {
    const size_t size = std::max(sizeof(size_t), struct_size_around(in, sizeof(dlk_sim_record)));
    GuardedBuffer out(size);
    out.poison();
    std::memcpy(out.data(), &size, sizeof size);
    const dlk_status status =
        dlk_context_last_sim(ctx, reinterpret_cast<dlk_sim_record *>(out.data()));
    check_message("dlk_context_last_sim", status);
    require(status == DLK_STATUS_INVALID_ARGUMENT);  // a cpu context has no simulated record
    require(std::memcmp(out.data(), &size, sizeof size) == 0);
  }
}

void init_sized(Bytes &in) {
  const int64_t a = in.dim(), b = in.dim(), c = in.dim();
  switch (in.u8() % 3) {
    case 0: {
      const size_t size = struct_size_around(in, sizeof(dlk_gemm_desc));
      GuardedBuffer out(size);
      dlk_gemm_desc_init_sized(reinterpret_cast<dlk_gemm_desc *>(out.data()), size, DLK_DTYPE_F32,
                               DLK_DTYPE_F32, DLK_DTYPE_F32, a, b, c);
      if (size >= sizeof(size_t)) require(std::memcmp(out.data(), &size, sizeof size) == 0);
      return;
    }
    case 1: {
      const size_t size = struct_size_around(in, sizeof(dlk_conv2d_desc));
      GuardedBuffer out(size);
      dlk_conv2d_desc_init_sized(reinterpret_cast<dlk_conv2d_desc *>(out.data()), size,
                                 DLK_DTYPE_F32, a, b, c, c, a, b, c);
      if (size >= sizeof(size_t)) require(std::memcmp(out.data(), &size, sizeof size) == 0);
      return;
    }
    default: {
      const size_t size = struct_size_around(in, sizeof(dlk_pool2d_desc));
      GuardedBuffer out(size);
      dlk_pool2d_desc_init_sized(reinterpret_cast<dlk_pool2d_desc *>(out.data()), size,
                                 DLK_POOL_MAX, DLK_DTYPE_F32, a, b, c, c, a, b);
      if (size >= sizeof(size_t)) require(std::memcmp(out.data(), &size, sizeof size) == 0);
    }
  }
}

// A 2 x 2 x 2 GEMM, so that dlk_context_last_op has a record to give.
void small_gemm(dlk_context_t ctx) {
  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
  const float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  require(dlk_gemm(ctx, &desc, x, x, y) == DLK_STATUS_SUCCESS);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  dlk_context_t ctx = context();
  Block blocks[kSlots];
  GuardedBuffer host(1 + in.u8() % 200);
  for (int step = 0; step < 24 && in.u8() != 0xff; ++step) {
    Block &b = blocks[in.u8() % kSlots];
    switch (in.u8() % 7) {
      case 0: malloc_block(in, b, ctx); break;
      case 1: free_block(in, b, ctx, host); break;
      case 2: copy(in, b, ctx, host); break;
      case 3: {
        const dlk_status status = dlk_synchronize(ctx);
        check_message("dlk_synchronize", status);
        require(status == DLK_STATUS_SUCCESS);
        break;
      }
      case 4: records(in, ctx); break;
      case 5: init_sized(in); break;
      default: small_gemm(ctx);
    }
  }
  for (Block &b : blocks) require(dlk_free(ctx, b.ptr) == DLK_STATUS_SUCCESS);
  return 0;
}
