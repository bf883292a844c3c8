// --describe: the model's layers and gradients as JSON, schema "dlk-train/describe/1"
// (docs/train.md); what `dlk-perf plan` reads.
#pragma once

#include <nlohmann/json.hpp>

#include "model_spec.hpp"

namespace dlk_train {

nlohmann::ordered_json describe(const ModelSpec &model);

}  // namespace dlk_train
