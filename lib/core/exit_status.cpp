// Errors to exit statuses and messages.
#include "core/exit_status.hpp"

#include "core/streams.hpp"

namespace isoflop {

namespace {

// A message quotes what the user gave, which may hold a newline or a terminal's escape sequence: each control
// character is written as an escape, so that the message stays one line and prints as text.
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (byte < 0x20 || byte == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

ErrorOutcome classify(const std::exception& e, Spelling spell) {
  if (dynamic_cast<const OutputError*>(&e)) return {ExitStatus::kInternal, "error", e.what()};
  if (const auto* field = dynamic_cast<const FieldError*>(&e))
    return {ExitStatus::kInvalidInput, "error", spelled(spell, field->field()) + ": " + field->message()};
  if (dynamic_cast<const InputError*>(&e)) return {ExitStatus::kInvalidInput, "error", e.what()};
  if (dynamic_cast<const InfeasibleError*>(&e)) return {ExitStatus::kFailed, "infeasible", e.what()};
  return {ExitStatus::kInternal, "internal error", e.what()};
}

}  // namespace

ErrorOutcome error_outcome(const std::exception& e, Spelling spell) {
  ErrorOutcome outcome = classify(e, spell);
  outcome.message = one_line(outcome.message);
  return outcome;
}

}  // namespace isoflop
