#include "model_spec.hpp"

#include <stdexcept>

namespace dlk_train {

namespace {

// Builds a model layer by layer, each layer's input the previous one's output.
class Builder {
 public:
  Builder(std::string name, Shape input, int64_t classes) {
    model_.name = std::move(name);
    model_.input = input;
    model_.classes = classes;
    shape_ = input;
  }

  // k output channels, square kernel; the ReLU after it runs in its epilogue.
  void conv_relu(const std::string &name, int64_t k, int64_t kernel, int64_t pad) {
    LayerSpec l = start(name, LayerKind::conv2d);
    l.kernel = kernel;
    l.stride = 1;
    l.pad = pad;
    l.out = {k, (shape_.h + 2 * pad - kernel) + 1, (shape_.w + 2 * pad - kernel) + 1};
    finish(l);
    LayerSpec r = start(name + ".relu", LayerKind::relu);
    r.out = shape_;
    r.fused_into = name;
    finish(r);
  }
  void maxpool(const std::string &name, int64_t kernel) {
    LayerSpec l = start(name, LayerKind::maxpool);
    l.kernel = l.stride = kernel;
    l.out = {shape_.c, shape_.h / kernel, shape_.w / kernel};
    finish(l);
  }
  void flatten() {
    LayerSpec l = start("flatten", LayerKind::flatten);
    l.out = {shape_.elements(), 1, 1};
    finish(l);
  }
  // A fully-connected layer, followed by a ReLU unless it is the last.
  void linear(const std::string &name, int64_t out, bool relu) {
    LayerSpec l = start(name, LayerKind::linear);
    l.out = {out, 1, 1};
    finish(l);
    if (!relu) return;
    LayerSpec r = start(name + ".relu", LayerKind::relu);
    r.out = shape_;
    finish(r);
  }
  ModelSpec done() {
    if (shape_.elements() != model_.classes)
      throw std::logic_error("model " + model_.name + " does not end in its classes");
    return std::move(model_);
  }

 private:
  LayerSpec start(const std::string &name, LayerKind kind) {
    LayerSpec l;
    l.name = name;
    l.kind = kind;
    l.in = shape_;
    return l;
  }
  void finish(LayerSpec &l) {
    if (weight_elements(l) > 0 && !seen_parameters_) {
      l.first = true;
      seen_parameters_ = true;
    }
    shape_ = l.out;
    model_.layers.push_back(std::move(l));
  }

  ModelSpec model_;
  Shape shape_;
  bool seen_parameters_ = false;
};

constexpr Shape kFashionMnist{1, 28, 28};
constexpr int64_t kClasses = 10;

}  // namespace

const char *layer_kind_name(LayerKind kind) {
  switch (kind) {
    case LayerKind::conv2d: return "conv2d";
    case LayerKind::relu: return "relu";
    case LayerKind::maxpool: return "maxpool";
    case LayerKind::avgpool: return "avgpool";
    case LayerKind::linear: return "linear";
    case LayerKind::flatten: return "flatten";
  }
  return "unknown";
}

const std::vector<std::string> &model_names() {
  static const std::vector<std::string> names{"lenet5", "vgg_small", "wide"};
  return names;
}

ModelSpec make_model_spec(const std::string &name) {
  Builder b(name, kFashionMnist, kClasses);
  if (name == "lenet5") {
    b.conv_relu("conv1", 6, 5, 2);
    b.maxpool("pool1", 2);
    b.conv_relu("conv2", 16, 5, 0);
    b.maxpool("pool2", 2);
    b.flatten();
    b.linear("fc1", 120, true);
    b.linear("fc2", 84, true);
    b.linear("fc3", kClasses, false);
  } else if (name == "vgg_small") {
    b.conv_relu("conv1", 32, 3, 1);
    b.conv_relu("conv2", 32, 3, 1);
    b.maxpool("pool1", 2);
    b.conv_relu("conv3", 64, 3, 1);
    b.conv_relu("conv4", 64, 3, 1);
    b.maxpool("pool2", 2);
    b.flatten();
    b.linear("fc1", 256, true);
    b.linear("fc2", kClasses, false);
  } else if (name == "wide") {
    b.flatten();
    b.linear("fc1", 4096, true);
    b.linear("fc2", 4096, true);
    b.linear("fc3", kClasses, false);
  } else {
    throw std::invalid_argument("--model is '" + name + "': one of lenet5, vgg_small, wide");
  }
  return b.done();
}

int64_t weight_elements(const LayerSpec &l) {
  switch (l.kind) {
    case LayerKind::conv2d: return l.out.c * (l.in.c / l.groups) * l.kernel * l.kernel;
    case LayerKind::linear: return l.out.c * l.in.elements();
    default: return 0;
  }
}

int64_t bias_elements(const LayerSpec &l) {
  return l.kind == LayerKind::conv2d || l.kind == LayerKind::linear ? l.out.c : 0;
}

int64_t parameter_count(const ModelSpec &model) {
  int64_t total = 0;
  for (const LayerSpec &l : model.layers) total += weight_elements(l) + bias_elements(l);
  return total;
}

double forward_flop(const LayerSpec &l) {
  const double out = static_cast<double>(l.out.elements());
  switch (l.kind) {
    case LayerKind::conv2d:
    case LayerKind::linear:
      // multiply-adds of the weights, plus the bias
      return 2.0 * static_cast<double>(weight_elements(l)) *
                 static_cast<double>(l.out.h * l.out.w) + out;
    case LayerKind::maxpool:
    case LayerKind::avgpool: return out * static_cast<double>(l.kernel * l.kernel);
    case LayerKind::relu: return l.fused_into.empty() ? out : 0.0;
    case LayerKind::flatten: return 0.0;
  }
  return 0.0;
}

double backward_flop(const LayerSpec &l) {
  const double out = static_cast<double>(l.out.elements());
  switch (l.kind) {
    case LayerKind::conv2d:
    case LayerKind::linear: {
      const double macs = 2.0 * static_cast<double>(weight_elements(l)) *
                          static_cast<double>(l.out.h * l.out.w);
      // weights (+ bias), and the input's gradient unless this is the first layer
      return macs + out + (l.first ? 0.0 : macs);
    }
    case LayerKind::maxpool: return out;  // one scatter per output through argmax
    case LayerKind::avgpool: return out * static_cast<double>(l.kernel * l.kernel);
    case LayerKind::relu: return out;     // the mask, also for a fused ReLU
    case LayerKind::flatten: return 0.0;
  }
  return 0.0;
}

std::vector<Gradient> gradients_in_backward_order(const ModelSpec &model) {
  std::vector<Gradient> out;
  for (auto it = model.layers.rbegin(); it != model.layers.rend(); ++it) {
    if (weight_elements(*it) == 0) continue;
    out.push_back({it->name + ".weight", it->name, weight_elements(*it)});
    out.push_back({it->name + ".bias", it->name, bias_elements(*it)});
  }
  return out;
}

}  // namespace dlk_train
