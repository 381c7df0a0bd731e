// isoflop's entry point: picks the command from the table and maps errors to exit statuses.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/flags.hpp"
#include "core/error.hpp"
#include "core/exit_status.hpp"
#include "core/streams.hpp"
#include "core/suggest.hpp"

namespace isoflop::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"optimal", "compute-optimal parameters and tokens for a budget; inverse queries", run_optimal},
      {"loss", "predicted loss for N parameters and D tokens (and unique tokens)", run_loss},
      {"catalog", "hardware, grids, laws and models, with their sources", run_catalog},
      {"cost", "time, GPU-hours, energy, CO2e and money of a run", run_cost},
      {"flops", "parameters and FLOPs of a model and a workload, by convention", run_flops},
      {"arch", "an architecture for a parameter count (dense or MoE), after a reference family", run_arch},
      {"layout", "ranked TP/PP/DP/EP layouts with memory and step time", run_layout},
      {"plan", "the main job: budget -> N, D, architecture, layout, cost", run_plan},
      {"train", "run a tiny GPT training job on the CPU or a CUDA GPU, with checkpoints", run_train},
      {"fit", "fit scaling laws to your own runs (Chinchilla Approaches 1-3, bootstrap)", run_fit},
      {"calibrate", "fit the step-time model's efficiency constants to your measured runs", run_calibrate},
      {"emit", "launch configs for Megatron-LM, DeepSpeed, NeMo, SLURM/torchrun from a plan", run_emit},
      {"check", "CI gate: training proposals against a policy -> verdicts, exit status, JSON, JUnit", run_check},
      {"validate", "emit and run a scaled-down IsoFLOP sweep that checks a plan's law on your hardware", run_validate},
  };
  return table;
}

namespace {

void print_overview() {
  std::printf(
      "usage: isoflop <command> [options]\n\n"
      "Plans compute-optimal training of large language models: model size and tokens for a budget,\n"
      "the parallel layout on a cluster, and what the run costs in time, energy, carbon and money.\n\n"
      "Commands:\n");
  for (const auto& c : commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf(
      "\nRun 'isoflop help <command>' (or 'isoflop <command> --help') for its options and examples.\n"
      "Common options: -o table|json|yaml|csv, -q, -v, --no-color, --catalog DIR.\n"
      "Exit status: 0 success, 1 check failed or infeasible, 2 invalid input, 3 internal error.\n");
}

// The command called `name`; none is an InputError "<unknown> '<name>' (did you mean …); accepted: …".
const Command& command_named(const std::string& name, const std::string& unknown) {
  const Command* c = find_named(commands(), name);
  if (!c)
    throw InputError(unknown + " '" + name + "'" + did_you_mean(name, names_of(commands())) + "; accepted: " +
                     join(names_of(commands())));
  return *c;
}

int dispatch(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    print_overview();
    return 2;
  }
  const std::string& first = argv[0];
  if (first == "--help" || first == "-h") {
    print_overview();
    return 0;
  }
  if (first == "--version" || first == "version") {
    std::printf("isoflop %s\n", ISOFLOP_VERSION);
    return 0;
  }
  if (first == "help") {
    if (argv.size() == 1) {
      print_overview();
      return 0;
    }
    return command_named(argv[1], "help: unknown command").run({"--help"});
  }
  return command_named(first, "unknown command").run(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace
}  // namespace isoflop::app

int main(int argc, char** argv) {
  isoflop::guard_standard_streams();
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const int status = isoflop::app::dispatch(args);
    isoflop::check_stdout();  // results that never reached their reader are no success
    return status;
  } catch (const std::exception& e) {
    const isoflop::ErrorOutcome outcome = isoflop::error_outcome(e, isoflop::app::flag_for_field);
    std::fprintf(stderr, "isoflop: %s: %s\n", outcome.label, outcome.message.c_str());
    return static_cast<int>(outcome.status);
  }
}
