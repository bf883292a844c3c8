#include "perf/plan/layer_times.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "perf/ceilings/ceilings_cache.hpp"
#include "perf/common/random_elements.hpp"
#include "perf/common/stats.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

double forward_bytes(const PlanLayer &l, std::int64_t batch) {
  const double b = static_cast<double>(batch);
  return 4 * (b * static_cast<double>(l.in_elements() + l.out_elements()) + static_cast<double>(l.parameters));
}

double backward_bytes(const PlanLayer &l, std::int64_t batch, bool first) {
  const double b = static_cast<double>(batch);
  // dy and y (the mask) read, x read, dx written unless first; W read, dW written.
  return 4 * (b * static_cast<double>(2 * l.out_elements() + l.in_elements() * (first ? 1 : 2)) +
              2 * static_cast<double>(l.parameters));
}

ComputeTimes roofline_times(const PlanModel &m, std::int64_t batch, const ComputeRoof &roof) {
  ComputeTimes t;
  t.source = "roofline";
  const std::size_t first = m.first_trained_layer();
  const double b = static_cast<double>(batch);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const PlanLayer &l = m.layers[i];
    t.forward_seconds.push_back(std::max(b * l.forward_flop / roof.peak, forward_bytes(l, batch) / roof.bandwidth));
    t.backward_seconds.push_back(
        std::max(b * l.backward_flop / roof.peak, backward_bytes(l, batch, i == first) / roof.bandwidth));
  }
  // SGD with momentum: w, v, g read, w, v written; 3 FLOPs per parameter.
  const double p = static_cast<double>(m.parameters);
  t.update_seconds = std::max(3 * p / roof.peak, 20 * p / roof.bandwidth);
  return t;
}

namespace {

// The operands of one layer at one batch and the calls of each pass.
struct LayerRun {
  std::vector<float> x, y, dy, dx, w, dw, bias, dbias, ones;
  std::vector<std::int32_t> argmax;
  std::function<void()> forward, backward;
  // fpga_sim: the simulated seconds of every dlk op since the last take().
  bool simulated = false;
  double sim_seconds = 0;
  void after(dlk::Context &ctx) {
    if (simulated) sim_seconds += ctx.last_sim().seconds;
  }
  double take() { return std::exchange(sim_seconds, 0.0); }
};

std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::vector<float> v(count);
  if (count == 0) return v;
  const std::vector<unsigned char> bytes = random_elements(DLK_DTYPE_F32, count, seed);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char *>(v.data()));
  return v;
}

void relu_mask(const float *y, std::size_t n, float *dy) {
  for (std::size_t i = 0; i < n; ++i) dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

// dlk-train's layers (examples/train/layers/): the same dlk calls with the same
// descriptors, and the same host loops.
void prepare(LayerRun &r, const PlanLayer &l, std::int64_t batch, bool first, dlk::Context &ctx) {
  const auto in = static_cast<std::size_t>(batch * l.in_elements()),
             out = static_cast<std::size_t>(batch * l.out_elements());
  r.x = random_floats(in, 1);
  r.y = random_floats(out, 2);
  r.dy = random_floats(out, 3);
  r.dx.assign(first ? 0 : in, 0.0f);
  switch (l.kind) {
    case PlanLayerKind::conv2d: {
      dlk_conv2d_desc d = dlk::conv2d_desc(DLK_DTYPE_F32, batch, l.in_shape[0], l.in_shape[1], l.in_shape[2],
                                           l.out_shape[0], l.kernel_h, l.kernel_w);
      d.stride_h = l.stride_h;
      d.stride_w = l.stride_w;
      d.pad_h = l.pad_h;
      d.pad_w = l.pad_w;
      d.groups = l.groups;
      r.w = random_floats(static_cast<std::size_t>(l.parameters - l.out_shape[0]), 4);
      r.dw.assign(r.w.size(), 0.0f);
      r.bias = random_floats(static_cast<std::size_t>(l.out_shape[0]), 5);
      r.dbias.assign(r.bias.size(), 0.0f);
      dlk_conv2d_desc fwd = d;
      fwd.relu = 1;
      r.forward = [&r, &ctx, fwd] { ctx.conv2d_forward(fwd, r.x.data(), r.w.data(), r.bias.data(), r.y.data()); r.after(ctx); };
      r.backward = [&r, &ctx, d, first] {
        ctx.conv2d_backward_weights(d, r.x.data(), r.dy.data(), r.dw.data(), r.dbias.data()); r.after(ctx);
        if (!first) {
          ctx.conv2d_backward_data(d, r.dy.data(), r.w.data(), r.dx.data());
          r.after(ctx);
        }
      };
      break;
    }
    case PlanLayerKind::linear: {
      const std::int64_t rows = batch * (l.in_shape.size() == 2 ? l.in_shape[0] : 1);
      const std::int64_t k = l.in_shape.back(), n = l.out_shape.back();
      r.w = random_floats(static_cast<std::size_t>(n * k), 4);
      r.dw.assign(r.w.size(), 0.0f);
      r.bias = random_floats(static_cast<std::size_t>(n), 5);
      r.dbias.assign(r.bias.size(), 0.0f);
      r.ones.assign(static_cast<std::size_t>(rows), 1.0f);
      dlk_gemm_desc f = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, rows, n, k);
      f.trans_b = DLK_TRANSPOSE;
      f.ldb = k;
      f.beta = 1.0f;
      dlk_gemm_desc dw = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, n, k, rows);
      dw.trans_a = DLK_TRANSPOSE;
      dw.lda = n;
      const dlk_gemm_desc db = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 1, n, rows);
      const dlk_gemm_desc dd = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, rows, k, n);
      r.forward = [&r, &ctx, f, rows, n] {
        for (std::int64_t i = 0; i < rows; ++i) std::copy(r.bias.begin(), r.bias.end(), r.y.begin() + i * n);
        ctx.gemm(f, r.x.data(), r.w.data(), r.y.data()); r.after(ctx);
      };
      r.backward = [&r, &ctx, dw, db, dd, first] {
        ctx.gemm(dw, r.dy.data(), r.x.data(), r.dw.data()); r.after(ctx);
        ctx.gemm(db, r.ones.data(), r.dy.data(), r.dbias.data()); r.after(ctx);
        if (!first) {
          ctx.gemm(dd, r.dy.data(), r.w.data(), r.dx.data());
          r.after(ctx);
        }
      };
      break;
    }
    case PlanLayerKind::maxpool:
    case PlanLayerKind::avgpool: {
      dlk_pool2d_desc d = dlk::pool2d_desc(
          l.kind == PlanLayerKind::maxpool ? DLK_POOL_MAX : DLK_POOL_AVG_INCLUDE_PADDING, DLK_DTYPE_F32, batch,
          l.in_shape[0], l.in_shape[1], l.in_shape[2], l.kernel_h, l.kernel_w);
      d.stride_h = l.stride_h;
      d.stride_w = l.stride_w;
      d.pad_h = l.pad_h;
      d.pad_w = l.pad_w;
      const bool max = l.kind == PlanLayerKind::maxpool;
      r.argmax.assign(max ? out : 0, 0);
      if (r.dx.empty()) r.dx.assign(in, 0.0f);
      r.forward = [&r, &ctx, d, max] {
        ctx.pool2d_forward(d, r.x.data(), r.y.data(), max ? r.argmax.data() : nullptr); r.after(ctx);
      };
      r.backward = [&r, &ctx, d, max] {
        ctx.pool2d_backward(d, r.dy.data(), max ? r.argmax.data() : nullptr, r.dx.data()); r.after(ctx);
      };
      break;
    }
    case PlanLayerKind::relu: {
      const bool fused = !l.fused_into.empty();
      r.forward = [&r, out, fused] {
        if (fused) return;  // the convolution's epilogue
        for (std::size_t i = 0; i < out; ++i) r.y[i] = std::max(r.x[i], 0.0f);
      };
      r.backward = [&r, out, fused] {
        relu_mask(r.y.data(), out, r.dy.data());
        if (!fused && !r.dx.empty()) std::copy(r.dy.begin(), r.dy.end(), r.dx.begin());
      };
      break;
    }
    case PlanLayerKind::flatten:
      r.forward = r.backward = [] {};
      break;
    case PlanLayerKind::matmul: {
      dlk_gemm_desc d = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, l.mm_m, l.mm_n, l.mm_k);
      d.batch_count = batch * l.mm_count;
      d.stride_a = l.mm_m * l.mm_k;
      d.stride_b = l.mm_k * l.mm_n;
      d.stride_c = l.mm_m * l.mm_n;
      r.w = random_floats(static_cast<std::size_t>(d.batch_count * d.stride_a), 6);
      r.dw = random_floats(static_cast<std::size_t>(d.batch_count * d.stride_b), 7);
      r.ones.assign(static_cast<std::size_t>(d.batch_count * d.stride_c), 0.0f);
      // Backward is two products of the same size (the gradients of both operands).
      r.forward = [&r, &ctx, d] { ctx.gemm(d, r.w.data(), r.dw.data(), r.ones.data()); r.after(ctx); };
      r.backward = [&r, &ctx, d] {
        ctx.gemm(d, r.w.data(), r.dw.data(), r.ones.data()); r.after(ctx);
        ctx.gemm(d, r.w.data(), r.dw.data(), r.ones.data()); r.after(ctx);
      };
      break;
    }
  }
}

std::string layer_signature(const PlanLayer &l, std::int64_t batch, bool first) {
  std::string s = fmt::format("{} b{} first{} in", plan_layer_kind_name(l.kind), batch, first ? 1 : 0);
  for (auto d : l.in_shape) s += fmt::format(".{}", d);
  s += " out";
  for (auto d : l.out_shape) s += fmt::format(".{}", d);
  s += fmt::format(" k{}x{} s{}x{} p{}x{} g{} f{} mm{}.{}.{}.{}", l.kernel_h, l.kernel_w, l.stride_h, l.stride_w,
                   l.pad_h, l.pad_w, l.groups, l.fused_into.empty() ? 0 : 1, l.mm_count, l.mm_m, l.mm_n, l.mm_k);
  return s;
}

class LayerCache {
 public:
  explicit LayerCache(const std::string &key) : key_(key) {
    const std::string dir = ceilings_cache_directory();
    if (dir.empty()) return;
    path_ = fmt::format("{}/plan-layers-{:016x}.json", dir, std::hash<std::string>{}(key));
    std::ifstream in(path_);
    if (!in) return;
    try {
      const nlohmann::json doc = nlohmann::json::parse(in);
      if (doc.at("schema") != "dlk-perf/plan-layers/1" || doc.at("key") != key) return;
      for (const auto &[k, v] : doc.at("layers").items())
        entries_[k] = {v.at(0).get<double>(), v.at(1).get<double>()};
    } catch (const std::exception &) {
      entries_.clear();  // a corrupt cache is measured again and overwritten
    }
  }
  bool find(const std::string &signature, double &forward, double &backward) const {
    const auto it = entries_.find(signature);
    if (it == entries_.end() || !(it->second.first >= 0) || !(it->second.second >= 0)) return false;
    forward = it->second.first;
    backward = it->second.second;
    return true;
  }
  void put(const std::string &signature, double forward, double backward) {
    entries_[signature] = {forward, backward};
    dirty_ = true;
  }
  void store() const {
    if (!dirty_ || path_.empty()) return;
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/plan-layers/1";
    doc["key"] = key_;
    nlohmann::ordered_json layers = nlohmann::ordered_json::object();
    for (const auto &[k, v] : entries_) layers[k] = {v.first, v.second};
    doc["layers"] = std::move(layers);
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ignored);
    const std::string temporary = fmt::format("{}.{}.tmp", path_, getpid());
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << doc.dump(1) << '\n';
      if (!out.flush()) return;  // a cache that cannot be written is measured again next time
    }
    std::filesystem::rename(temporary, path_, ignored);
  }

 private:
  std::string key_, path_;
  std::map<std::string, std::pair<double, double>> entries_;
  bool dirty_ = false;
};

}  // namespace

ComputeTimes measured_times(const PlanModel &m, std::int64_t batch, dlk::Context &context,
                            const std::string &cache_key, bool refresh, double min_seconds) {
  const bool simulated = std::string(context.info().backend) == "fpga_sim";
  ComputeTimes t;
  t.source = simulated ? "simulated (fpga_sim)" : "measured";
  LayerCache cache(cache_key + (simulated ? " fpga_sim" : ""));
  const std::size_t first = m.first_trained_layer();
  TimingOptions options;
  options.min_samples = 3;
  options.min_seconds = min_seconds;
  options.max_seconds = std::max(1.0, 20 * min_seconds);
  options.min_burst_seconds = 0.002;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const PlanLayer &l = m.layers[i];
    const std::string signature = layer_signature(l, batch, i == first);
    double forward = 0, backward = 0;
    if (!refresh && cache.find(signature, forward, backward)) {
      ++t.cached_layers;
    } else {
      LayerRun run;
      prepare(run, l, batch, i == first, context);
      if (simulated) {
        // One call each: the simulated time is a closed form of the shape; host
        // loops (bias copies, ReLU) are not the accelerator's and are left out.
        run.simulated = true;
        run.forward();
        forward = run.take();
        run.backward();
        backward = run.take();
      } else {
        const std::vector<Timing> timings =
            time_interleaved({{"forward", run.forward}, {"backward", run.backward}}, options);
        forward = median(timings[0].seconds);
        backward = median(timings[1].seconds);
      }
      cache.put(signature, forward, backward);
      ++t.measured_layers;
    }
    t.forward_seconds.push_back(forward);
    t.backward_seconds.push_back(backward);
  }
  // SGD with momentum over every parameter (examples/train/sgd.hpp).
  const std::string update_signature = fmt::format("sgd {}", m.parameters);
  double update = 0, unused = 0;
  if (!refresh && cache.find(update_signature, update, unused)) {
    t.update_seconds = update;
  } else {
    std::vector<float> w = random_floats(static_cast<std::size_t>(m.parameters), 8),
                       v(w.size(), 0.0f), g = random_floats(w.size(), 9);
    const auto step = [&] {
      for (std::size_t i = 0; i < w.size(); ++i) {
        v[i] = 0.9f * v[i] + g[i];
        w[i] -= 0.05f * v[i];
      }
    };
    t.update_seconds = median(time_interleaved({{"sgd", step}}, options)[0].seconds);
    cache.put(update_signature, t.update_seconds, 0);
  }
  cache.store();
  return t;
}

}  // namespace dlk::perf
