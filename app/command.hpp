// The command table: each command is {name, one-line summary, handler}; main.cpp dispatches on it.
#pragma once

#include <string>
#include <vector>

namespace isoflop::app {

// A handler gets the arguments after the command name and returns the exit status. It throws
// isoflop::InputError (exit 2) or InfeasibleError (exit 1); main() prints "isoflop: error: …".
using Handler = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;
  const char* summary;
  Handler run;
};

const std::vector<Command>& commands();

// One handler per command, each in app/cmd_<name>.cpp.
int run_catalog(const std::vector<std::string>& args);
int run_optimal(const std::vector<std::string>& args);
int run_loss(const std::vector<std::string>& args);
int run_cost(const std::vector<std::string>& args);
int run_flops(const std::vector<std::string>& args);
int run_arch(const std::vector<std::string>& args);
int run_layout(const std::vector<std::string>& args);
int run_plan(const std::vector<std::string>& args);
int run_fit(const std::vector<std::string>& args);
int run_train(const std::vector<std::string>& args);
int run_calibrate(const std::vector<std::string>& args);
int run_emit(const std::vector<std::string>& args);
int run_check(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);

}  // namespace isoflop::app
