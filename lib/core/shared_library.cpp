#include "core/shared_library.hpp"

#include <dlfcn.h>

#include <string>

#include "core/error.hpp"

namespace isoflop {

void* open_shared_library(const char* library, std::initializer_list<const char*> names) {
  std::string why = "no file to try";
  for (const char* name : names) {
    if (!name || !*name) continue;
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* error = dlerror();
    why = error ? error : "unknown error";
  }
  throw Error(std::string(library) + " could not be loaded: " + why);
}

void* shared_library_symbol(void* handle, const char* library, const char* symbol) {
  void* address = dlsym(handle, symbol);
  if (!address) throw Error(std::string(library) + " has no " + symbol);
  return address;
}

}  // namespace isoflop
