// The CUDA driver probe (core/cuda_driver_probe.cpp) as a process sees it: what
// is loaded after a context is created. Each case runs in a child process of its
// own, so that nothing an earlier case loaded counts against the next.
#include <dlfcn.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/core/scoped_env.hpp"
#include "tests/core/stderr_capture.hpp"
#include "tests/core/validation_support.hpp"

using namespace dlk_test;

namespace {

// The libraries the CUDA module brings in, and the driver.
const char *const kCudaLibraries[] = {"libdlk_cuda.so", "libcudart.so", "libcublas", "libcudnn",
                                      "libcuda.so"};

int collect_cuda_library(dl_phdr_info *info, size_t, void *data) {
  auto &found = *static_cast<std::vector<std::string> *>(data);
  const std::string path = info->dlpi_name ? info->dlpi_name : "";
  for (const char *library : kCudaLibraries)
    if (path.find(library) != std::string::npos) found.push_back(path);
  return 0;
}

std::vector<std::string> loaded_cuda_libraries() {
  std::vector<std::string> found;
  dl_iterate_phdr(collect_cuda_library, &found);
  return found;
}

// What one child process reports back: the fields it filled, one per line.
struct ChildReport {
  std::string backend;  // of the context, or the status's name when creation failed
  std::string message;  // the dispatch line or dlk_last_error()
  std::vector<std::string> cuda_libraries;
};

// Runs body in a forked child (no Catch macros there) and returns its report.
ChildReport in_child(const std::function<ChildReport()> &body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    const ChildReport r = body();
    std::string text = r.backend + "\n" + r.message + "\n";
    for (const auto &library : r.cuda_libraries) text += library + "\n";
    for (size_t done = 0; done < text.size();) {
      const ssize_t wrote = write(fds[1], text.data() + done, text.size() - done);
      if (wrote <= 0) _exit(2);
      done += static_cast<size_t>(wrote);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char chunk[4096];
  for (ssize_t got; (got = read(fds[0], chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<size_t>(got));
  close(fds[0]);
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  REQUIRE(WIFEXITED(wstatus));
  REQUIRE(WEXITSTATUS(wstatus) == 0);
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  REQUIRE(lines.size() >= 2);
  return {lines[0], lines[1], std::vector<std::string>(lines.begin() + 2, lines.end())};
}

// Creates a context with the backend asked for (NULL: from the environment) at
// DLK_VERBOSE=2 and reports what it got.
ChildReport create_and_report(const char *backend) {
  StderrCapture capture;
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = backend;
  options.verbose = 2;
  options.num_threads = 1;
  dlk_context_t context = nullptr;
  const dlk_status status = dlk_context_create(&context, &options);
  ChildReport r;
  if (status == DLK_STATUS_SUCCESS) {
    dlk_context_info info;
    r.backend = dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS ? info.backend : "?";
    dlk_context_destroy(context);
    const auto dispatch = lines_starting(capture.lines(), "dlk_verbose,dispatch,");
    r.message = dispatch.empty() ? "" : dispatch[0];
  } else {
    r.backend = dlk_status_name(status);
    r.message = dlk_last_error();
  }
  r.cuda_libraries = loaded_cuda_libraries();
  return r;
}

std::string joined(const std::vector<std::string> &lines) {
  std::string s;
  for (const auto &line : lines) s += line + "; ";
  return s;
}

// Whether this machine has the NVIDIA driver library at all, found independently
// of dlk: without it, the probe must refuse before the module is loaded.
bool driver_library_present() {
  void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver) dlclose(driver);
  return driver != nullptr;
}

}  // namespace

TEST_CASE("cuda probe: a process that asks for cpu loads neither the CUDA module nor the driver",
          "[registry][cuda_probe]") {
  CleanDlkEnvironment clean;
  for (const bool from_environment : {false, true}) {
    INFO((from_environment ? "DLK_BACKEND=cpu" : "options.backend = \"cpu\""));
    ScopedEnv env("DLK_BACKEND", from_environment ? "cpu" : nullptr);
    const ChildReport r = in_child([&] { return create_and_report(from_environment ? nullptr : "cpu"); });
    INFO("loaded: " << joined(r.cuda_libraries));
    CHECK(r.backend == "cpu");
    CHECK(r.message.empty());  // no dispatch decision about cuda
    CHECK(r.cuda_libraries.empty());
  }
}

TEST_CASE("cuda probe: auto without a usable driver chooses cpu without loading the module, saying why",
          "[registry][cuda_probe]") {
  if (driver_library_present()) {
    WARN("SKIPPED: libcuda.so.1 (the NVIDIA driver) is installed here; this test needs a machine without it");
    return;
  }
  CleanDlkEnvironment clean;
  const ChildReport r = in_child([] { return create_and_report("auto"); });
  INFO("dispatch: " << r.message << "\nloaded: " << joined(r.cuda_libraries));
  CHECK(r.backend == "cpu");
  CHECK_THAT(r.message, Catch::StartsWith("dlk_verbose,dispatch,backend: auto skipped cuda (backend 'cuda': "
                                          "no NVIDIA driver: cannot load libcuda.so.1 ("));
  CHECK_THAT(r.message, Catch::EndsWith(")), chose cpu"));
  CHECK(r.cuda_libraries.empty());
}

TEST_CASE("cuda probe: DLK_BACKEND=cuda without a usable driver is unavailable, naming the driver, "
          "without loading the module",
          "[registry][cuda_probe]") {
  if (driver_library_present()) {
    WARN("SKIPPED: libcuda.so.1 (the NVIDIA driver) is installed here; this test needs a machine without it");
    return;
  }
  CleanDlkEnvironment clean;
  const ChildReport r = in_child([] { return create_and_report("cuda"); });
  INFO("error: " << r.message << "\nloaded: " << joined(r.cuda_libraries));
  CHECK(r.backend == dlk_status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  CHECK_THAT(r.message, Catch::StartsWith("dlk_context_create: backend 'cuda': no NVIDIA driver: cannot load "
                                          "libcuda.so.1 ("));
  CHECK(r.cuda_libraries.empty());
}
