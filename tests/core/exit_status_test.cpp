// Tests for lib/core/exit_status: each error type's exit status (CLI.md: 1 failed, 2 invalid input, 3 internal)
// and message, a FieldError's field spelled by the caller.
#include "core/exit_status.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "core/streams.hpp"

using namespace isoflop;

namespace {

std::string flag_like(std::string_view field) { return "--" + std::string(field); }

}  // namespace

TEST_CASE("invalid input exits 2, a FieldError names its field as the caller spells it") {
  const ErrorOutcome field = error_outcome(FieldError("pue", "0.9 is below 1"), flag_like);
  CHECK(field.status == ExitStatus::kInvalidInput);
  CHECK(std::string(field.label) == "error");
  CHECK(field.message == "--pue: 0.9 is below 1");
  CHECK(error_outcome(FieldError("pue", "0.9 is below 1")).message == "pue: 0.9 is below 1");
  const ErrorOutcome input = error_outcome(InputError("loss: missing --params N"), flag_like);
  CHECK(input.status == ExitStatus::kInvalidInput);
  CHECK(input.message == "loss: missing --params N");
  CHECK(error_outcome(CatalogError("hardware.yaml:3: bad")).status == ExitStatus::kInvalidInput);
}

TEST_CASE("infeasible exits 1, output that never arrived and anything unforeseen exit 3") {
  const ErrorOutcome infeasible = error_outcome(InfeasibleError("no layout fits"));
  CHECK(infeasible.status == ExitStatus::kFailed);
  CHECK(std::string(infeasible.label) == "infeasible");
  CHECK(infeasible.message == "no layout fits");
  const ErrorOutcome output = error_outcome(OutputError("cannot write results to standard output"));
  CHECK(output.status == ExitStatus::kInternal);
  CHECK(std::string(output.label) == "error");
  const ErrorOutcome other = error_outcome(std::logic_error("broken invariant"));
  CHECK(other.status == ExitStatus::kInternal);
  CHECK(std::string(other.label) == "internal error");
  CHECK(other.message == "broken invariant");
  CHECK(error_outcome(Error("plain")).status == ExitStatus::kInternal);
}

TEST_CASE("a message stays one line of text: a newline or a terminal escape it quotes is written as an escape") {
  const ErrorOutcome e = error_outcome(InputError("p.json: architecture.norm: 'rmsnorm\n--foo\x1b[31m' is not one of"));
  CHECK(e.message == "p.json: architecture.norm: 'rmsnorm\\n--foo\\x1b[31m' is not one of");
  CHECK(error_outcome(FieldError("name", "tab\there\r")).message == "name: tab\\there\\r");
  CHECK(error_outcome(InputError("caf\xc3\xa9 \xe2\x80\x94 plain UTF-8 is kept")).message ==
        "caf\xc3\xa9 \xe2\x80\x94 plain UTF-8 is kept");
}
