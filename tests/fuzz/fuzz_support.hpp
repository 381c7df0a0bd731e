// What every fuzz target shares: the input as text, and a check that stops the run with a message when an
// invariant the library promises does not hold (libFuzzer then saves the input as a finding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace isoflop::fuzz {

inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// An isoflop::Error is the expected answer to bad input; anything else escaping LLVMFuzzerTestOneInput
// (another exception, a crash, a sanitizer report, a hang) is a finding. This is for the rest: a value the
// library returned that breaks what its header promises.
[[noreturn]] inline void invariant_failed(const char* what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
  std::abort();
}

#define ISOFLOP_FUZZ_CHECK(cond) \
  do {                           \
    if (!(cond)) ::isoflop::fuzz::invariant_failed(#cond); \
  } while (false)

}  // namespace isoflop::fuzz
