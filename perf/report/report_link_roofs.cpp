#include "perf/report/report_link_roofs.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace dlk::perf {
namespace {

struct Fit {
  double alpha = 0, bandwidth = 0;  // t = alpha + bytes / bandwidth, bytes of the buffer
};

// MPI_Allreduce's fit; where noise left it without a positive bandwidth (a
// loaded machine), alpha kept at >= 0 and the bandwidth from its largest size.
std::optional<Fit> peer_fit(const AllreduceRun &run) {
  if (!run.ran || !run.comm.contains("fits") || !run.comm.contains("points")) return std::nullopt;
  Fit fit;
  bool found = false;
  for (const auto &f : run.comm.at("fits"))
    if (f.at("algorithm") == "MPI_Allreduce") {
      found = true;
      if (f.at("alpha_seconds").is_number()) fit.alpha = std::max(0.0, f.at("alpha_seconds").get<double>());
      if (f.at("bandwidth").is_number()) fit.bandwidth = f.at("bandwidth").get<double>();
    }
  if (!found) return std::nullopt;
  if (fit.bandwidth > 0) return fit;
  double bytes = 0, seconds = 0;
  for (const auto &p : run.comm.at("points"))
    if (p.at("algorithm") == "MPI_Allreduce" && p.at("bytes").get<double>() > bytes) {
      bytes = p.at("bytes").get<double>();
      seconds = p.at("seconds").get<double>();
    }
  if (bytes <= 0 || seconds <= 0) return std::nullopt;
  if (seconds <= fit.alpha) fit.alpha = 0;
  fit.bandwidth = bytes / (seconds - fit.alpha);
  return fit;
}

}  // namespace

std::optional<LinkSpec> machine_link(const AllreduceRun &run) {
  const std::optional<Fit> fit = peer_fit(run);
  if (!fit || run.ranks < 2) return std::nullopt;
  const double p = run.ranks;
  LinkSpec link;
  link.name = "this machine (MPI_Allreduce's fit)";
  link.bandwidth = 2 * (p - 1) / p * fit->bandwidth;
  link.latency = std::max(1e-9, fit->alpha / (2 * (p - 1)));
  return link;
}

void add_allreduce_roof_verdicts(ReportTable &verdict, const AllreduceRun &run,
                                 const std::map<std::string, CodecRates> &codec_rates) {
  const std::optional<LinkSpec> link = machine_link(run);
  const std::optional<Fit> fit = peer_fit(run);
  const nlohmann::json &points = run.comm.at("points");
  std::int64_t largest = 0;
  for (const auto &p : points) largest = std::max(largest, p.at("bytes").get<std::int64_t>());
  const double n = static_cast<double>(largest), ranks = run.ranks;
  for (const auto &p : points) {
    if (p.at("bytes").get<std::int64_t>() != largest) continue;
    const std::string algorithm = p.at("algorithm");
    const double seconds = p.at("seconds").get<double>();
    const double wire = p.at("wire_bytes_sent").get<double>();
    const double link_seconds = link ? fit->alpha + wire / link->bandwidth : 0;
    double codec_seconds = 0;
    std::string codec_text;
    const auto codec = codec_rates.find(algorithm);
    if (codec != codec_rates.end() && codec->second.encode > 0 && codec->second.decode_add > 0) {
      codec_seconds = algorithm == "topk" ? n / codec->second.encode + n / codec->second.decode_add
                                          : (1 + 1 / ranks) * n / codec->second.encode + 2 * n / codec->second.decode_add;
      codec_text = fmt::format("codec: encode {:.2f}, decode_add {:.2f} GB/s", codec->second.encode * 1e-9,
                               codec->second.decode_add * 1e-9);
    }
    const double roof = std::max(link_seconds, codec_seconds);
    std::string bound = "-", roof_text = "-";
    if (codec_seconds > link_seconds) {
      bound = "codec";
      roof_text = codec_text;
    } else if (link) {
      bound = fit->alpha >= 0.5 * link_seconds ? "link (latency)" : "link (bandwidth)";
      roof_text = fmt::format("link: {:.2f} GB/s, alpha {:.1f} us", link->bandwidth * 1e-9, fit->alpha * 1e6);
    }
    verdict.add_row({"allreduce " + algorithm, fmt::format("{} B, {} ranks", largest, run.ranks), bound,
                     roof > 0 ? Cell{100.0 * roof / seconds} : Cell{}, roof_text});
  }
}

}  // namespace dlk::perf
