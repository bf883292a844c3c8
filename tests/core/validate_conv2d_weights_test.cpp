// The rules of packed convolution weights (dlk_conv2d_weights_create(_for),
// dlk_conv2d_forward_packed, dlk_conv2d_backward_data_packed,
// dlk_conv2d_weights_destroy): each broken alone is rejected naming its
// argument, and leaves dst as it was; a handle belongs to the context that made
// it and serves the passes it was packed for; the call's desc may differ from
// the packed one's in n and scales only (and relu for backward data).
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
constexpr const char *kCreateFor = "dlk_conv2d_weights_create_for";
constexpr const char *kBackwardData = "dlk_conv2d_backward_data_packed";
constexpr unsigned kBothPasses = DLK_CONV2D_PASS_FORWARD | DLK_CONV2D_PASS_BACKWARD_DATA;

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

TEST_CASE("conv2d weights: create_for takes the passes its backend packs for, nothing else",
          "[validation][conv2d]") {
  TestContext context;
  Tensors t;
  dlk_conv2d_desc d = small_desc();
  dlk_conv2d_weights_t packed = nullptr;
  for (const unsigned passes : {0u, 4u, kBothPasses | 8u}) {
    INFO("passes " << passes);
    expect_rejected(
        dlk_conv2d_weights_create_for(context.get(), &d, t.weights.data(), passes, &packed),
        kCreateFor, "passes");
  }
  // Backward data takes float types only, and no fused ReLU of its own: the
  // forward's relu is left out of its rules.
  dlk_conv2d_desc int8 = d;
  int8.src_type = DLK_DTYPE_U8, int8.weights_type = DLK_DTYPE_S8, int8.dst_type = DLK_DTYPE_S32;
  const std::vector<int8_t> int8_weights(t.weights.size());
  expect_rejected(dlk_conv2d_weights_create_for(context.get(), &int8, int8_weights.data(),
                                                DLK_CONV2D_PASS_BACKWARD_DATA, &packed),
                  kCreateFor, "src_type");
  CHECK(packed == nullptr);
  expect_success(dlk_conv2d_weights_create_for(context.get(), &int8, int8_weights.data(),
                                               DLK_CONV2D_PASS_FORWARD, &packed));
  expect_success(dlk_conv2d_weights_destroy(context.get(), packed));
  d.relu = 1;
  expect_success(
      dlk_conv2d_weights_create_for(context.get(), &d, t.weights.data(), kBothPasses, &packed));
  expect_success(dlk_conv2d_weights_destroy(context.get(), packed));
}

TEST_CASE("conv2d weights: each pass needs a handle packed for it", "[validation][conv2d]") {
  TestContext context;
  Tensors t;
  const dlk_conv2d_desc d = small_desc();
  SentinelBuffer diff_src{t.src.size() * sizeof(float)};
  const std::vector<float> diff_dst(2 * 8 * 4 * 4, 1.0f);
  dlk_conv2d_weights_t forward = packed_on(context.get(), t), backward = nullptr;
  expect_rejected(dlk_conv2d_backward_data_packed(context.get(), &d, diff_dst.data(), forward,
                                                  diff_src.data()),
                  kBackwardData, "packed");
  CHECK(diff_src.untouched());
  expect_success(dlk_conv2d_weights_create_for(context.get(), &d, t.weights.data(),
                                               DLK_CONV2D_PASS_BACKWARD_DATA, &backward));
  expect_rejected(
      dlk_conv2d_forward_packed(context.get(), &d, t.src.data(), backward, nullptr, t.dst.data()),
      kForward, "packed");
  CHECK(t.dst.untouched());
  expect_success(dlk_conv2d_backward_data_packed(context.get(), &d, diff_dst.data(), backward,
                                                 diff_src.data()));
  expect_success(dlk_conv2d_weights_destroy(context.get(), forward));
  expect_success(dlk_conv2d_weights_destroy(context.get(), backward));
}

TEST_CASE("conv2d weights: backward data takes another n and the forward's relu, nothing else",
          "[validation][conv2d]") {
  TestContext context;
  Tensors t;
  dlk_conv2d_desc fused = small_desc();
  fused.relu = 1;
  dlk_conv2d_weights_t packed = nullptr;
  expect_success(dlk_conv2d_weights_create_for(context.get(), &fused, t.weights.data(),
                                               kBothPasses, &packed));
  const std::vector<float> diff_dst(2 * 8 * 4 * 4, 1.0f);
  dlk_conv2d_desc d = small_desc();
  d.n = 1;
  SentinelBuffer diff_src{t.src.size() * sizeof(float)};
  expect_success(dlk_conv2d_backward_data_packed(context.get(), &d, diff_dst.data(), packed,
                                                 diff_src.data()));
  SentinelBuffer fresh{t.src.size() * sizeof(float)};
  d = small_desc();
  d.pad_w = 1;
  expect_rejected(dlk_conv2d_backward_data_packed(context.get(), &d, diff_dst.data(), packed,
                                                  fresh.data()),
                  kBackwardData, "pad_w");
  d = small_desc();
  expect_rejected(
      dlk_conv2d_backward_data_packed(context.get(), &d, nullptr, packed, fresh.data()),
      kBackwardData, "diff_dst");
  expect_rejected(dlk_conv2d_backward_data_packed(context.get(), &d, diff_dst.data(), nullptr,
                                                  fresh.data()),
                  kBackwardData, "packed");
  CHECK(fresh.untouched());
  expect_success(dlk_conv2d_weights_destroy(context.get(), packed));
}
