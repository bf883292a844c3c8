#include "core/module_loader.hpp"

#include <dlfcn.h>

namespace dlk::core {
namespace {

std::string directory_of_libdlk() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&load_backend_module), &info) == 0 || !info.dli_fname)
    return "";
  const std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

std::unique_ptr<Backend> load_backend_module(const std::string &name, const BackendConfig &config) {
  const std::string file = "libdlk_" + name + ".so." DLK_ABI_VERSION_STRING;
  // Modules stay loaded for the life of the process: a Backend's vtable lives there.
  void *handle = dlopen((directory_of_libdlk() + file).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    throw Error(DLK_STATUS_BACKEND_UNAVAILABLE,
                "backend '" + name + "': cannot load " + file + " (" + (why ? why : "not found") +
                    "); was dlk built with its module?");
  }
  auto create = reinterpret_cast<BackendModuleCreateFn>(dlsym(handle, DLK_BACKEND_MODULE_ENTRY));
  if (!create)
    throw Error(DLK_STATUS_BACKEND_UNAVAILABLE,
                "backend '" + name + "': " + file + " has no " DLK_BACKEND_MODULE_ENTRY);
  char error[512] = {};
  dlk_status status = DLK_STATUS_BACKEND_UNAVAILABLE;
  Backend *backend = create(DLK_BACKEND_MODULE_API_VERSION, &config, &status, error, sizeof(error));
  if (!backend) {
    // An invalid option (a device ordinal past the last GPU) keeps its status.
    if (status == DLK_STATUS_INVALID_ARGUMENT) throw Error(status, error);
    throw Error(DLK_STATUS_BACKEND_UNAVAILABLE, "backend '" + name + "': " + error);
  }
  return std::unique_ptr<Backend>(backend);
}

}  // namespace dlk::core
