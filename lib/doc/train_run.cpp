// A training run from its job file to the files it leaves.
#include "doc/train_run.hpp"

#include <filesystem>

#include "core/atomic_file.hpp"
#include "doc/document.hpp"
#include "report/output.hpp"
#include "train/run_folder.hpp"

namespace isoflop::doc {

namespace fs = std::filesystem;

TrainRun run_train_job(const TrainRequest& request, train::RunOptions options) {
  TrainRun run;
  TrainDocument& d = run.document;
  d.inputs = train::load_job(request.job_file);
  d.resume = options.resume;
  if (request.output) d.inputs.set_output(*request.output);
  if (request.threads) d.inputs.threads = *request.threads;
  d.results_file = (fs::path(d.inputs.output) / "results.json").string();
  d.curve_file = request.curve.value_or((fs::path(d.inputs.output) / "loss_curve.csv").string());
  const OutputRules own{true, ""};
  const NamedOutputs& named = request.outputs;
  std::vector<train::RunOutput> outputs = {{d.results_file, "output", own}, {d.curve_file, "output", own}};
  if (request.curve) outputs.back() = {d.curve_file, spelled(named.spell, "curve"), named.rules};
  if (request.plot) outputs.push_back({*request.plot, spelled(named.spell, "plot"), named.rules});
  train::RunFolder folder(d.inputs, outputs);
  options.folder = &folder;
  d.result = train::run_training(d.inputs, options);
  if (d.result.already_finished && fs::exists(d.results_file)) {
    if (options.on_note)
      options.on_note("the run in " + d.inputs.output + " finished already (" + std::to_string(d.result.steps) +
                      " of " + std::to_string(d.result.steps_total) + " steps); nothing to do, its results are kept");
    const SourceDocument stored = read_document(d.results_file);
    require_kind(stored, {"train"});
    return {decode<TrainDocument>(stored), stored.json, true};
  }
  run.json = d;
  const std::string csv = train::curve_csv(d.result.curve);
  if (request.curve)
    named.write(d.curve_file, csv, "curve");
  else
    write_file_atomically(d.curve_file, csv, spelled(named.spell, "curve"));
  write_file_atomically(d.results_file, report::to_json_text(run.json), "output");
  if (request.plot) named.write(*request.plot, render_train_figure(d), "plot");
  return run;
}

}  // namespace isoflop::doc
