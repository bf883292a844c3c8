// The three models of dlk-train as a list of layer specifications: shapes per
// sample, parameters and FLOPs. Pure description: the layers that run them are
// in layers/, the JSON that the planner reads (--describe) in describe.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlk_train {

enum class LayerKind { conv2d, relu, maxpool, avgpool, linear, flatten };

const char *layer_kind_name(LayerKind kind);

// Per-sample shape, channels x height x width; a vector of features is {f, 1, 1}.
struct Shape {
  int64_t c = 0, h = 0, w = 0;
  int64_t elements() const { return c * h * w; }
};

struct LayerSpec {
  std::string name;
  LayerKind kind = LayerKind::relu;
  Shape in, out;
  int64_t kernel = 0, stride = 0, pad = 0, groups = 1;  // conv2d, pools
  // relu only: the convolution whose epilogue applies it (forward); "" when it runs alone.
  std::string fused_into;
  bool first = false;  // the first layer with parameters: no gradient of its input is needed
};

struct Gradient {
  std::string name;   // "conv1.weight"
  std::string layer;  // "conv1"
  int64_t elements = 0;
};

struct ModelSpec {
  std::string name;
  Shape input;
  int64_t classes = 0;
  std::vector<LayerSpec> layers;
};

// "lenet5", "vgg_small", "wide"; throws std::invalid_argument naming the valid ones.
ModelSpec make_model_spec(const std::string &name);
const std::vector<std::string> &model_names();

// Weights and bias of a layer (0 for layers without parameters).
int64_t weight_elements(const LayerSpec &layer);
int64_t bias_elements(const LayerSpec &layer);
int64_t parameter_count(const ModelSpec &model);

// FLOPs per sample as dlk-train runs the layer (multiply and add counted as 2).
// Backward of the first layer skips the gradient of the input.
double forward_flop(const LayerSpec &layer);
double backward_flop(const LayerSpec &layer);

// Gradients in the order backward produces them: last layer first, weight then bias.
std::vector<Gradient> gradients_in_backward_order(const ModelSpec &model);

}  // namespace dlk_train
