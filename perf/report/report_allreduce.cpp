#include "perf/report/report_allreduce.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dlk::perf {
namespace {

struct Output {
  int status = -1;  // exit status; -1 when it did not exit normally
  std::string out;
};

// Runs `command` through the shell and returns its stdout and exit status.
Output run_shell(const std::string &command) {
  Output o;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) o.out.append(buffer, n);
  const int status = pclose(pipe);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

std::string quoted(const std::string &word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string first_line(const std::string &text) { return text.substr(0, text.find('\n')); }

// The last non-empty line: what a failing program said last.
std::string last_line(const std::string &text) {
  std::string last, line;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

std::string self_path() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::system_error(errno, std::generic_category(), "readlink /proc/self/exe");
  return std::string(path, static_cast<size_t>(n));
}

}  // namespace

AllreduceRun run_allreduce_under_mpirun(const AllreduceSizes &sizes, bool comm_built) {
  AllreduceRun run;
  if (!comm_built) {
    run.reason = "this dlk-perf was built without libdlk_comm (MPI was not found at configure time)";
    return run;
  }
  const Output version = run_shell("mpirun --version 2>&1");
  if (version.status != 0) {
    run.reason = "mpirun is not on PATH (Debian: openmpi-bin)";
    return run;
  }
  run.mpi_version = first_line(version.out);
  // Root may run it here (a container); Open MPI refuses that unless asked twice.
  // --oversubscribe and --bind-to none: 2 ranks start on a 1-core machine too, and
  // neither is pinned onto the core the other uses.
  run.command = fmt::format(
      "mpirun -n {} --oversubscribe --bind-to none {} comm --json -b {} -e {} -f {} "
      "--min-seconds {} --max-calls {}",
      run.ranks, quoted(self_path()), sizes.min_bytes, sizes.max_bytes, sizes.factor,
      sizes.min_seconds, sizes.max_calls);
  char error_file[] = "/tmp/dlk-perf-mpirun-XXXXXX";
  const int fd = mkstemp(error_file);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "mkstemp");
  close(fd);
  const Output out = run_shell("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                               run.command + " 2>" + quoted(error_file) + " </dev/null");
  std::ifstream errors(error_file);
  std::stringstream error_text;
  error_text << errors.rdbuf();
  std::remove(error_file);
  if (out.status != 0) {
    const std::string said = last_line(error_text.str());
    run.reason = fmt::format("mpirun exited with status {}{}{}", out.status, said.empty() ? "" : ": ", said);
    return run;
  }
  try {
    run.comm = nlohmann::json::parse(out.out);
    if (run.comm.at("schema") != "dlk-perf/comm/1") throw std::runtime_error("schema is not dlk-perf/comm/1");
    run.ranks = run.comm.at("ranks").get<int>();
  } catch (const std::exception &e) {
    run.reason = fmt::format("the ranks' output is not a dlk-perf/comm/1 document ({})", e.what());
    run.comm = nullptr;
    return run;
  }
  run.ran = true;
  return run;
}

}  // namespace dlk::perf
