// isoflop validate: design a scaled-down IsoFLOP sweep of a plan and emit it (jobs, sweep.json, run and SLURM
// scripts), run it here (`validate run DIR`), and report it (`validate report DIR`).
#include <unistd.h>

#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "core/error.hpp"
#include "train/stop_signals.hpp"
#include "validate/report_folder.hpp"
#include "validate/runner.hpp"
#include "validate/sweep_folder.hpp"
#include "validate/sweep_options.hpp"

namespace isoflop::app {
namespace {

int design(const std::vector<std::string>& args) {
  // One law: the shared law options but --all-laws, which a sweep cannot take (it checks one law).
  OptionList laws = law_options();
  std::erase_if(laws, [](const std::string& line) { return line.rfind("all-laws", 0) == 0; });
  auto lists = std::vector<OptionList>{declared_options("validate"), laws, from_option("a plan document")};
  const auto parsed = parse_command(command_help("validate"), args, lists);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  validate::SweepOptions o{.plan = read_from(vm, {"plan"}),
                           .flops = get_count(vm, "flops"),
                           .law = law_choice(vm),
                           .family = get_string(vm, "family"),
                           .preset = get_string(vm, "preset").value_or("cpu"),
                           .total_flops = get_count(vm, "total-flops"),
                           .budgets = get_int(vm, "budgets"),
                           .sizes = get_int(vm, "sizes"),
                           .source = get_string(vm, "source"),
                           .peak_device = get_string(vm, "peak-device").value_or("")};
  const doc::SweepDocument sweep = validate::design_from_options(o, load_catalog(parsed->common));
  if (auto dir = get_string(vm, "emit")) {
    const auto files = validate::write_sweep_folder(sweep, *dir, get_int(vm, "slurm-parallel").value_or(8));
    if (!parsed->common.quiet)
      std::fprintf(stderr, "isoflop: wrote %zu files into %s; run it with: isoflop validate run %s -j 2\n",
                   files.size(), dir->c_str(), dir->c_str());
  }
  write_document(
      parsed->common, doc::Json(sweep), [&] { return doc::render_sweep(sweep); }, "runs");
  return 0;
}

// The report's request, its output files checked (an existing --plot without --force is refused before any work).
validate::ReportRequest report_request(const CommonOptions& common, const po::variables_map& vm,
                                       const std::string& dir) {
  validate::ReportRequest r;
  r.inputs.sweep_dir = dir;
  r.inputs.tolerances = validate::parse_tolerances(get_string(vm, "tolerance").value_or(""));
  if (auto n = get_int(vm, "bootstrap", units::Sign::kNonNegative)) r.inputs.bootstrap_resamples = *n;
  r.plot = get_plot_path(vm);
  r.save_calibration = get_string(vm, "save-calibration");
  r.outputs = named_outputs(common);
  validate::check_report_files(r);
  return r;
}

// The report of a sweep folder (validate/report_folder.hpp); 1 when the verdict fails.
int report(const CommonOptions& common, const po::variables_map& vm, const std::string& dir) {
  const validate::ReportRequest r = report_request(common, vm, dir);
  const doc::ValidationDocument d = validate::write_report(r, load_catalog(common));
  write_document(common, doc::Json(d), [&] { return doc::render_validation(d); }, "runs");
  return d.report.passed ? 0 : 1;
}

int report_command(const std::vector<std::string>& args) {
  auto lists = std::vector<OptionList>{declared_options("validate", "dir"), declared_options("validate", "report")};
  const auto parsed = parse_command(command_help("validate", "report"), args, lists, {"dir"});
  if (!parsed) return 0;
  const auto dir = get_string(parsed->values, "dir");
  if (!dir || dir->empty())
    throw InputError("validate report: missing DIR, a folder written by 'isoflop validate --emit DIR'");
  return report(parsed->common, parsed->values, *dir);
}

int run(const std::vector<std::string>& args) {
  auto lists = std::vector<OptionList>{declared_options("validate", "dir"), declared_options("validate", "run"),
                                       declared_options("validate", "report")};
  const auto parsed = parse_command(command_help("validate", "run"), args, lists, {"dir"});
  if (!parsed) return 0;
  const auto dir = get_string(parsed->values, "dir");
  if (!dir || dir->empty())
    throw InputError("validate run: missing DIR, a folder written by 'isoflop validate --emit DIR'");
  const doc::SweepDocument sweep = validate::read_sweep_folder(*dir);
  report_request(parsed->common, parsed->values, *dir);  // the report's options and files, before the runs
  const bool terminal = ::isatty(STDERR_FILENO) != 0, quiet = parsed->common.quiet;
  validate::RunnerOptions o;
  o.train_command = [](const std::string& job, bool resume) {
    std::vector<std::string> argv = {"/proc/self/exe", "train", job, "-o", "json"};
    if (resume) argv.push_back("--resume");
    return argv;
  };
  o.jobs = get_int(parsed->values, "jobs").value_or(1);
  const auto to_stderr = [quiet](const std::string& text) {
    if (!quiet) std::fputs(text.c_str(), stderr);
  };
  validate::show_progress(o, terminal, to_stderr);
  train::StopSignals signals;
  o.stop = signals.flag();
  const validate::SweepRunSummary s = validate::run_sweep(sweep, *dir, o);
  to_stderr(validate::summary_text(s, sweep.runs.size(), terminal));
  if (s.interrupted > 0) return 130;
  // Its verdict is validate report's: a CI job running the sweep fails when a comparison does, as when a run does.
  const int verdict = report(parsed->common, parsed->values, *dir);
  return s.failed > 0 || verdict != 0 ? 1 : 0;
}

}  // namespace

int run_validate(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "run") return run({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "report") return report_command({args.begin() + 1, args.end()});
  return design(args);
}

}  // namespace isoflop::app
