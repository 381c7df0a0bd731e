// Tests for lib/core/sections: one named section of a text, without comments and trailing blank lines.
#include "core/sections.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace isoflop;

namespace {

const char* const kText =
    "# a comment before any section\n"
    "[usage]\n"
    "isoflop plan [options]\n"
    "\n"
    "[options]\n"
    "flops C: the budget\n"
    "# a comment inside\n"
    "  continued\n"
    "\n"
    "\n"
    "[options cluster]\n"
    "gpu NAME: the accelerator\n"
    "[empty]\n"
    "[usage]\n"
    "isoflop plan --help";

using Lines = std::vector<std::string_view>;

}  // namespace

TEST_CASE("a section's lines run to the next header, without comments and trailing blank lines") {
  CHECK(text_section(kText, "options") == Lines{"flops C: the budget", "  continued"});
  CHECK(text_section(kText, "options cluster") == Lines{"gpu NAME: the accelerator"});
  CHECK(text_section(kText, "usage") == Lines{"isoflop plan [options]", "", "isoflop plan --help"});
}

TEST_CASE("an empty section is found and has no lines, a missing one is nullopt") {
  const auto empty = text_section(kText, "empty");
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  CHECK_FALSE(text_section(kText, "examples").has_value());
  CHECK_FALSE(text_section(kText, "option").has_value());  // names match whole
  CHECK_FALSE(text_section("", "usage").has_value());
}

TEST_CASE("logical lines: an indented line continues the one above, blank lines are left out") {
  CHECK(logical_lines(*text_section(kText, "options")) == std::vector<std::string>{"flops C: the budget continued"});
  CHECK(logical_lines({"a: x", "", "b: y", "     and z", "  and w"}) ==
        std::vector<std::string>{"a: x", "b: y and z and w"});
  CHECK(logical_lines({"  indented first", "next"}) == std::vector<std::string>{"  indented first", "next"});
  CHECK(logical_lines({}).empty());
}

TEST_CASE("join_lines puts a newline between lines and none at the end") {
  CHECK(join_lines({}) == "");
  CHECK(join_lines({"one"}) == "one");
  CHECK(join_lines({"one", "", "three"}) == "one\n\nthree");
}
