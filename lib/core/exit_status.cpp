// Errors to exit statuses and messages.
#include "core/exit_status.hpp"

#include "core/printable.hpp"
#include "core/streams.hpp"

namespace isoflop {

namespace {

ErrorOutcome classify(const std::exception& e, Spelling spell) {
  if (dynamic_cast<const OutputError*>(&e)) return {ExitStatus::kInternal, "error", e.what()};
  if (const auto* field = dynamic_cast<const FieldError*>(&e))
    return {ExitStatus::kInvalidInput, "error",
            spelled(spell, field->field()) + ": " + field->message() +
                (field->remedy().empty() ? "" : "; give " + spelled(spell, field->remedy()))};
  if (dynamic_cast<const InputError*>(&e)) return {ExitStatus::kInvalidInput, "error", e.what()};
  if (dynamic_cast<const InfeasibleError*>(&e)) return {ExitStatus::kFailed, "infeasible", e.what()};
  return {ExitStatus::kInternal, "internal error", e.what()};
}

}  // namespace

ErrorOutcome error_outcome(const std::exception& e, Spelling spell) {
  ErrorOutcome outcome = classify(e, spell);
  outcome.message = printable(outcome.message);  // one line of text, whatever the input quoted
  return outcome;
}

}  // namespace isoflop
