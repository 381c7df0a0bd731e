// A training run from its job file to the files it leaves.
#include "doc/train_run.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "core/atomic_file.hpp"
#include "core/output_path.hpp"
#include "doc/document.hpp"
#include "report/output.hpp"
#include "train/run_folder.hpp"

namespace isoflop::doc {

namespace fs = std::filesystem;

namespace {

// On resuming, the curve and the figure an earlier session of this run wrote are the run's own: a named file
// whose bytes are what the stored results.json renders is replaced without --force (anything else, or a file
// edited since, still needs it). A results.json that cannot be read disowns nothing.
struct OwnFiles {
  std::string curve_csv, figure_svg;
};
std::optional<OwnFiles> stored_files(const std::string& results_file) {
  std::error_code ec;
  if (!fs::is_regular_file(results_file, ec)) return std::nullopt;
  try {
    const SourceDocument stored = read_document(results_file);
    require_kind(stored, {"train"});
    forget_input(results_file);  // read to compare, and replaced by this run as ever
    const TrainDocument d = decode<TrainDocument>(stored);
    return OwnFiles{train::curve_csv(d.result.curve), render_train_figure(d)};
  } catch (const InputError&) {
    return std::nullopt;
  }
}
bool holds(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) != bytes.size()) return false;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text == bytes;
}

}  // namespace

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
  NamedOutputs curve_named = named, plot_named = named;
  if (options.resume && (request.curve || request.plot))
    if (const auto earlier = stored_files(d.results_file)) {
      // The run's own files are replaced; another file there is named as not the run's.
      const auto own_or_not = [](const std::string& path, const std::string& bytes, NamedOutputs& named) {
        if (holds(path, bytes))
          named.rules.replace = true;
        else
          named.rules.replace_hint = "it is not what this run wrote last (edited since?); " + named.rules.replace_hint;
      };
      if (request.curve) own_or_not(*request.curve, earlier->curve_csv, curve_named);
      if (request.plot) own_or_not(*request.plot, earlier->figure_svg, plot_named);
    }
  std::vector<train::RunOutput> outputs = {{d.results_file, "output", own}, {d.curve_file, "output", own}};
  if (request.curve) outputs.back() = {d.curve_file, spelled(named.spell, "curve"), curve_named.rules};
  if (request.plot) outputs.push_back({*request.plot, spelled(named.spell, "plot"), plot_named.rules});
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
    curve_named.write(d.curve_file, csv, "curve");
  else
    write_file_atomically(d.curve_file, csv, spelled(named.spell, "curve"));
  write_file_atomically(d.results_file, report::to_json_text(run.json), "output");
  if (request.plot) plot_named.write(*request.plot, render_train_figure(d), "plot");
  return run;
}

}  // namespace isoflop::doc
