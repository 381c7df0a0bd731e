// A shared library opened on first use (dlopen) instead of linked: each library linked to the binary costs
// every command its loading and symbol relocations at start, although only a few commands call it.
#pragma once

#include <initializer_list>

namespace isoflop {

// Opens the first of `names` that loads (a soname, then the path found at configure time); never closed.
// Throws Error("<library> could not be loaded: <dlerror>") when none does.
void* open_shared_library(const char* library, std::initializer_list<const char*> names);

// The address of `symbol` in `handle`; throws Error("<library> has no <symbol>") when it is missing.
void* shared_library_symbol(void* handle, const char* library, const char* symbol);

// Binds `*function` to `symbol` (a function pointer of the symbol's own type).
template <typename F>
void bind_symbol(void* handle, const char* library, const char* symbol, F* function) {
  *function = reinterpret_cast<F>(shared_library_symbol(handle, library, symbol));
}

}  // namespace isoflop
