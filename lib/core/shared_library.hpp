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

// A library's table of functions, opened and bound on the first call (thread-safely) and kept, never closed.
// `Table` names the library (`kLibrary`), the files to try (`kSoname`, the runtime's, then `kPath`, found at
// configure time) and binds its members in `void bind(void* handle)`.
template <typename Table>
const Table& loaded_functions() {
  static const Table loaded = [] {
    Table table;
    table.bind(open_shared_library(Table::kLibrary, {Table::kSoname, Table::kPath}));
    return table;
  }();
  return loaded;
}

}  // namespace isoflop
