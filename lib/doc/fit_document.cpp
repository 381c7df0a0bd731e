// The `fit` document: running the fits, the JSON, and the saved law.
#include "doc/fit_document.hpp"

#include <cmath>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "fit/law_yaml.hpp"
#include "units/format.hpp"

namespace isoflop::fit {

using doc::Json;
using doc::or_null;
using doc::read;

void to_json(Json& j, const FitRequest& r) {
  j = Json{{"runs_file", r.runs_file},
           {"curves_file", or_null(r.curves_file)},
           {"columns", {{"params", r.columns.params}, {"tokens", r.columns.tokens}, {"flops", r.columns.flops},
                        {"loss", r.columns.loss}, {"run", r.columns.run}}},
           {"approaches", r.approaches},
           {"drop_highest_loss", r.selection.drop_highest_loss},
           {"min_flops", or_null(r.selection.min_flops)},
           {"max_flops", or_null(r.selection.max_flops)},
           {"huber_delta", r.huber_delta},
           {"reduce", doc::enum_json(r.reduce, kReduceNames)},
           {"grid", r.grid},
           {"ftol", r.ftol},
           {"gtol", r.gtol},
           {"budget_tolerance", r.budget_tolerance},
           {"a1_points", r.a1_points},
           {"bootstrap", r.bootstrap},
           {"seed", or_null(r.seed)},
           {"save_law", or_null(r.save_law)},
           {"plot", or_null(r.plot)}};
}
void from_json(const Json& j, FitRequest& r) {
  read(j, "runs_file", r.runs_file);
  read(j, "curves_file", r.curves_file);
  const Json& c = j.at("columns");
  read(c, "params", r.columns.params);
  read(c, "tokens", r.columns.tokens);
  read(c, "flops", r.columns.flops);
  read(c, "loss", r.columns.loss);
  read(c, "run", r.columns.run);
  read(j, "approaches", r.approaches);
  read(j, "drop_highest_loss", r.selection.drop_highest_loss);
  read(j, "min_flops", r.selection.min_flops);
  read(j, "max_flops", r.selection.max_flops);
  read(j, "huber_delta", r.huber_delta);
  doc::read_enum(j, "reduce", kReduceNames, r.reduce);
  read(j, "grid", r.grid);
  read(j, "ftol", r.ftol);
  read(j, "gtol", r.gtol);
  read(j, "budget_tolerance", r.budget_tolerance);
  read(j, "a1_points", r.a1_points);
  read(j, "bootstrap", r.bootstrap);
  read(j, "seed", r.seed);
  read(j, "save_law", r.save_law);
  read(j, "plot", r.plot);
}

void to_json(Json& j, const Run& r) {
  j = Json{{"params", r.params}, {"tokens", r.tokens}, {"flops", r.flops}, {"loss", r.loss}, {"line", r.line}};
}
void from_json(const Json& j, Run& r) {
  read(j, "params", r.params);
  read(j, "tokens", r.tokens);
  read(j, "flops", r.flops);
  read(j, "loss", r.loss);
  read(j, "line", r.line);
}

void to_json(Json& j, const Approach3Result& r) {
  j = Json{{"A", r.A}, {"B", r.B}, {"E", r.E}, {"alpha", r.alpha}, {"beta", r.beta}, {"objective", r.objective},
           {"a", r.a}, {"b", r.b}, {"G", r.G}, {"starts", r.starts}, {"starts_in_best_basin", r.starts_in_best_basin},
           {"starts_failed", r.starts_failed}, {"evaluations", r.evaluations}, {"runs", r.runs}};
}
void from_json(const Json& j, Approach3Result& r) {
  read(j, "A", r.A);
  read(j, "B", r.B);
  read(j, "E", r.E);
  read(j, "alpha", r.alpha);
  read(j, "beta", r.beta);
  read(j, "objective", r.objective);
  read(j, "a", r.a);
  read(j, "b", r.b);
  read(j, "G", r.G);
  read(j, "starts", r.starts);
  read(j, "starts_in_best_basin", r.starts_in_best_basin);
  read(j, "starts_failed", r.starts_failed);
  read(j, "evaluations", r.evaluations);
  read(j, "runs", r.runs);
  r.x = {std::log(r.A), std::log(r.B), std::log(r.E), r.alpha, r.beta};
}

void to_json(Json& j, const BudgetFit& b) {
  j = Json{{"flops", b.flops}, {"runs", b.runs}, {"params_opt", b.params_opt}, {"tokens_opt", b.tokens_opt},
           {"loss_opt", b.loss_opt}, {"min_params", b.min_params}, {"max_params", b.max_params},
           {"extrapolated", b.extrapolated},
           {"parabola", {{"c0", b.c0}, {"c1", b.c1}, {"c2", b.c2}, {"x_center", b.x_center}}}};
}
void from_json(const Json& j, BudgetFit& b) {
  read(j, "flops", b.flops);
  read(j, "runs", b.runs);
  read(j, "params_opt", b.params_opt);
  read(j, "tokens_opt", b.tokens_opt);
  read(j, "loss_opt", b.loss_opt);
  read(j, "min_params", b.min_params);
  read(j, "max_params", b.max_params);
  read(j, "extrapolated", b.extrapolated);
  const Json& p = j.at("parabola");
  read(p, "c0", b.c0);
  read(p, "c1", b.c1);
  read(p, "c2", b.c2);
  read(p, "x_center", b.x_center);
}

void to_json(Json& j, const Approach2Result& r) {
  j = Json{{"a", r.a}, {"b", r.b}, {"k_params", r.k_params}, {"k_tokens", r.k_tokens}, {"budgets", r.budgets}};
}
void from_json(const Json& j, Approach2Result& r) {
  read(j, "a", r.a);
  read(j, "b", r.b);
  read(j, "k_params", r.k_params);
  read(j, "k_tokens", r.k_tokens);
  doc::read_array(j, "budgets", r.budgets);
}

void to_json(Json& j, const EnvelopePoint& p) {
  j = Json{{"flops", p.flops}, {"params", p.params}, {"tokens", p.tokens}, {"loss", p.loss}};
}
void from_json(const Json& j, EnvelopePoint& p) {
  read(j, "flops", p.flops);
  read(j, "params", p.params);
  read(j, "tokens", p.tokens);
  read(j, "loss", p.loss);
}

void to_json(Json& j, const Approach1Result& r) {
  j = Json{{"a", r.a}, {"b", r.b}, {"k_params", r.k_params}, {"k_tokens", r.k_tokens}, {"curves", r.curves},
           {"sizes_on_envelope", r.sizes_on_envelope}, {"envelope", r.envelope}};
}
void from_json(const Json& j, Approach1Result& r) {
  read(j, "a", r.a);
  read(j, "b", r.b);
  read(j, "k_params", r.k_params);
  read(j, "k_tokens", r.k_tokens);
  read(j, "curves", r.curves);
  read(j, "sizes_on_envelope", r.sizes_on_envelope);
  doc::read_array(j, "envelope", r.envelope);
}

void to_json(Json& j, const Interval& i) {
  j = Json{{"p2_5", i.p2_5}, {"p10", i.p10}, {"p50", i.p50}, {"p90", i.p90}, {"p97_5", i.p97_5}};
}
void from_json(const Json& j, Interval& i) {
  read(j, "p2_5", i.p2_5);
  read(j, "p10", i.p10);
  read(j, "p50", i.p50);
  read(j, "p90", i.p90);
  read(j, "p97_5", i.p97_5);
}

}  // namespace isoflop::fit

namespace isoflop::doc {

void to_json(Json& j, const FitRuns& r) {
  j = Json{{"read", r.read}, {"used", r.used}, {"dropped", r.dropped}, {"points", r.points}};
}
void from_json(const Json& j, FitRuns& r) {
  read(j, "read", r.read);
  read(j, "used", r.used);
  read(j, "dropped", r.dropped);
  read_array(j, "points", r.points);
}

void to_json(Json& j, const FitBootstrap& b) {
  j = Json{{"resamples", b.resamples}, {"seed", b.seed}, {"approach3_failed", b.approach3_failed},
           {"approach3", b.approach3}, {"approach2_failed", or_null(b.approach2_failed)},
           {"approach2", or_null(b.approach2)}};
}
void from_json(const Json& j, FitBootstrap& b) {
  read(j, "resamples", b.resamples);
  read(j, "seed", b.seed);
  read(j, "approach3_failed", b.approach3_failed);
  read(j, "approach3", b.approach3);
  read(j, "approach2_failed", b.approach2_failed);
  read(j, "approach2", b.approach2);
}

void to_json(Json& j, const SavedLaw& s) { j = Json{{"name", s.name}, {"file", s.file}}; }
void from_json(const Json& j, SavedLaw& s) {
  read(j, "name", s.name);
  read(j, "file", s.file);
}

void to_json(Json& j, const FitDocument& d) {
  j = Json::object();
  j["schema"] = schema_id("fit");
  j["inputs"] = d.inputs;
  j["runs"] = d.runs;
  j["approach3"] = or_null(d.approach3);
  j["approach2"] = or_null(d.approach2);
  j["approach1"] = or_null(d.approach1);
  j["bootstrap"] = or_null(d.bootstrap);
  j["saved_law"] = or_null(d.saved_law);
}
void from_json(const Json& j, FitDocument& d) {
  read(j, "inputs", d.inputs);
  read(j, "runs", d.runs);
  read(j, "approach3", d.approach3);
  read(j, "approach2", d.approach2);
  read(j, "approach1", d.approach1);
  read(j, "bootstrap", d.bootstrap);
  read(j, "saved_law", d.saved_law);
}

namespace {

// At most ~300 envelope points in the document: enough to draw, small enough to read.
std::vector<fit::EnvelopePoint> thinned(const std::vector<fit::EnvelopePoint>& envelope) {
  const size_t stride = std::max<size_t>(1, envelope.size() / 300);
  std::vector<fit::EnvelopePoint> out;
  for (size_t i = 0; i < envelope.size(); i += stride) out.push_back(envelope[i]);
  return out;
}

}  // namespace

FitDocument fit_document(fit::FitRequest request, const std::function<void(int, int)>& progress) {
  request.resolve();
  FitDocument d;
  d.inputs = request;
  const std::string runs_text = read_input_text(request.runs_file);
  const std::vector<fit::Run> all = fit::parse_runs_csv(runs_text, request.runs_file, request.columns);
  const std::vector<fit::Run> runs = fit::select_runs(all, request.selection);
  d.runs = {static_cast<long long>(all.size()), static_cast<long long>(runs.size()),
            static_cast<long long>(all.size() - runs.size()), runs};
  const fit::Approach3Options a3 = request.approach3_options();
  const fit::Approach2Options a2 = request.approach2_options();
  if (request.uses(3)) {
    if (runs.size() < 5)
      throw InputError(request.runs_file + ": Approach 3 fits 5 parameters but only " + std::to_string(runs.size()) +
                       " runs are left after selection; give at least 5");
    d.approach3 = fit::fit_approach3(runs, a3);
  }
  if (request.uses(2)) d.approach2 = fit::fit_approach2(runs, a2);
  if (request.uses(1)) {
    const auto curves = fit::parse_curves_csv(read_input_text(*request.curves_file), *request.curves_file,
                                              request.columns, runs_text, request.runs_file);
    d.approach1 = fit::fit_approach1(curves, request.approach1_options());
    d.approach1->envelope = thinned(d.approach1->envelope);
  }
  if (request.bootstrap > 0) {
    fit::BootstrapOptions b;
    b.resamples = request.bootstrap;
    b.seed = request.seed.value_or(0);
    b.approach2 = request.uses(2);
    b.progress = progress;
    const fit::BootstrapResult r = fit::bootstrap(runs, d.approach3->x, a3, a2, b);
    FitBootstrap fb{r.resamples, b.seed, r.approach3_failed, r.approach3, std::nullopt, std::nullopt};
    if (b.approach2) fb.approach2_failed = r.approach2_failed, fb.approach2 = r.approach2;
    d.bootstrap = fb;
  }
  if (request.save_law)
    d.saved_law = SavedLaw{*request.save_law,
                           (std::filesystem::path(*request.catalog_dir) / (*request.save_law + ".yaml")).string()};
  return d;
}

std::string fit_law_yaml(const FitDocument& d) {
  if (!d.saved_law || !d.approach3) throw InputError("fit: no Approach-3 law to save");
  const auto& in = d.inputs;
  const std::string source = "isoflop fit (Approach 3) of " + in.runs_file + ": " + std::to_string(d.runs.used) +
                             " runs, Huber delta " + units::format_significant(in.huber_delta) + ", " +
                             std::string(fit::kReduceNames.name(in.reduce)) + ", grid " + in.grid;
  const std::string yaml = fit::law_catalog_yaml(*d.approach3, d.saved_law->name, source);
  catalog::Catalog check;
  catalog::merge_catalog_text(yaml, d.saved_law->file, &check);  // what we write must load
  return yaml;
}

}  // namespace isoflop::doc
