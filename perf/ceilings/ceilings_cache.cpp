#include "perf/ceilings/ceilings_cache.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "perf/ceilings/ceilings_report.hpp"
#include "perf/common/progress.hpp"

namespace dlk::perf {
namespace {

std::uint64_t fnv1a64(const std::string &text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// mkdir -p; throws naming the directory that could not be made.
void make_directories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      throw std::runtime_error(fmt::format("cannot create {}: {}", prefix, std::strerror(errno)));
    if (slash == std::string::npos) return;
  }
}

}  // namespace

std::string ceilings_cache_directory() {
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/dlk";
  const char *home = std::getenv("HOME");
  if (home && home[0] != '\0') return std::string(home) + "/.cache/dlk";
  return "";
}

std::string ceilings_cache_file(const std::string &directory, const std::string &key) {
  return fmt::format("{}/ceilings-{:016x}.json", directory, fnv1a64(key));
}

CacheLookup load_cached_ceilings(const std::string &key) {
  CacheLookup lookup;
  const std::string directory = ceilings_cache_directory();
  if (directory.empty()) {
    lookup.problem = "no cache directory (neither XDG_CACHE_HOME nor HOME is set)";
    return lookup;
  }
  lookup.path = ceilings_cache_file(directory, key);
  std::ifstream in(lookup.path);
  if (!in) {
    lookup.problem = "none yet";
    return lookup;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json doc = nlohmann::json::parse(text.str());
    MachineCeilings m = machine_ceilings_from_json(doc);
    if (m.key != key) throw std::runtime_error("it was measured for another key: " + m.key);
    lookup.ceilings = std::move(m);
  } catch (const std::exception &e) {
    lookup.problem = std::string("corrupt: ") + e.what();
  }
  return lookup;
}

std::string store_cached_ceilings(const MachineCeilings &ceilings) {
  const std::string directory = ceilings_cache_directory();
  if (directory.empty())
    throw std::runtime_error("no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
  make_directories(directory);
  const std::string path = ceilings_cache_file(directory, ceilings.key);
  const std::string temporary = fmt::format("{}.{}.tmp", path, getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << to_json(ceilings).dump(1) << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", temporary, path, reason));
  }
  return path;
}

}  // namespace dlk::perf

namespace dlk::perf {

ObtainedCeilings cached_or_measured_ceilings(int threads, bool refresh,
                                             const MachineCeilingOptions &options,
                                             const ProgressFn &progress) {
  const std::string key = ceilings_cache_key(threads);
  ObtainedCeilings out;
  std::string why;
  if (refresh) {
    why = "--refresh";
  } else {
    CacheLookup lookup = load_cached_ceilings(key);
    if (lookup.ceilings) {
      out.ceilings = std::move(*lookup.ceilings);
      out.from_cache = true;
      out.note = fmt::format("cached in {}, measured at {} (--refresh measures again)", lookup.path,
                             out.ceilings.measured_at);
      return out;
    }
    why = lookup.path.empty() ? lookup.problem : fmt::format("cache {}: {}", lookup.path, lookup.problem);
  }
  out.ceilings = measure_machine_ceilings(threads, options, progress);
  try {
    const std::string path = store_cached_ceilings(out.ceilings);
    out.note = fmt::format("measured now, at {} ({}); stored in {}", out.ceilings.measured_at, why, path);
  } catch (const std::exception &e) {
    out.note = fmt::format("measured now, at {} ({}); not stored: {}", out.ceilings.measured_at, why,
                           e.what());
  }
  return out;
}

ObtainedCeilings backend_ceilings(const dlk_context_info &info, bool refresh, bool show_progress) {
  if (std::string(info.backend) == "cpu") {
    Progress progress(show_progress);
    return cached_or_measured_ceilings(
        info.num_threads, refresh, MachineCeilingOptions{},
        [&](const std::string &step, double f) { progress.update("ceilings: " + step, f); });
  }
  ObtainedCeilings out;
  out.ceilings = reported_ceilings(info);
  out.note = out.ceilings.method;
  return out;
}

}  // namespace dlk::perf
