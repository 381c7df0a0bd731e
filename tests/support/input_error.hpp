// The message of the InputError a call throws, for tests that compare error messages exactly.
#pragma once

#include <string>

#include "core/error.hpp"

namespace isoflop::test {

// The message of the InputError that f() throws; "" when it throws none (other exceptions pass through).
template <typename F>
std::string input_error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace isoflop::test
