// The library's error types: each carries what was wrong, and the CLI maps the type to an exit status.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace isoflop {

// Base of every error isoflop throws on purpose. The message is one line, ready to print after
// "isoflop: error: ".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid input or usage: a bad option value, a malformed file, an impossible request (exit 2).
// The message names the option (or file:line), the value, and what is accepted.
class InputError : public Error {
 public:
  using Error::Error;
};

// Invalid input in a named field of a library options struct or document, in the library's own words:
// field() is the field ("pue", "global_batch"), message() what is wrong with it. The command line maps the
// field to the flag the user typed (app/flags.cpp); a library caller prints what() ("pue: 0.9 is below 1").
class FieldError : public InputError {
 public:
  FieldError(std::string field, const std::string& message)
      : InputError(field + ": " + message), field_(std::move(field)), message_(message) {}
  // One that another field would cure ("energy_method: measured: …; give power_per_gpu_w"), named so that the
  // command line spells it as a flag too.
  FieldError(std::string field, const std::string& message, std::string remedy)
      : InputError(field + ": " + message + "; give " + remedy),
        field_(std::move(field)),
        message_(message),
        remedy_(std::move(remedy)) {}
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }
  const std::string& remedy() const { return remedy_; }  // "" when none is named

 private:
  std::string field_;
  std::string message_;
  std::string remedy_;
};

// A catalog file failed validation; the message starts with "file:line: ".
class CatalogError : public InputError {
 public:
  using InputError::InputError;
};

// The input is valid but no answer exists: nothing fits, a check failed (exit 1).
class InfeasibleError : public Error {
 public:
  using Error::Error;
};

// Exit statuses shared by every command (CLI.md).
enum class ExitStatus : int {
  kSuccess = 0,
  kFailed = 1,
  kInvalidInput = 2,
  kInternal = 3,
};

}  // namespace isoflop
