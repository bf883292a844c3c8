// The rules of the memory calls (core/api_memory.cpp): dlk_malloc, dlk_free,
// dlk_memcpy, dlk_synchronize.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "tests/core/c_enum_calls.h"
#include "tests/core/validation_support.hpp"

using namespace dlk_test;

TEST_CASE("dlk_malloc: rules, zero bytes, alignment", "[api][memory]") {
  TestContext context;
  expect_rejected(dlk_malloc(context.get(), 64, nullptr), "dlk_malloc", "ptr");

  void *ptr = &ptr;  // anything but NULL, to see that zero bytes sets it
  expect_success(dlk_malloc(context.get(), 0, &ptr));
  CHECK(ptr == nullptr);

  expect_success(dlk_malloc(context.get(), 100, &ptr));
  REQUIRE(ptr != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(ptr) % 64 == 0);
  std::memset(ptr, 1, 100);  // all of it is usable (ASan would say otherwise)
  expect_success(dlk_free(context.get(), ptr));
}

TEST_CASE("dlk_malloc: more than PTRDIFF_MAX bytes is out of memory, *ptr untouched", "[api][memory]") {
  TestContext context;
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 10, static_cast<size_t>(PTRDIFF_MAX) + 1}) {
    INFO("bytes " << bytes);
    void *ptr = &bytes;
    const dlk_status status = dlk_malloc(context.get(), bytes, &ptr);
    CHECK(status_name(status) == status_name(DLK_STATUS_OUT_OF_MEMORY));
    CHECK_THAT(dlk_last_error(), Catch::StartsWith("dlk_malloc: cannot allocate " + std::to_string(bytes)));
    CHECK(ptr == &bytes);
  }
}

TEST_CASE("dlk_free: NULL is a no-op that succeeds", "[api][memory]") {
  TestContext context;
  dlk_free(nullptr, nullptr);  // leaves a message to clear
  expect_success(dlk_free(context.get(), nullptr));
}

TEST_CASE("dlk_free: a pointer not from dlk_malloc on this context is rejected and not freed",
          "[api][memory]") {
  TestContext context, other;
  unsigned char on_stack[64];
  auto on_heap = std::make_unique<unsigned char[]>(64);
  void *from_dlk = nullptr;
  REQUIRE(dlk_malloc(context.get(), 256, &from_dlk) == DLK_STATUS_SUCCESS);
  void *from_other = nullptr;
  REQUIRE(dlk_malloc(other.get(), 256, &from_other) == DLK_STATUS_SUCCESS);

  expect_rejected(dlk_free(context.get(), on_stack), "dlk_free", "ptr");
  expect_rejected(dlk_free(context.get(), on_heap.get()), "dlk_free", "ptr");
  expect_rejected(dlk_free(context.get(), static_cast<unsigned char *>(from_dlk) + 64), "dlk_free", "ptr");
  expect_rejected(dlk_free(context.get(), from_other), "dlk_free", "ptr");

  // Still allocated and owned by their contexts.
  std::memset(from_dlk, 0, 256);
  expect_success(dlk_free(context.get(), from_dlk));
  expect_success(dlk_free(other.get(), from_other));
  // Freed once: a second time is not a pointer from dlk_malloc any more.
  expect_rejected(dlk_free(context.get(), from_dlk), "dlk_free", "ptr");
}

TEST_CASE("dlk_memcpy: rules, and a copy", "[api][memory]") {
  TestContext context;
  SentinelBuffer dst(256);
  std::vector<unsigned char> src(256, 7);

  for (int kind : {0, 4, -1}) {
    INFO("kind " << kind);
    expect_rejected(c_memcpy(context.get(), dst.data(), src.data(), 16, kind), "dlk_memcpy", "kind");
  }
  expect_rejected(dlk_memcpy(context.get(), nullptr, src.data(), 16, DLK_COPY_HOST_TO_DEVICE), "dlk_memcpy", "dst");
  expect_rejected(dlk_memcpy(context.get(), dst.data(), nullptr, 16, DLK_COPY_DEVICE_TO_HOST), "dlk_memcpy", "src");
  expect_rejected(dlk_memcpy(context.get(), dst.data() + 8, dst.data(), 16, DLK_COPY_DEVICE_TO_DEVICE),
                  "dlk_memcpy", "dst");
  expect_rejected(dlk_memcpy(context.get(), dst.data(), dst.data() + 15, 16, DLK_COPY_DEVICE_TO_DEVICE),
                  "dlk_memcpy", "dst");
  CHECK(dst.untouched());

  // Zero bytes touch nothing, so NULL pointers are fine.
  expect_success(dlk_memcpy(context.get(), nullptr, nullptr, 0, DLK_COPY_HOST_TO_DEVICE));
  // Adjacent ranges do not overlap.
  expect_success(dlk_memcpy(context.get(), dst.data() + 16, dst.data(), 16, DLK_COPY_DEVICE_TO_DEVICE));
  CHECK(dst.untouched());  // the sentinel copied onto itself

  expect_success(dlk_memcpy(context.get(), dst.data(), src.data(), 256, DLK_COPY_HOST_TO_DEVICE));
  CHECK(std::memcmp(dst.data(), src.data(), 256) == 0);
}

TEST_CASE("dlk_synchronize succeeds on a live context", "[api][memory]") {
  TestContext context;
  dlk_synchronize(nullptr);  // leaves a message to clear
  expect_success(dlk_synchronize(context.get()));
}
