// The link between ranks as `dlk-perf plan --link` gives it: a preset
// ("1gbit", "10gbit", "25gbit", "100gbit", or any "<rate>gbit" / "<rate>mbit"),
// or "bandwidth=12.5GB/s,latency=5us" (bandwidth in B/s, KB/s, MB/s, GB/s,
// bit/s, Kbit/s, Mbit/s, Gbit/s; latency in s, ms, us, ns). A preset's latency
// is kPresetLatency: what one MPI message over TCP costs between two hosts
// beside the wire time.
#pragma once

#include <string>
#include <string_view>

namespace dlk::perf {

struct LinkSpec {
  std::string name;        // as given, or as a chart labels it
  double bandwidth = 0;    // bytes per second, each direction of each rank's link
  double latency = 0;      // seconds per message
};

inline constexpr double kPresetLatency = 25e-6;

// Throws std::invalid_argument naming the text and the forms it may take.
LinkSpec parse_link(std::string_view text);

// "1 Gbit/s", "12.5 GB/s" for labels.
std::string bandwidth_text(double bytes_per_second);

}  // namespace dlk::perf
