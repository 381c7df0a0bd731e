// isoflop calibrate RUNS.yaml: fit an accelerator's step-time efficiency constants to measured runs and
// save them as a catalog overlay.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/output_path.hpp"
#include "doc/calibration_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "calibrate",
    "isoflop calibrate RUNS.yaml [--gpu NAME] [--save-calibration FILE.yaml [--force]] [options]",
    "Fits the step-time model's efficiency constants (GEMM efficiency max, half width, half rows; collective\n"
    "bandwidth efficiency) of each accelerator named in RUNS.yaml so that the model reproduces the runs'\n"
    "measured step times (least squares in log space, starting from the catalog's constants). Each run gives a\n"
    "model (a catalog name or its fields), the GPUs, global batch, layout and one measured value: step_time_s,\n"
    "tokens_per_s_per_gpu, model_tflops_per_gpu, hardware_tflops_per_gpu or mfu. Runs marked held_out: true\n"
    "are not fitted; their errors judge the fit. --save-calibration writes a catalog overlay; put it in a folder\n"
    "and pass --catalog DIR to layout and plan. The published runs are in data/calibration/published_runs.yaml.",
    {"isoflop calibrate my-runs.yaml                                 # constants and per-run errors",
     "isoflop calibrate my-runs.yaml --save-calibration cal/h100.yaml",
     "isoflop layout --catalog cal --arch llama2-70b --gpu h100-sxm5-80gb --gpus 64 --global-batch 512",
     "isoflop calibrate data/calibration/published_runs.yaml --gpu h100-sxm5-80gb -o json"}};

}  // namespace

int run_calibrate(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {{
      "runs RUNS.yaml: the measured runs (positional; - reads stdin)",
      "gpu NAME: calibrate only this accelerator",
      "save-calibration FILE.yaml: write the constants as a catalog overlay"}}, {"runs"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const std::string file = get_string(vm, "runs").value_or("");
  if (file.empty()) throw InputError("calibrate: missing RUNS.yaml; see 'isoflop help calibrate'");
  const auto save = get_string(vm, "save-calibration");
  note_input(file);
  if (save) check_output_file(parsed->common, *save, "--save-calibration");
  const catalog::Catalog catalog = load_catalog(parsed->common);
  const auto runs = catalog::parse_measured_runs(read_input_text(file), input_name(file), catalog);
  const auto gpu = get_string(vm, "gpu");
  doc::CalibrationDocument document{input_name(file), gpu, parallel::calibrate_runs(catalog, runs, gpu)};
  if (save) write_output_file(parsed->common, *save, doc::calibration_overlay_yaml(document), "--save-calibration");
  write_document(parsed->common, doc::calibration_json(document), [&] { return doc::render_calibration(document); });
  return 0;
}

}  // namespace isoflop::app
