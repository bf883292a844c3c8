#include "describe.hpp"

namespace dlk_train {

namespace {

nlohmann::ordered_json shape_json(const Shape &s, bool vector) {
  if (vector) return {s.c};
  return {s.c, s.h, s.w};
}

}  // namespace

nlohmann::ordered_json describe(const ModelSpec &model) {
  nlohmann::ordered_json j;
  j["schema"] = "dlk-train/describe/1";
  j["model"] = model.name;
  j["input"] = shape_json(model.input, false);
  j["classes"] = model.classes;
  j["parameters"] = parameter_count(model);
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  bool flat = false;  // after flatten, shapes are vectors
  for (const LayerSpec &l : model.layers) {
    nlohmann::ordered_json e;
    e["name"] = l.name;
    e["kind"] = layer_kind_name(l.kind);
    e["in_shape"] = shape_json(l.in, flat);
    if (l.kind == LayerKind::flatten || l.kind == LayerKind::linear) flat = true;
    e["out_shape"] = shape_json(l.out, flat);
    if (l.kind == LayerKind::conv2d || l.kind == LayerKind::maxpool ||
        l.kind == LayerKind::avgpool) {
      e["kernel"] = {l.kernel, l.kernel};
      e["stride"] = {l.stride, l.stride};
      e["pad"] = {l.pad, l.pad};
    }
    if (l.kind == LayerKind::conv2d) e["groups"] = l.groups;
    if (!l.fused_into.empty()) e["fused_into"] = l.fused_into;
    e["parameters"] = weight_elements(l) + bias_elements(l);
    e["forward_flop"] = forward_flop(l);
    e["backward_flop"] = backward_flop(l);
    layers.push_back(std::move(e));
  }
  j["layers"] = std::move(layers);
  nlohmann::ordered_json grads = nlohmann::ordered_json::array();
  for (const Gradient &g : gradients_in_backward_order(model))
    grads.push_back({{"name", g.name}, {"layer", g.layer}, {"elements", g.elements}});
  j["gradients"] = std::move(grads);
  return j;
}

}  // namespace dlk_train
