// The sweep document: JSON of a designed IsoFLOP sweep, and its page.
#include "doc/sweep_document.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "doc/train_document.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

using O = SweepOrigin;
using P = catalog::ParametricLaw;
constexpr auto kParametric = std::tuple{field("E", &P::E), field("A", &P::A), field("B", &P::B),
                                        field("alpha", &P::alpha), field("beta", &P::beta),
                                        unless_usual("gamma", &P::gamma, 1.0)};

constexpr auto kOrigin =
    std::tuple{field("plan_file", &O::plan_file, null_when_empty()),
               field("law", &O::law),
               custom(
                   "law_parameters",
                   [](const O& o) {
                     Json j = nullptr;
                     if (o.parametric) write_fields(j, *o.parametric, kParametric);
                     return j;
                   },
                   [](const Json& v, O& o) {
                     if (!v.is_null()) read_fields(v, o.parametric.emplace(), kParametric);
                   }),
               field("law_flags", &O::law_flags),
               field("law_exponent_a", &O::law_exponent_a),
               field("law_exponent_b", &O::law_exponent_b),
               field("full_budget_flops", &O::full_budget_flops),
               field("n_opt", &O::n_opt, count()),
               field("d_opt", &O::d_opt, count()),
               derived("tokens_per_param", [](const O& o) { return o.n_opt > 0 ? o.d_opt / o.n_opt : 0.0; }),
               field("family", &O::family),
               field("accelerator", &O::accelerator, null_when_empty())};

using R = SweepRules;
using F = LrFormula;
constexpr auto kRules = std::tuple{field("lr_rule", &R::lr_rule),
                                   via(&R::lr,
                                       // A sweep emitted before the rule had a form (2026-12-05) is log_linear.
                                       added_later(field("lr_form", &F::form, names(kLrFormNames))),
                                       field("lr_intercept", &F::intercept), field("lr_log_slope", &F::log_slope),
                                       added_later(field("lr_scale", &F::scale),
                                                   field("lr_params_exponent", &F::params_exponent),
                                                   field("lr_tokens_exponent", &F::tokens_exponent))),
                                   field("warmup_fraction", &R::warmup_fraction),
                                   field("schedule", &R::schedule),
                                   field("min_lr_fraction", &R::min_lr_fraction),
                                   field("batch", &R::batch),
                                   field("seq", &R::seq),
                                   field("vocab", &R::vocab),
                                   field("eval_tokens", &R::eval_tokens, count())};

using M = train::ModelConfig;
using Run = SweepRun;
constexpr auto kRun =
    std::tuple{field("id", &Run::id),
               field("budget", &Run::budget),
               field("flops", &Run::flops),
               field("target_params", &Run::target_params, count()),
               field("params", &Run::params, count()),
               field("non_embedding_params", &Run::non_embedding_params, count()),
               field("tokens", &Run::tokens, count()),
               derived("tokens_per_param", [](const Run& r) { return r.params > 0 ? r.tokens / r.params : 0.0; }),
               group("shape", via(&Run::shape, field("layers", &M::layers), field("d_model", &M::d_model),
                                  field("heads", &M::heads), field("seq", &M::seq), field("vocab", &M::vocab))),
               field("lr", &Run::lr),
               field("warmup_tokens", &Run::warmup_tokens, count()),
               field("steps", &Run::steps),
               field("job", &Run::job),
               field("folder", &Run::folder)};

using D = SweepDocument;

// What a hand-edited sweep.json may no longer say: the report groups runs by budget and compares with the
// plan's N_opt at its full budget, so each must be a real budget, size and run.
void check_sweep(const Json& j, const D& d) {
  auto positive = [](double v) { return v > 0 && std::isfinite(v); };
  const Json& origin = j.at("origin");
  if (!positive(d.origin.full_budget_flops))
    fail_at(origin.at("full_budget_flops"), "must be a positive number of FLOPs");
  if (!positive(d.origin.n_opt)) fail_at(origin.at("n_opt"), "must be a positive number of parameters");
  if (d.budgets.empty()) fail_at(j.at("budgets"), "must list at least one budget");
  for (size_t b = 0; b < d.budgets.size(); ++b)
    if (!positive(d.budgets[b].flops)) fail_at(j.at("budgets")[b].at("flops"), "must be a positive number of FLOPs");
  std::set<std::string> ids;
  for (size_t i = 0; i < d.runs.size(); ++i) {
    const SweepRun& r = d.runs[i];
    const Json& at = j.at("runs")[i];
    if (!ids.insert(r.id).second) fail_at(at.at("id"), "'" + r.id + "' names another run too");
    if (r.budget < 0 || static_cast<size_t>(r.budget) >= d.budgets.size())
      fail_at(at.at("budget"), std::to_string(r.budget) + " is not one of the " + std::to_string(d.budgets.size()) +
                                   " budgets (0 to " + std::to_string(d.budgets.size() - 1) + ")");
    if (!positive(r.flops)) fail_at(at.at("flops"), "must be a positive number of FLOPs");
    if (!positive(r.params)) fail_at(at.at("params"), "must be a positive number of parameters");
    if (!positive(r.tokens)) fail_at(at.at("tokens"), "must be a positive number of tokens");
  }
}

constexpr auto kSweep =
    std::tuple{schema_key("sweep"),
               field("origin", &D::origin, as(kOrigin)),
               field("preset", &D::preset),
               field("backend", &D::backend, names(train::kBackendKindNames)),
               field("peak_device", &D::peak_device, null_when_empty()),
               field("threads", &D::threads),
               derived("flops_convention",
                       [](const D&) {
                         return Json{{"name", "6nd"}, {"statement", kSweepFlopsStatement}};
                       }),
               group("source",
                     custom(
                         "name", [](const D& d) { return enum_json(d.data.source, train::kDataSourceNames); },
                         [](const Json&, D&) {}),
                     field("seed", &D::source_seed),
                     custom(
                         "parameters", [](const D& d) { return data_config_json(d.data); },
                         [](const Json& v, D& d) { read_data_config(v, d.data); })),
               field("rules", &D::rules, as(kRules)),
               field("total_flops", &D::total_flops),
               field("sizes_per_budget", &D::sizes_per_budget),
               field("budgets", &D::budgets),
               field("runs", &D::runs, as(kRun)),
               on_read(check_sweep)};

std::string count_text(double v) { return units::format_count(v); }

}  // namespace

double LrFormula::peak_lr(double non_embedding_params, double tokens) const {
  const double n = std::max(non_embedding_params, 1.0);
  if (form == LrForm::kLogLinear) return intercept + log_slope * std::log(n);
  return scale * std::pow(n, params_exponent) * std::pow(std::max(tokens, 1.0), tokens_exponent);
}

void to_json(Json& j, const SweepDocument& d) { write_fields(j, d, kSweep); }
void from_json(const Json& j, SweepDocument& d) { read_fields(j, d, kSweep); }
void to_json(Json& j, const SweepRun& r) { write_fields(j, r, kRun); }
void from_json(const Json& j, SweepRun& r) { read_fields(j, r, kRun); }

std::string render_sweep(const SweepDocument& d) {
  const auto& o = d.origin;
  std::string out = "IsoFLOP sweep (" + d.preset + "): " + std::to_string(d.budgets.size()) + " budgets x " +
                    std::to_string(d.sizes_per_budget) + " sizes, " + units::format_scientific(d.total_flops) +
                    " FLOPs in all (" + kSweepFlopsStatement + ")\n";
  out += "checks: law " + o.law + " (a = " + units::format_significant(o.law_exponent_a) + ", N_opt " +
         count_text(o.n_opt) + ", D_opt " + count_text(o.d_opt) + " at " +
         units::format_scientific(o.full_budget_flops) + " FLOPs), family " + o.family + "\n";
  out += "rules: " + d.rules.lr_rule + "; warm-up " + units::format_significant(100 * d.rules.warmup_fraction) +
         "% of D; " + d.rules.schedule + " to " + units::format_significant(d.rules.min_lr_fraction) + " of the peak\n";
  report::TextTable table({"run", "budget", "N", "D", "D/N", "layers", "d_model", "heads", "lr", "job"});
  for (const auto& r : d.runs)
    table.add_row({r.id, units::format_scientific(r.flops), count_text(r.params), count_text(r.tokens),
                   units::format_significant(r.tokens / r.params), std::to_string(r.shape.layers),
                   std::to_string(r.shape.d_model), std::to_string(r.shape.heads), units::format_significant(r.lr),
                   r.job});
  return out + table.render();
}

}  // namespace isoflop::doc
