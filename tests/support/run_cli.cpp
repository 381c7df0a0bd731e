// Running the isoflop binary for end-to-end tests.
#include "support/run_cli.hpp"

#include "support/temp_files.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace isoflop::test {

CliResult run_cli(const std::string& args, const std::string& env) {
  static int counter = 0;
  const std::string base = "/tmp/isoflop-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string command = "env -u ISOFLOP_CATALOG NO_COLOR=1 " + env + " " + ISOFLOP_BINARY + " " + args +
                              " >" + base + ".out 2>" + base + ".err </dev/null";
  const int raw = std::system(command.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_file(base + ".out");
  r.err = read_file(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace isoflop::test
