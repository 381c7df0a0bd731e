// isoflop train JOB.yaml: run a tiny GPT training job on the CPU or a CUDA GPU, with a progress bar,
// checkpoints, Ctrl-C to stop and --resume to continue, and a results document plus a loss curve.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "train/cpu/blas_core.hpp"
#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "doc/train_document.hpp"
#include "train/run_folder.hpp"
#include "train/stop_signals.hpp"

namespace isoflop::app {
namespace {

namespace fs = std::filesystem;

// A resume of a finished run: its results.json stands and is printed as it is.
int report_finished(const CommonOptions& common, const doc::TrainDocument& d) {
  spdlog::info("the run in {} finished already ({} of {} steps); nothing to do, its results are kept", d.inputs.output,
               d.result.steps, d.result.steps_total);
  const doc::SourceDocument stored = doc::read_document(d.results_file);
  doc::require_kind(stored, {"train"});
  const auto kept = doc::decode<doc::TrainDocument>(stored);
  write_document(common, stored.json, [&] { return doc::render_train(kept); }, "curve");
  return 0;
}

}  // namespace

int run_train(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("train"), args, {declared_options("train")}, {"job"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto job_file = get_string(vm, "job");
  if (get_switch(vm, "example")) {
    if (job_file) throw InputError("train: --example prints a job; give it without JOB.yaml");
    std::fputs(train::example_job_text().c_str(), stdout);
    return 0;
  }
  if (!job_file) throw InputError("train: missing JOB.yaml (isoflop train --example prints one); see 'isoflop help train'");
  // Before anything is read or written: the CPU backend's GEMMs run 2-3x faster on the kernels the CPU has.
  train::reexec_with_detected_blas_core("train", args);
  doc::TrainDocument d;
  d.inputs = train::load_job(*job_file);
  d.resume = get_switch(vm, "resume");
  if (auto out = get_string(vm, "output")) d.inputs.set_output(*out);
  if (auto t = get_int(vm, "threads", units::Sign::kNonNegative, train::kMaxThreads)) d.inputs.threads = *t;
  d.results_file = (fs::path(d.inputs.output) / "results.json").string();
  d.curve_file = get_string(vm, "curve").value_or((fs::path(d.inputs.output) / "loss_curve.csv").string());
  const auto plot = get_string(vm, "plot");
  const catalog::Catalog catalog = load_catalog(parsed->common);
  train::RunOptions run;
  run.resume = d.resume;
  run.allow_changes = get_switch(vm, "allow-changes");
  if (run.allow_changes && !run.resume) throw InputError("--allow-changes: only with --resume");
  if (auto m = get_string(vm, "max-memory")) run.max_memory_bytes = units::parse_bytes(*m, "--max-memory");
  run.catalog = &catalog;
  // Every file the run writes is checked before the first step; the folder is held until the last is written.
  const OutputRules owned{true, ""}, user = output_rules(parsed->common);
  std::vector<train::RunOutput> outputs = {{d.results_file, "output", owned},
                                           {d.curve_file, has(vm, "curve") ? "--curve" : "output", has(vm, "curve") ? user : owned}};
  if (plot) outputs.push_back({*plot, "--plot", user});
  train::RunFolder folder(d.inputs, outputs);
  run.folder = &folder;
  if (!parsed->common.quiet)
    run.on_progress = doc::train_progress_printer(::isatty(STDERR_FILENO) != 0,
                                                  [](const std::string& line) { spdlog::info("{}", line); });
  run.on_note = [](const std::string& text) { spdlog::info("{}", text); };
  int stop_signal = 0;
  {
    train::StopSignals signals;
    run.stop = signals.flag();
    d.result = train::run_training(d.inputs, run);
    stop_signal = signals.signal();
  }
  if (d.result.already_finished && fs::exists(d.results_file)) return report_finished(parsed->common, d);
  const doc::Json json = d;
  if (has(vm, "curve")) write_output_file(parsed->common, d.curve_file, train::curve_csv(d.result.curve), "--curve");
  else write_file_atomically(d.curve_file, train::curve_csv(d.result.curve), "--curve");
  write_file_atomically(d.results_file, report::to_json_text(json), "output");
  if (plot) write_output_file(parsed->common, *plot, doc::render_train_figure(d), "--plot");
  if (d.result.interrupted)
    spdlog::warn("interrupted after step {} of {}; checkpoint saved to {}; continue with: isoflop train {} --resume",
                 d.result.steps, d.result.steps_total, d.result.checkpoint_path, *job_file);
  write_document(parsed->common, json, [&] { return doc::render_train(d); }, "curve");
  if (d.result.interrupted) return 128 + (stop_signal ? stop_signal : SIGINT);
  return 0;
}

}  // namespace isoflop::app
