// isoflop train JOB.yaml: run a tiny GPT training job on the CPU or a CUDA GPU, with a progress bar,
// checkpoints, Ctrl-C to stop and --resume to continue, and a results document plus a loss curve.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "doc/train_run.hpp"
#include "emit/shell.hpp"
#include "train/cpu/blas_core.hpp"
#include "train/stop_signals.hpp"

namespace isoflop::app {
namespace {

// The command that continues an interrupted run: the same job, output folder, threads and memory limit, and the
// curve and figure this session wrote (which the resumed run replaces as its own while they are unchanged).
std::string resume_command(const std::string& job_file, const doc::TrainRequest& request,
                           const std::optional<std::string>& max_memory) {
  std::string command = "isoflop train " + emit::shell_quote(job_file);
  if (request.output) command += " --output " + emit::shell_quote(*request.output);
  if (request.threads) command += " --threads " + std::to_string(*request.threads);
  if (max_memory) command += " --max-memory " + emit::shell_quote(*max_memory);
  if (request.curve) command += " --curve " + emit::shell_quote(*request.curve);
  if (request.plot) command += " --plot " + emit::shell_quote(*request.plot);
  return command + " --resume";
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
  const doc::TrainRequest request{.job_file = *job_file,
                                  .output = get_string(vm, "output"),
                                  .threads = get_int(vm, "threads", units::Sign::kNonNegative, train::kMaxThreads),
                                  .curve = get_string(vm, "curve"),
                                  .plot = get_plot_path(vm),
                                  .outputs = named_outputs(parsed->common)};
  const catalog::Catalog catalog = load_catalog(parsed->common);
  train::RunOptions run;
  run.resume = get_switch(vm, "resume");
  run.allow_changes = get_switch(vm, "allow-changes");
  if (run.allow_changes && !run.resume) throw InputError("--allow-changes: only with --resume");
  if (auto m = get_string(vm, "max-memory")) run.max_memory_bytes = units::parse_bytes(*m, "--max-memory");
  run.catalog = &catalog;
  if (!parsed->common.quiet)
    run.on_progress = doc::train_progress_printer(::isatty(STDERR_FILENO) != 0,
                                                  [](const std::string& line) { spdlog::info("{}", line); });
  run.on_note = [](const std::string& text) { spdlog::info("{}", text); };
  int stop_signal = 0;
  doc::TrainRun r;
  {
    train::StopSignals signals;
    run.stop = signals.flag();
    r = doc::run_train_job(request, run);
    stop_signal = signals.signal();
  }
  const train::TrainResult& result = r.document.result;
  if (result.interrupted && !r.finished_before)
    spdlog::warn("interrupted after step {} of {}; checkpoint saved to {}; continue with: {}", result.steps,
                 result.steps_total, result.checkpoint_path,
                 resume_command(*job_file, request, get_string(vm, "max-memory")));
  write_document(parsed->common, r.json, [&] { return doc::render_train(r.document); }, "curve");
  if (result.interrupted && !r.finished_before) return 128 + (stop_signal ? stop_signal : SIGINT);
  return 0;
}

}  // namespace isoflop::app
