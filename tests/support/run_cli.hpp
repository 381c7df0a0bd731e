// Running the real isoflop binary from tests: exit status, stdout and stderr captured.
#pragma once

#include <string>

namespace isoflop::test {

struct CliResult {
  int status = -1;     // exit status (128+signal when killed)
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs `ISOFLOP_BINARY <args>` through /bin/sh (args are shell words, quote as needed), with
// NO_COLOR=1 and ISOFLOP_CATALOG unset unless `env` sets it ("VAR=value ..." prefix).
CliResult run_cli(const std::string& args, const std::string& env = "");

}  // namespace isoflop::test
