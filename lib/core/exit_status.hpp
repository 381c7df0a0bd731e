// What an error means for the process that ends with it: the exit status (CLI.md) by the error's type, and
// the one-line message, a FieldError's field spelled as the caller's user knows it.
#pragma once

#include <exception>
#include <string>

#include "core/error.hpp"
#include "core/spelling.hpp"

namespace isoflop {

struct ErrorOutcome {
  ExitStatus status = ExitStatus::kInternal;
  const char* label = "internal error";  // how the message starts: "error", "infeasible" or "internal error"
  std::string message;                   // what(); for a FieldError "<field spelled>: <message>"
};

// InputError (FieldError, CatalogError): invalid input, exit 2; InfeasibleError: exit 1; OutputError (results
// that never reached their reader, core/streams.hpp) and anything else: exit 3, the latter an internal error.
ErrorOutcome error_outcome(const std::exception& e, Spelling spell = nullptr);

}  // namespace isoflop
