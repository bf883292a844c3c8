// The model `dlk-perf plan` plans a training step of: its layers in forward
// order with per-sample shapes, parameters and FLOPs, and its gradients in the
// order backward hands them to the synchronizer. Read from the JSON that
// `dlk-train --describe` writes (schema dlk-train/describe/1, docs/train.md), or
// built in: dlk-train's three models (the same layers, FLOPs and gradients as
// its --describe), ResNet-50 and one transformer encoder layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlk::perf {

// matmul: a product without parameters (attention's scores and context), only
// in the built-in transformer layer; the others are describe/1's kinds.
enum class PlanLayerKind { conv2d, relu, maxpool, avgpool, linear, flatten, matmul };

const char *plan_layer_kind_name(PlanLayerKind kind);

struct PlanLayer {
  std::string name;
  PlanLayerKind kind = PlanLayerKind::relu;
  // Per sample: [c, h, w], or [features]; a linear layer over [tokens, features]
  // applies to each token.
  std::vector<std::int64_t> in_shape, out_shape;
  std::int64_t kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  std::int64_t groups = 1;
  std::string fused_into;  // relu: the convolution whose forward epilogue applies it
  std::int64_t parameters = 0;
  double forward_flop = 0, backward_flop = 0;  // per sample
  // matmul: per sample `count` products (m x k) times (k x n).
  std::int64_t mm_count = 0, mm_m = 0, mm_n = 0, mm_k = 0;

  std::int64_t in_elements() const;
  std::int64_t out_elements() const;
};

struct PlanGradient {
  std::string name, layer;
  std::int64_t elements = 0;
};

struct PlanModel {
  std::string name;
  std::vector<std::int64_t> input;
  std::int64_t classes = 0;
  std::int64_t parameters = 0;
  std::vector<PlanLayer> layers;
  std::vector<PlanGradient> gradients;  // backward order

  double forward_flop() const;   // per sample
  double backward_flop() const;  // per sample
  // The index of the first layer with parameters (its input gradient is never
  // computed); layers.size() when none has any.
  std::size_t first_trained_layer() const;
};

// "lenet5", "vgg_small", "wide", "resnet50", "transformer".
const std::vector<std::string> &builtin_model_names();

// Throws std::invalid_argument naming the valid names.
PlanModel builtin_model(const std::string &name);

// Parses dlk-train/describe/1. Throws std::invalid_argument saying which member
// breaks which rule ("layers[3].out_shape: ..."): wrong schema, a missing or
// mistyped member, an unknown kind, a size that is not positive or too large,
// a gradient of a layer that is not there or whose elements do not add up to
// the layer's parameters.
PlanModel parse_model_json(std::string_view text);

// The model as describe/1 (without matmul layers' extra members).
nlohmann::ordered_json model_json(const PlanModel &model);

}  // namespace dlk::perf
