// The compute side of a step read from a dlk-train run on one rank (its --json,
// schema dlk-train/run/1, with --timeline-steps): each layer's forward and
// backward seconds and the update's, medians over the sampled steps after the
// first. What the timeline holds outside any layer goes where dlk-train spends
// it: gathering the batch before the first layer's forward (counted in that
// forward), the loss between the last forward and the last layer's backward
// (counted in the last forward). Layers the timeline does not list (a ReLU
// fused into its convolution) take 0. The source `dlk-perf plan
// --layer-times` names: the step's compute as dlk-train itself runs it, on this
// machine, now.
#pragma once

#include <string_view>

#include "perf/plan/layer_times.hpp"

namespace dlk::perf {

// Throws std::invalid_argument naming what is wrong: not dlk-train/run/1, no
// timeline, a timeline layer the model does not have, a time that is not a
// finite number >= 0.
ComputeTimes timeline_times(const PlanModel &model, std::string_view run_json);

}  // namespace dlk::perf
