// The rules of packed convolution weights (dlk_conv2d_weights_create,
// dlk_conv2d_forward_packed, dlk_conv2d_weights_destroy): each broken alone is
// rejected naming its argument, and leaves dst as it was; a handle belongs to
// the context that made it; the forward's desc may differ from the packed one's
// in n and scales only.
#include <cstdint>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

// A small f32 convolution: 2 x 4 x 6 x 6 src, 8 x 4 x 3 x 3 weights, 2 x 8 x 4 x 4 dst.
dlk_conv2d_desc small_desc() {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, 2, 4, 6, 6, 8, 3, 3);
  return d;
}

struct Tensors {
  std::vector<float> src = std::vector<float>(2 * 4 * 6 * 6, 0.5f);
  std::vector<float> weights = std::vector<float>(8 * 4 * 3 * 3, 0.25f);
  SentinelBuffer dst{2 * 8 * 4 * 4 * sizeof(float)};
};

constexpr const char *kCreate = "dlk_conv2d_weights_create";
constexpr const char *kForward = "dlk_conv2d_forward_packed";
constexpr const char *kDestroy = "dlk_conv2d_weights_destroy";

// A handle made on `context` from small_desc() and the tensors' weights.
dlk_conv2d_weights_t packed_on(dlk_context_t context, const Tensors &t) {
  const dlk_conv2d_desc d = small_desc();
  dlk_conv2d_weights_t packed = nullptr;
  expect_success(dlk_conv2d_weights_create(context, &d, t.weights.data(), &packed));
  REQUIRE(packed != nullptr);
  return packed;
}

}  // namespace

TEST_CASE("conv2d weights: create rejects each broken argument, naming it",
          "[validation][conv2d]") {
  TestContext context;
  Tensors t;
  dlk_conv2d_desc d = small_desc();
  dlk_conv2d_weights_t packed = nullptr;
  expect_rejected(dlk_conv2d_weights_create(nullptr, &d, t.weights.data(), &packed), kCreate,
                  "context");
  expect_rejected(dlk_conv2d_weights_create(context.get(), &d, t.weights.data(), nullptr),
                  kCreate, "packed");
  expect_rejected(dlk_conv2d_weights_create(context.get(), nullptr, t.weights.data(), &packed),
                  kCreate, "desc");
  expect_rejected(dlk_conv2d_weights_create(context.get(), &d, nullptr, &packed), kCreate,
                  "weights");
  d.k = 0;
  expect_rejected(dlk_conv2d_weights_create(context.get(), &d, t.weights.data(), &packed),
                  kCreate, "k");
  CHECK(packed == nullptr);
}

TEST_CASE("conv2d weights: the forward takes another n and other scales, nothing else",
          "[validation][conv2d]") {
  TestContext context;
  Tensors t;
  dlk_conv2d_weights_t packed = packed_on(context.get(), t);
  dlk_conv2d_desc d = small_desc();
  d.n = 1;
  expect_success(
      dlk_conv2d_forward_packed(context.get(), &d, t.src.data(), packed, nullptr, t.dst.data()));
  d.n = 0;
  expect_success(dlk_conv2d_forward_packed(context.get(), &d, nullptr, packed, nullptr, nullptr));

  struct Change {
    const char *argument;
    void (*edit)(dlk_conv2d_desc &);
  };
  const Change changes[] = {
      {"h", [](dlk_conv2d_desc &x) { x.h = 7; }},
      {"stride_w", [](dlk_conv2d_desc &x) { x.stride_w = 2; }},
      {"pad_h", [](dlk_conv2d_desc &x) { x.pad_h = 1; }},
      {"format", [](dlk_conv2d_desc &x) { x.format = DLK_FORMAT_NHWC; }},
      {"relu", [](dlk_conv2d_desc &x) { x.relu = 1; }},
  };
  for (const Change &change : changes) {
    INFO("changed: " << change.argument);
    Tensors fresh;
    dlk_conv2d_desc changed = small_desc();
    change.edit(changed);
    expect_rejected(dlk_conv2d_forward_packed(context.get(), &changed, fresh.src.data(), packed,
                                              nullptr, fresh.dst.data()),
                    kForward, change.argument);
    CHECK(fresh.dst.untouched());
  }
  // The desc's own rules come first, then the tensors'.
  Tensors fresh;
  dlk_conv2d_desc broken = small_desc();
  broken.kh = 0;
  expect_rejected(dlk_conv2d_forward_packed(context.get(), &broken, fresh.src.data(), packed,
                                            nullptr, fresh.dst.data()),
                  kForward, "kh");
  const dlk_conv2d_desc same = small_desc();
  expect_rejected(
      dlk_conv2d_forward_packed(context.get(), &same, nullptr, packed, nullptr, fresh.dst.data()),
      kForward, "src");
  CHECK(fresh.dst.untouched());
  expect_success(dlk_conv2d_weights_destroy(context.get(), packed));
}

TEST_CASE("conv2d weights: a handle belongs to its context until destroyed",
          "[validation][conv2d]") {
  TestContext context, other;
  Tensors t;
  const dlk_conv2d_desc d = small_desc();
  dlk_conv2d_weights_t packed = packed_on(context.get(), t);
  expect_rejected(
      dlk_conv2d_forward_packed(other.get(), &d, t.src.data(), packed, nullptr, t.dst.data()),
      kForward, "packed");
  expect_rejected(dlk_conv2d_weights_destroy(other.get(), packed), kDestroy, "packed");
  expect_rejected(
      dlk_conv2d_forward_packed(context.get(), &d, t.src.data(), nullptr, nullptr, t.dst.data()),
      kForward, "packed");
  CHECK(t.dst.untouched());
  // Still the first context's: the other's refusals left it alone.
  expect_success(
      dlk_conv2d_forward_packed(context.get(), &d, t.src.data(), packed, nullptr, t.dst.data()));
  expect_success(dlk_conv2d_weights_destroy(context.get(), packed));
  expect_rejected(dlk_conv2d_weights_destroy(context.get(), packed), kDestroy, "packed");
  expect_rejected(
      dlk_conv2d_forward_packed(context.get(), &d, t.src.data(), packed, nullptr, t.dst.data()),
      kForward, "packed");
  expect_success(dlk_conv2d_weights_destroy(context.get(), nullptr));
  expect_rejected(dlk_conv2d_weights_destroy(nullptr, nullptr), kDestroy, "context");
  // A handle left alive goes with its context (the sanitizer builds see no leak).
  packed_on(other.get(), t);
}
