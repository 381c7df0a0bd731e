// The validation document: reading a sweep folder back, its JSON, and the calibration overlay.
#include "validate/report_document.hpp"

#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "doc/calibration_document.hpp"
#include "doc/fit_json.hpp"
#include "doc/sweep_document.hpp"
#include "doc/train_document.hpp"
#include "train/trainer.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "validate/report_speed.hpp"
#include "validate/run_state.hpp"
#include "validate/sweep_folder.hpp"

namespace isoflop::doc {

inline constexpr EnumNames<validate::Measure, 3> kMeasureNames{{{{validate::Measure::kAbsolute, "absolute"},
                                                                {validate::Measure::kRelative, "relative"},
                                                                {validate::Measure::kFactor, "factor"}}}};

template <>
inline constexpr auto fields<validate::Comparison> = std::tuple{
    field("name", &validate::Comparison::name), field("what", &validate::Comparison::what),
    field("expected", &validate::Comparison::expected), field("measured", &validate::Comparison::measured),
    field("measure", &validate::Comparison::measure, names(kMeasureNames)),
    field("distance", &validate::Comparison::distance), field("tolerance", &validate::Comparison::tolerance),
    field("within", &validate::Comparison::within)};

template <>
inline constexpr auto fields<validate::SpeedRow> = std::tuple{
    field("id", &validate::SpeedRow::id), field("params", &validate::SpeedRow::params, count()),
    field("measured_tokens_per_s", &validate::SpeedRow::measured_tokens_per_s),
    field("predicted_tokens_per_s", &validate::SpeedRow::predicted_tokens_per_s),
    field("measured_mfu", &validate::SpeedRow::measured_mfu), field("predicted_mfu", &validate::SpeedRow::predicted_mfu),
    field("error", &validate::SpeedRow::error),
    added_later(field("constants", &validate::SpeedRow::constants))};

template <>
inline constexpr auto fields<validate::InteractionFit> = std::tuple{
    field("law", &validate::InteractionFit::law), field("intervals", &validate::InteractionFit::intervals),
    field("bootstrap_failed", &validate::InteractionFit::bootstrap_failed),
    field("a_difference", &validate::InteractionFit::a_difference),
    field("choice", &validate::InteractionFit::choice),
    added_later(field("choice_same_in_resamples", &validate::InteractionFit::choice_same_in_resamples))};

namespace {

namespace fs = std::filesystem;
using validate::ReportRun;

using T = validate::Tolerances;
constexpr auto kTolerances =
    std::tuple{field("a", &T::exponent_a), field("tokens_per_param", &T::tokens_per_param),
               field("params", &T::params_at_plan), field("floor", &T::floor), field("speed", &T::speed)};

using I = ValidationInputs;
constexpr auto kInputs = std::tuple{field("sweep_dir", &I::sweep_dir), field("tolerances", &I::tolerances, as(kTolerances)),
                                    field("bootstrap_resamples", &I::bootstrap_resamples), field("seed", &I::seed),
                                    field("grid", &I::grid),
                                    field("cpu_memory_bandwidth_bytes_per_s", &I::cpu_memory_bandwidth_bytes_per_s)};

using P = validate::PlanReference;
constexpr auto kPlan = std::tuple{field("law", &P::law), field("a", &P::a), field("budget_flops", &P::budget_flops),
                                  field("params_opt", &P::params_opt, count())};

using A = model::Architecture;
constexpr auto kRun = std::tuple{
    field("id", &ReportRun::id), field("budget", &ReportRun::budget), field("budget_flops", &ReportRun::budget_flops),
    custom(
        "status", [](const ReportRun& r) { return Json(r.finished ? "finished" : "failed"); },
        [](const Json& v, ReportRun& r) { r.finished = v.is_string() && v.get<std::string>() == "finished"; }),
    field("failure", &ReportRun::failure, null_when_empty()), field("params", &ReportRun::params, count()),
    // A run that did not finish has no loss, and one that timed no step no speed: null, never 0.
    field("tokens", &ReportRun::tokens, count()), field("loss", &ReportRun::loss, null_when(0.0)),
    field("floor", &ReportRun::floor), field("floor_se", &ReportRun::floor_se),
    field("tokens_per_s", &ReportRun::tokens_per_s, null_when(0.0)), field("mfu", &ReportRun::mfu),
    field("peak_flops", &ReportRun::peak_flops), field("device", &ReportRun::device),
    field("accelerator", &ReportRun::accelerator, null_when_empty()), field("batch", &ReportRun::batch),
    group("shape", via(&ReportRun::architecture, field("layers", &A::layers), field("d_model", &A::d_model),
                       field("heads", &A::heads), field("seq", &A::seq), field("vocab", &A::vocab)))};

using R = validate::ValidationReport;
constexpr auto kReport = std::tuple{
    field("runs", &R::runs), field("finished", &R::finished), field("failed", &R::failed),
    field("failures", &R::failures), field("approach2", &R::approach2),
    field("approach2_error", &R::approach2_error, null_when_empty()),
    field("approach2_intervals", &R::approach2_intervals), field("bootstrap_resamples", &R::bootstrap_resamples),
    field("bootstrap_failed", &R::bootstrap_failed), field("budgets_outside", &R::budgets_outside),
    field("approach3", &R::approach3),
    added_later(field("approach3_intervals", &R::approach3_intervals),
                field("approach3_bootstrap_failed", &R::approach3_bootstrap_failed),
                field("a_difference", &R::a_difference)),
    field("approach3_note", &R::approach3_note, null_when_empty()),
    added_later(field("interaction", &R::interaction),
                field("interaction_note", &R::interaction_note, null_when_empty())),
    field("floor", &R::floor), field("floor_se", &R::floor_se), field("comparisons", &R::comparisons),
    field("speed", &R::speed)};

using D = ValidationDocument;
constexpr auto kDocument = std::tuple{
    schema_key("validation"), field("inputs", &D::inputs, as(kInputs)), field("plan", &D::plan, as(kPlan)),
    field("preset", &D::preset), field("source", &D::source), field("runs", &D::runs, as(kRun)),
    field("fit", &D::report, as(kReport)), field("calibration_file", &D::calibration_file),
    field("figure_file", &D::figure_file),
    custom(
        "verdict", [](const D& d) { return Json(d.report.passed ? "pass" : "fail"); },
        [](const Json& v, D& d) { d.report.passed = v.is_string() && v.get<std::string>() == "pass"; })};

// The run as its folder left it: finished (a result document with a validation loss) or failed, and why.
ReportRun read_run(const std::string& dir, const SweepDocument& sweep, const SweepRun& planned) {
  ReportRun r;
  r.id = planned.id;
  r.budget = planned.budget;
  r.budget_flops = planned.flops;
  r.params = planned.params;
  r.tokens = planned.tokens;
  r.architecture = train::architecture_of(planned.shape);
  r.batch = sweep.rules.batch;
  const fs::path results = fs::path(dir) / planned.folder / "results.json";
  std::error_code ec;
  if (!fs::is_regular_file(results, ec)) {  // the runner's record says why
    const validate::RunStatus status = validate::run_status(dir, planned);
    switch (status.state) {
      case validate::RunState::kFailed: r.failure = "failed: " + status.message; break;
      case validate::RunState::kInterrupted: r.failure = "interrupted: validate run resumes it"; break;
      default: r.failure = "no results.json in " + planned.folder + " (not run yet)"; break;
    }
    return r;
  }
  const SourceDocument source = read_document(results.string());
  require_kind(source, {"train"});
  const TrainDocument t = decode<TrainDocument>(source);
  if (!(t.inputs.model == planned.shape))
    throw InputError(source.source + ": the run's model (" + train::describe(t.inputs.model) +
                     ") is not the sweep's run " + planned.id + " (" + train::describe(planned.shape) +
                     "); this folder holds another sweep");
  const train::TrainResult& res = t.result;
  // Values no training run writes: the file was edited or damaged, and a fit of them would mislead.
  auto damaged = [&](const std::string& field, const std::string& why) {
    return InputError(source.source + ": " + field + ": " + why + "; results.json is damaged (delete " +
                      (fs::path(dir) / planned.folder).string() + " and 'validate run' trains the run again)");
  };
  if (!(std::fabs(res.params / planned.params - 1) < 1e-9))
    throw damaged("params", units::format_significant(res.params, 6) + " is not the " +
                                units::format_significant(planned.params, 6) + " of the sweep's run " + planned.id);
  if (!(res.tokens >= 0 && res.tokens <= units::kMaxTrainingTokens))
    throw damaged("tokens", units::format_significant(res.tokens, 6) + " is not a token count");
  if (res.eval_loss && !(*res.eval_loss >= 0 && std::isfinite(*res.eval_loss)))
    throw damaged("eval_loss",
                  units::format_significant(*res.eval_loss, 6) + " is not a loss (a number of nats, not negative)");
  if (!(res.tokens_per_s >= 0 && std::isfinite(res.tokens_per_s)))
    throw damaged("tokens_per_s", units::format_significant(res.tokens_per_s, 6) + " is not a throughput");
  r.params = res.params;
  r.tokens = res.tokens;
  r.floor = res.val_floor;
  r.floor_se = res.val_floor_stderr;
  r.tokens_per_s = res.tokens_per_s;
  r.mfu = res.mfu;
  r.peak_flops = res.peak_flops;
  r.device = res.device;
  r.accelerator = res.backend == train::BackendKind::kCpu ? validate::kCpuAccelerator : res.accelerator;
  r.batch = t.inputs.train.batch;
  if (res.interrupted || res.steps < res.steps_total) {
    // The row keeps the run's design (its planned D) and no speed: the steps so far are in the reason.
    r.failure = "interrupted at step " + std::to_string(res.steps) + " of " + std::to_string(res.steps_total) +
                " (validate run resumes it)";
    r.tokens = planned.tokens;
    r.tokens_per_s = 0;
    r.mfu.reset();
  } else if (!res.eval_loss) {
    r.failure = "no validation loss in results.json";
  } else {
    r.loss = *res.eval_loss;
    r.finished = true;
  }
  return r;
}

}  // namespace

void to_json(Json& j, const ValidationDocument& d) { write_fields(j, d, kDocument); }
void from_json(const Json& j, ValidationDocument& d) { read_fields(j, d, kDocument); }

ValidationDocument validation_document(const ValidationInputs& inputs, const catalog::Catalog& catalog) {
  const SweepDocument sweep = validate::read_sweep_folder(inputs.sweep_dir);
  ValidationDocument d;
  d.inputs = inputs;
  d.preset = sweep.preset;
  d.source = std::string(train::kDataSourceNames.name(sweep.data.source));
  const SweepOrigin& o = sweep.origin;
  d.plan = {o.law, o.law_exponent_a, o.full_budget_flops, o.n_opt, {}};
  for (const auto& b : sweep.budgets) d.plan.law_params_opt[b.flops] = b.law_n_opt;
  for (const auto& planned : sweep.runs) {
    d.runs.push_back(read_run(inputs.sweep_dir, sweep, planned));
    d.runs.back().index = static_cast<int>(d.runs.size());
  }
  validate::ReportOptions options;
  options.tolerances = inputs.tolerances;
  options.bootstrap_resamples = inputs.bootstrap_resamples;
  options.seed = inputs.seed;
  options.grid = fit::parse_grid(inputs.grid, "grid");
  const auto devices = validate::speed_accelerators(d.runs, catalog, inputs.cpu_memory_bandwidth_bytes_per_s);
  d.report = validate::build_report(d.runs, d.plan, devices, options);
  return d;
}

std::string validation_calibration_yaml(const ValidationDocument& d, const catalog::Catalog& catalog) {
  // Every device the runs used, the CPU included: its entry (`cpu`, the measured peak, the memory bandwidth and the
  // fitted constants) is what a later `validate report --catalog DIR` predicts CPU runs with.
  const auto devices = validate::speed_accelerators(d.runs, catalog, d.inputs.cpu_memory_bandwidth_bytes_per_s);
  CalibrationDocument c{d.inputs.sweep_dir, std::nullopt, validate::calibrate_speed(d.runs, devices, catalog)};
  return calibration_overlay_yaml(c);
}

}  // namespace isoflop::doc
