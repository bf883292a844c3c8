#include "perf/plan/plan_model.hpp"

#include <cmath>
#include <stdexcept>
#include <tuple>

#include "perf/workloads/resnet50_layers.hpp"

namespace dlk::perf {
namespace {

using Shape = std::vector<std::int64_t>;

std::int64_t product(const Shape &s) {
  std::int64_t p = 1;
  for (std::int64_t d : s) p *= d;
  return p;
}

// Rows a linear layer multiplies per sample: the tokens of [tokens, features], 1 for [features].
std::int64_t linear_rows(const PlanLayer &l) {
  return l.in_shape.size() == 2 ? l.in_shape[0] : 1;
}

std::int64_t weight_elements(const PlanLayer &l) {
  switch (l.kind) {
    case PlanLayerKind::conv2d:
      return l.out_shape[0] * (l.in_shape[0] / l.groups) * l.kernel_h * l.kernel_w;
    case PlanLayerKind::linear: return l.out_shape.back() * l.in_shape.back();
    default: return 0;
  }
}

std::int64_t bias_elements(const PlanLayer &l) {
  return l.kind == PlanLayerKind::conv2d ? l.out_shape[0]
         : l.kind == PlanLayerKind::linear ? l.out_shape.back()
                                           : 0;
}

// FLOPs per sample as dlk-train counts them (docs/train.md): a multiply-add is 2.
void count_flops(PlanLayer &l, bool first) {
  const double out = static_cast<double>(l.out_elements());
  switch (l.kind) {
    case PlanLayerKind::conv2d:
    case PlanLayerKind::linear: {
      const double positions = l.kind == PlanLayerKind::conv2d
                                   ? static_cast<double>(l.out_shape[1] * l.out_shape[2])
                                   : static_cast<double>(linear_rows(l));
      const double macs = 2.0 * static_cast<double>(weight_elements(l)) * positions;
      l.forward_flop = macs + out;
      l.backward_flop = macs + out + (first ? 0.0 : macs);
      break;
    }
    case PlanLayerKind::maxpool:
      l.forward_flop = out * static_cast<double>(l.kernel_h * l.kernel_w);
      l.backward_flop = out;
      break;
    case PlanLayerKind::avgpool:
      l.forward_flop = l.backward_flop = out * static_cast<double>(l.kernel_h * l.kernel_w);
      break;
    case PlanLayerKind::relu:
      l.forward_flop = l.fused_into.empty() ? out : 0.0;
      l.backward_flop = out;
      break;
    case PlanLayerKind::flatten: l.forward_flop = l.backward_flop = 0; break;
    case PlanLayerKind::matmul:
      l.forward_flop = 2.0 * static_cast<double>(l.mm_count * l.mm_m * l.mm_n * l.mm_k);
      l.backward_flop = 2 * l.forward_flop;
      break;
  }
}

// Builds a chain of layers, each one's input the previous one's output, as
// dlk-train's model_spec.cpp does; done() counts parameters, FLOPs and gradients.
class Builder {
 public:
  Builder(std::string name, Shape input, std::int64_t classes) : shape_(input) {
    m_.name = std::move(name);
    m_.input = std::move(input);
    m_.classes = classes;
  }
  void conv(const std::string &name, std::int64_t k, std::int64_t kernel, std::int64_t stride,
            std::int64_t pad, bool relu) {
    PlanLayer l = start(name, PlanLayerKind::conv2d);
    l.kernel_h = l.kernel_w = kernel;
    l.stride_h = l.stride_w = stride;
    l.pad_h = l.pad_w = pad;
    l.out_shape = {k, (shape_[1] + 2 * pad - kernel) / stride + 1, (shape_[2] + 2 * pad - kernel) / stride + 1};
    finish(l);
    if (!relu) return;
    PlanLayer r = start(name + ".relu", PlanLayerKind::relu);
    r.out_shape = shape_;
    r.fused_into = name;
    finish(r);
  }
  void pool(const std::string &name, PlanLayerKind kind, std::int64_t kernel, std::int64_t stride,
            std::int64_t pad) {
    PlanLayer l = start(name, kind);
    l.kernel_h = l.kernel_w = kernel;
    l.stride_h = l.stride_w = stride;
    l.pad_h = l.pad_w = pad;
    l.out_shape = {shape_[0], (shape_[1] + 2 * pad - kernel) / stride + 1, (shape_[2] + 2 * pad - kernel) / stride + 1};
    finish(l);
  }
  void flatten() {
    PlanLayer l = start("flatten", PlanLayerKind::flatten);
    l.out_shape = {product(shape_)};
    finish(l);
  }
  void linear(const std::string &name, std::int64_t out, bool relu) {
    PlanLayer l = start(name, PlanLayerKind::linear);
    l.out_shape = shape_;
    l.out_shape.back() = out;
    finish(l);
    if (!relu) return;
    PlanLayer r = start(name + ".relu", PlanLayerKind::relu);
    r.out_shape = shape_;
    finish(r);
  }
  // count products (m x k)(k x n) per sample; out_shape as given.
  void matmul(const std::string &name, std::int64_t count, std::int64_t m, std::int64_t n,
              std::int64_t k, Shape out) {
    PlanLayer l = start(name, PlanLayerKind::matmul);
    l.mm_count = count;
    l.mm_m = m;
    l.mm_n = n;
    l.mm_k = k;
    l.out_shape = std::move(out);
    finish(l);
  }
  PlanModel done() {
    bool first = true;
    for (PlanLayer &l : m_.layers) {
      l.parameters = weight_elements(l) + bias_elements(l);
      count_flops(l, first && l.parameters > 0);
      if (l.parameters > 0) first = false;
      m_.parameters += l.parameters;
    }
    for (auto it = m_.layers.rbegin(); it != m_.layers.rend(); ++it) {
      if (it->parameters == 0) continue;
      m_.gradients.push_back({it->name + ".weight", it->name, weight_elements(*it)});
      m_.gradients.push_back({it->name + ".bias", it->name, bias_elements(*it)});
    }
    return std::move(m_);
  }
  const Shape &shape() const { return shape_; }
  void set_shape(Shape s) { shape_ = std::move(s); }

 private:
  PlanLayer start(const std::string &name, PlanLayerKind kind) {
    PlanLayer l;
    l.name = name;
    l.kind = kind;
    l.in_shape = shape_;
    return l;
  }
  void finish(PlanLayer &l) {
    shape_ = l.out_shape;
    m_.layers.push_back(std::move(l));
  }

  PlanModel m_;
  Shape shape_;
};

PlanModel resnet50() {
  Builder b("resnet50", {3, 224, 224}, 1000);
  for (const ResnetLayer &r : resnet50_layers()) {
    // The layer list is a walk through the blocks; a downsample convolution
    // reads the block's input, not the previous layer's output.
    b.set_shape({r.c, r.h, r.w});
    switch (r.kind) {
      case ResnetLayer::Kind::conv: b.conv(r.name, r.k, r.kernel, r.stride, r.pad, true); break;
      case ResnetLayer::Kind::max_pool: b.pool(r.name, PlanLayerKind::maxpool, r.kernel, r.stride, r.pad); break;
      case ResnetLayer::Kind::avg_pool:
        b.pool(r.name, PlanLayerKind::avgpool, r.kernel, r.stride, r.pad);
        b.flatten();
        break;
      case ResnetLayer::Kind::fully_connected: b.set_shape({r.c}); b.linear(r.name, r.k, false); break;
    }
  }
  return b.done();
}

// One BERT-base encoder layer (768 features, 12 heads, 3072 in the MLP) on 128
// tokens: the four projections and the two attention products. Softmax,
// layer norms and the residual additions are left out (no dlk op runs them);
// GELU is counted as a ReLU.
PlanModel transformer() {
  constexpr std::int64_t tokens = 128, d = 768, heads = 12, dh = d / heads, ffn = 3072;
  Builder b("transformer", {tokens, d}, 0);
  b.linear("qkv", 3 * d, false);
  b.matmul("scores", heads, tokens, tokens, dh, {heads, tokens, tokens});
  b.matmul("context", heads, tokens, dh, tokens, {tokens, d});
  b.linear("proj", d, false);
  b.linear("fc1", ffn, true);
  b.linear("fc2", d, false);
  return b.done();
}

[[noreturn]] void fail(const std::string &where, const std::string &rule) {
  throw std::invalid_argument("plan model JSON: " + where + ": " + rule);
}

const nlohmann::json &member(const nlohmann::json &j, const std::string &where, const char *key) {
  if (!j.is_object()) fail(where, "is not an object");
  const auto it = j.find(key);
  if (it == j.end()) fail(where, std::string("has no member \"") + key + "\"");
  return *it;
}

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
constexpr double kMaxElements = 1e12;

std::int64_t positive(const nlohmann::json &j, const std::string &where, std::int64_t max = kMaxDimension) {
  if (!j.is_number_integer()) fail(where, "is not an integer");
  const std::int64_t v = j.get<std::int64_t>();
  if (v < 1 || v > max) fail(where, "must be in [1, " + std::to_string(max) + "], is " + std::to_string(v));
  return v;
}

std::int64_t non_negative(const nlohmann::json &j, const std::string &where) {
  if (!j.is_number_integer()) fail(where, "is not an integer");
  const std::int64_t v = j.get<std::int64_t>();
  if (v < 0 || static_cast<double>(v) > kMaxElements) fail(where, "must be in [0, 1e12]");
  return v;
}

double flop(const nlohmann::json &j, const std::string &where) {
  if (!j.is_number()) fail(where, "is not a number");
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < 0 || v > 1e18) fail(where, "must be a finite number in [0, 1e18]");
  return v;
}

Shape shape(const nlohmann::json &j, const std::string &where) {
  if (!j.is_array() || j.empty() || j.size() > 3) fail(where, "must be an array of 1 to 3 positive integers");
  Shape s;
  double elements = 1;
  for (size_t i = 0; i < j.size(); ++i) {
    s.push_back(positive(j[i], where + "[" + std::to_string(i) + "]"));
    elements *= static_cast<double>(s.back());
  }
  if (elements > kMaxElements) fail(where, "holds more than 1e12 elements");
  return s;
}

// [h, w] pairs of kernel, stride, pad.
std::pair<std::int64_t, std::int64_t> pair(const nlohmann::json &j, const std::string &where, bool zero_ok) {
  if (!j.is_array() || j.size() != 2) fail(where, "must be [h, w]");
  if (zero_ok) return {non_negative(j[0], where + "[0]"), non_negative(j[1], where + "[1]")};
  return {positive(j[0], where + "[0]"), positive(j[1], where + "[1]")};
}

PlanLayerKind kind_from_name(const std::string &name, const std::string &where) {
  for (PlanLayerKind k : {PlanLayerKind::conv2d, PlanLayerKind::relu, PlanLayerKind::maxpool,
                          PlanLayerKind::avgpool, PlanLayerKind::linear, PlanLayerKind::flatten})
    if (name == plan_layer_kind_name(k)) return k;
  fail(where, "is \"" + name + "\": one of conv2d, relu, maxpool, avgpool, linear, flatten");
}

std::string string_member(const nlohmann::json &j, const std::string &where, const char *key) {
  const nlohmann::json &v = member(j, where, key);
  if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > 256)
    fail(where + "." + key, "must be a string of 1 to 256 characters");
  return v.get<std::string>();
}

PlanLayer parse_layer(const nlohmann::json &j, const std::string &where) {
  PlanLayer l;
  l.name = string_member(j, where, "name");
  l.kind = kind_from_name(string_member(j, where, "kind"), where + ".kind");
  l.in_shape = shape(member(j, where, "in_shape"), where + ".in_shape");
  l.out_shape = shape(member(j, where, "out_shape"), where + ".out_shape");
  if (l.kind == PlanLayerKind::conv2d || l.kind == PlanLayerKind::maxpool || l.kind == PlanLayerKind::avgpool) {
    if (l.in_shape.size() != 3 || l.out_shape.size() != 3) fail(where, "a convolution or pool takes [c, h, w] shapes");
    std::tie(l.kernel_h, l.kernel_w) = pair(member(j, where, "kernel"), where + ".kernel", false);
    std::tie(l.stride_h, l.stride_w) = pair(member(j, where, "stride"), where + ".stride", false);
    std::tie(l.pad_h, l.pad_w) = pair(member(j, where, "pad"), where + ".pad", true);
    if (l.pad_h >= l.kernel_h || l.pad_w >= l.kernel_w) fail(where + ".pad", "must be smaller than the kernel");
    const std::int64_t oh = (l.in_shape[1] + 2 * l.pad_h - l.kernel_h) / l.stride_h + 1,
                       ow = (l.in_shape[2] + 2 * l.pad_w - l.kernel_w) / l.stride_w + 1;
    if (l.in_shape[1] + 2 * l.pad_h < l.kernel_h || l.in_shape[2] + 2 * l.pad_w < l.kernel_w ||
        oh != l.out_shape[1] || ow != l.out_shape[2])
      fail(where + ".out_shape", "does not follow from in_shape, kernel, stride and pad");
    if (l.kind != PlanLayerKind::conv2d && l.out_shape[0] != l.in_shape[0])
      fail(where + ".out_shape", "a pool keeps the channels");
  }
  if (l.kind == PlanLayerKind::conv2d) {
    l.groups = positive(member(j, where, "groups"), where + ".groups");
    if (l.in_shape[0] % l.groups != 0 || l.out_shape[0] % l.groups != 0)
      fail(where + ".groups", "must divide the input and output channels");
  }
  if ((l.kind == PlanLayerKind::relu) && l.in_shape != l.out_shape)
    fail(where + ".out_shape", "a relu keeps its shape");
  if (l.kind == PlanLayerKind::flatten && product(l.in_shape) != product(l.out_shape))
    fail(where + ".out_shape", "a flatten keeps the element count");
  if (l.kind == PlanLayerKind::linear && (l.in_shape.size() > 2 || l.out_shape.size() != l.in_shape.size()))
    fail(where, "a linear layer takes [features] or [tokens, features] shapes");
  if (l.kind == PlanLayerKind::relu && j.contains("fused_into")) l.fused_into = string_member(j, where, "fused_into");
  l.parameters = non_negative(member(j, where, "parameters"), where + ".parameters");
  const double expected = static_cast<double>(weight_elements(l)) + static_cast<double>(bias_elements(l));
  if (static_cast<double>(l.parameters) != expected)
    fail(where + ".parameters", "is " + std::to_string(l.parameters) + ", the shapes make " +
                                    std::to_string(static_cast<long long>(expected)));
  l.forward_flop = flop(member(j, where, "forward_flop"), where + ".forward_flop");
  l.backward_flop = flop(member(j, where, "backward_flop"), where + ".backward_flop");
  return l;
}

}  // namespace

const char *plan_layer_kind_name(PlanLayerKind kind) {
  switch (kind) {
    case PlanLayerKind::conv2d: return "conv2d";
    case PlanLayerKind::relu: return "relu";
    case PlanLayerKind::maxpool: return "maxpool";
    case PlanLayerKind::avgpool: return "avgpool";
    case PlanLayerKind::linear: return "linear";
    case PlanLayerKind::flatten: return "flatten";
    case PlanLayerKind::matmul: return "matmul";
  }
  return "unknown";
}

std::int64_t PlanLayer::in_elements() const { return product(in_shape); }
std::int64_t PlanLayer::out_elements() const { return product(out_shape); }

double PlanModel::forward_flop() const {
  double f = 0;
  for (const PlanLayer &l : layers) f += l.forward_flop;
  return f;
}

double PlanModel::backward_flop() const {
  double f = 0;
  for (const PlanLayer &l : layers) f += l.backward_flop;
  return f;
}

std::size_t PlanModel::first_trained_layer() const {
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].parameters > 0) return i;
  return layers.size();
}

const std::vector<std::string> &builtin_model_names() {
  static const std::vector<std::string> names{"lenet5", "vgg_small", "wide", "resnet50", "transformer"};
  return names;
}

PlanModel builtin_model(const std::string &name) {
  if (name == "resnet50") return resnet50();
  if (name == "transformer") return transformer();
  // dlk-train's models (examples/train/model_spec.cpp), on Fashion-MNIST's 1x28x28.
  Builder b(name, {1, 28, 28}, 10);
  if (name == "lenet5") {
    b.conv("conv1", 6, 5, 1, 2, true);
    b.pool("pool1", PlanLayerKind::maxpool, 2, 2, 0);
    b.conv("conv2", 16, 5, 1, 0, true);
    b.pool("pool2", PlanLayerKind::maxpool, 2, 2, 0);
    b.flatten();
    b.linear("fc1", 120, true);
    b.linear("fc2", 84, true);
    b.linear("fc3", 10, false);
  } else if (name == "vgg_small") {
    b.conv("conv1", 32, 3, 1, 1, true);
    b.conv("conv2", 32, 3, 1, 1, true);
    b.pool("pool1", PlanLayerKind::maxpool, 2, 2, 0);
    b.conv("conv3", 64, 3, 1, 1, true);
    b.conv("conv4", 64, 3, 1, 1, true);
    b.pool("pool2", PlanLayerKind::maxpool, 2, 2, 0);
    b.flatten();
    b.linear("fc1", 256, true);
    b.linear("fc2", 10, false);
  } else if (name == "wide") {
    b.flatten();
    b.linear("fc1", 4096, true);
    b.linear("fc2", 4096, true);
    b.linear("fc3", 10, false);
  } else {
    throw std::invalid_argument("--model is '" + name +
                                "': one of lenet5, vgg_small, wide, resnet50, transformer, or a "
                                "dlk-train/describe/1 JSON file");
  }
  return b.done();
}

PlanModel parse_model_json(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(std::string("plan model JSON: does not parse: ") + e.what());
  }
  const nlohmann::json &schema = member(j, "the document", "schema");
  if (!schema.is_string() || schema.get<std::string>() != "dlk-train/describe/1")
    fail("schema", "must be \"dlk-train/describe/1\"");
  PlanModel m;
  m.name = string_member(j, "the document", "model");
  const nlohmann::json &input = member(j, "the document", "input");
  m.input = shape(input, "input");
  m.classes = non_negative(member(j, "the document", "classes"), "classes");
  m.parameters = non_negative(member(j, "the document", "parameters"), "parameters");
  const nlohmann::json &layers = member(j, "the document", "layers");
  if (!layers.is_array() || layers.empty() || layers.size() > 100000)
    fail("layers", "must be an array of 1 to 100000 layers");
  double parameters = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string where = "layers[" + std::to_string(i) + "]";
    m.layers.push_back(parse_layer(layers[i], where));
    const PlanLayer &l = m.layers.back();
    const Shape &before = i == 0 ? m.input : m.layers[i - 1].out_shape;
    if (product(l.in_shape) != product(before))
      fail(where + ".in_shape", "does not hold as many elements as the previous output");
    parameters += static_cast<double>(l.parameters);
    for (size_t k = 0; k + 1 < m.layers.size(); ++k)
      if (m.layers[k].name == l.name) fail(where + ".name", "\"" + l.name + "\" is there twice");
  }
  if (parameters != static_cast<double>(m.parameters))
    fail("parameters", "is not the sum of the layers' parameters");
  const nlohmann::json &gradients = member(j, "the document", "gradients");
  if (!gradients.is_array() || gradients.size() > 200000) fail("gradients", "must be an array of at most 200000");
  std::vector<double> per_layer(m.layers.size(), 0.0);
  size_t last_layer = m.layers.size();
  for (size_t i = 0; i < gradients.size(); ++i) {
    const std::string where = "gradients[" + std::to_string(i) + "]";
    PlanGradient g;
    g.name = string_member(gradients[i], where, "name");
    g.layer = string_member(gradients[i], where, "layer");
    g.elements = positive(member(gradients[i], where, "elements"), where + ".elements", std::int64_t{1} << 40);
    size_t layer = m.layers.size();
    for (size_t k = 0; k < m.layers.size(); ++k)
      if (m.layers[k].name == g.layer) layer = k;
    if (layer == m.layers.size()) fail(where + ".layer", "\"" + g.layer + "\" is not a layer of the model");
    if (layer > last_layer) fail(where, "is out of backward order (a later layer after an earlier one)");
    last_layer = layer;
    per_layer[layer] += static_cast<double>(g.elements);
    m.gradients.push_back(std::move(g));
  }
  for (size_t k = 0; k < m.layers.size(); ++k)
    if (per_layer[k] != static_cast<double>(m.layers[k].parameters))
      fail("gradients", "of layer \"" + m.layers[k].name + "\" do not add up to its parameters");
  return m;
}

nlohmann::ordered_json model_json(const PlanModel &m) {
  nlohmann::ordered_json j;
  j["schema"] = "dlk-train/describe/1";
  j["model"] = m.name;
  j["input"] = m.input;
  j["classes"] = m.classes;
  j["parameters"] = m.parameters;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const PlanLayer &l : m.layers) {
    nlohmann::ordered_json e;
    e["name"] = l.name;
    e["kind"] = plan_layer_kind_name(l.kind);
    e["in_shape"] = l.in_shape;
    e["out_shape"] = l.out_shape;
    if (l.kind == PlanLayerKind::conv2d || l.kind == PlanLayerKind::maxpool || l.kind == PlanLayerKind::avgpool) {
      e["kernel"] = {l.kernel_h, l.kernel_w};
      e["stride"] = {l.stride_h, l.stride_w};
      e["pad"] = {l.pad_h, l.pad_w};
    }
    if (l.kind == PlanLayerKind::conv2d) e["groups"] = l.groups;
    if (!l.fused_into.empty()) e["fused_into"] = l.fused_into;
    e["parameters"] = l.parameters;
    e["forward_flop"] = l.forward_flop;
    e["backward_flop"] = l.backward_flop;
    layers.push_back(std::move(e));
  }
  j["layers"] = std::move(layers);
  nlohmann::ordered_json grads = nlohmann::ordered_json::array();
  for (const PlanGradient &g : m.gradients)
    grads.push_back({{"name", g.name}, {"layer", g.layer}, {"elements", g.elements}});
  j["gradients"] = std::move(grads);
  return j;
}

}  // namespace dlk::perf
