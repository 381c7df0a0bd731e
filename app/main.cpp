// isoflop's entry point: picks the command from the table and maps errors to exit statuses.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/flags.hpp"
#include "core/error.hpp"
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

const Command* find_command(const std::string& name) { return find_named(commands(), name); }

std::vector<std::string> command_names() { return names_of(commands()); }

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
    const Command* c = find_command(argv[1]);
    if (!c)
      throw InputError("help: unknown command '" + argv[1] + "'" + did_you_mean(argv[1], command_names()) +
                       "; accepted: " + join(command_names()));
    return c->run({"--help"});
  }
  const Command* c = find_command(first);
  if (!c)
    throw InputError("unknown command '" + first + "'" + did_you_mean(first, command_names()) +
                     "; accepted: " + join(command_names()));
  return c->run(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

// A closed standard descriptor (`>&-`) is given /dev/null opened read-only, so that no file opened later
// takes its number (results would land in it) and writes to it still fail, which check_stdout reports.
// SIGPIPE gets its default action: piped into `head`, isoflop ends quietly, as the coreutils do.
void guard_standard_streams() {
  std::signal(SIGPIPE, SIG_DFL);
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", O_RDONLY);
      if (opened >= 0 && opened != fd) {
        ::dup2(opened, fd);
        ::close(opened);
      }
    }
}

}  // namespace
}  // namespace isoflop::app

int main(int argc, char** argv) {
  using isoflop::ExitStatus;
  isoflop::app::guard_standard_streams();
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const int status = isoflop::app::dispatch(args);
    isoflop::app::check_stdout();  // results that never reached their reader are no success
    return status;
  } catch (const isoflop::app::OutputError& e) {
    std::fprintf(stderr, "isoflop: error: %s\n", e.what());
    return static_cast<int>(ExitStatus::kInternal);
  } catch (const isoflop::FieldError& e) {
    std::fprintf(stderr, "isoflop: error: %s: %s\n", isoflop::app::flag_for_field(e.field()).c_str(),
                 e.message().c_str());
    return static_cast<int>(ExitStatus::kInvalidInput);
  } catch (const isoflop::InputError& e) {
    std::fprintf(stderr, "isoflop: error: %s\n", e.what());
    return static_cast<int>(ExitStatus::kInvalidInput);
  } catch (const isoflop::InfeasibleError& e) {
    std::fprintf(stderr, "isoflop: infeasible: %s\n", e.what());
    return static_cast<int>(ExitStatus::kFailed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "isoflop: internal error: %s\n", e.what());
    return static_cast<int>(ExitStatus::kInternal);
  }
}
