// What the CLI tests share: a command's JSON document, and the rule for bad input.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_cli.hpp"

namespace isoflop::test {

// Runs `args` and returns its standard output as JSON; requires the exit `status`.
inline nlohmann::json run_json(const std::string& args, int status = 0) {
  const CliResult r = run_cli(args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.status == status);
  return nlohmann::json::parse(r.out);
}

// run_json, with the output also saved as `file` for a command that reads it.
inline nlohmann::json run_json_to(const std::string& args, const std::string& file) {
  const CliResult r = run_cli(args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.status == 0);
  std::ofstream(file) << r.out;
  return nlohmann::json::parse(r.out);
}

// `args` is bad input (exit 2) whose message holds `words`.
inline void check_refused(const std::string& args, const std::string& words) {
  const CliResult r = run_cli(args);
  INFO(args << "\n" << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(words) != std::string::npos);
}

// Each of `cases` after `base` is bad input: exit 2 and a one-line message.
inline void check_bad_input(const std::string& base, const std::vector<std::string>& cases) {
  for (const auto& args : cases) {
    const std::string command = base + args;
    INFO(command);
    const CliResult r = run_cli(command);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace isoflop::test
