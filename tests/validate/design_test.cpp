// The sweep design: budgets, sizes, tokens, rules, bad input; jobs written through the Job type; the sweep
// document read back.
#include "validate/design.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <tuple>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/sweep_document.hpp"
#include "scaling/allocate.hpp"
#include "support/temp_files.hpp"
#include "train/job_writer.hpp"
#include "validate/shape.hpp"
#include "validate/sweep_folder.hpp"
#include "validate/sweep_options.hpp"

namespace isoflop::validate {
namespace {

const catalog::Catalog& cat() {
  static const catalog::Catalog c = catalog::embedded_catalog();
  return c;
}

doc::SweepDocument design(const std::string& preset, double flops = 1e21, const std::string& law = "chinchilla") {
  SweepOptions o;
  o.flops = flops;
  o.law.law = law;
  o.preset = preset;
  return design_from_options(o, cat());
}

TEST_CASE("budgets are spaced x3 and the runs add up to the preset's total compute") {
  for (const std::string preset : {"smoke", "cpu", "gpu"}) {
    CAPTURE(preset);
    const doc::SweepDocument d = design(preset);
    const Preset& p = sweep_settings().preset(preset);
    REQUIRE(d.budgets.size() == static_cast<size_t>(p.budgets));
    for (size_t k = 1; k < d.budgets.size(); ++k)
      CHECK(d.budgets[k].flops / d.budgets[k - 1].flops == doctest::Approx(3));
    // Whole steps and the shapes' exact counts move each run a little off its budget, not the total.
    CHECK(d.total_flops == doctest::Approx(p.total_flops).epsilon(0.05));
    double sum = 0;
    for (const auto& r : d.runs) sum += 6 * r.params * r.tokens;
    CHECK(sum == doctest::Approx(d.total_flops));
    CHECK(d.runs.size() == static_cast<size_t>(p.budgets * p.sizes));
  }
}

TEST_CASE("the smoke preset: 3 budgets x 3 sizes around 1e10 FLOPs each") {
  const doc::SweepDocument d = design("smoke");
  REQUIRE(d.budgets.size() == 3);
  CHECK(d.sizes_per_budget == 3);
  CHECK(d.budgets[1].flops == doctest::Approx(1e10).epsilon(0.1));
}

TEST_CASE("each budget's sizes grow, span the law's optimum, and spend the budget as C = 6ND") {
  const doc::SweepDocument d = design("cpu");
  for (size_t k = 0; k < d.budgets.size(); ++k) {
    CAPTURE(k);
    std::vector<const doc::SweepRun*> runs;
    for (const auto& r : d.runs)
      if (r.budget == static_cast<int>(k)) runs.push_back(&r);
    for (size_t j = 1; j < runs.size(); ++j) CHECK(runs[j]->params > runs[j - 1]->params);
    // The law's N_opt(C) lies strictly inside the sizes tried.
    CHECK(runs.front()->params < d.budgets[k].law_n_opt);
    CHECK(runs.back()->params > d.budgets[k].law_n_opt);
    CHECK(d.budgets[k].law_n_opt ==
          doctest::Approx(scaling::allocate(cat().law("chinchilla"), d.budgets[k].flops).params));
    for (const auto* r : runs) {
      const double step = static_cast<double>(d.rules.batch) * d.rules.seq;
      CHECK(std::abs(r->tokens - r->flops / (6 * r->params)) <= step / 2 + 1);
      CHECK(std::fmod(r->tokens, step) == 0);
      // Targets log-spaced over the preset's span, centred on N_opt: the geometric mean of the ends is N_opt.
      CHECK(std::sqrt(runs.front()->target_params * runs.back()->target_params) ==
            doctest::Approx(d.budgets[k].law_n_opt));
      CHECK(r->params == doctest::Approx(r->target_params).epsilon(0.26));
    }
  }
}

TEST_CASE("a run's parameters are the trainer's exact count") {
  // The trainer's example model (2 layers, d 64, 4 heads, seq 64, vocab 64) reports 108,288 parameters:
  // 64·64 token + 64·64 position embeddings, 2 × (12·64² + 13·64) per block, 2·64 final norm.
  CHECK(count_model({2, 64, 4, 64, 64}).params == 108288);
  CHECK(count_model({2, 64, 4, 64, 64}).non_embedding_params == 108288 - 2 * 64 * 64);
}

TEST_CASE("the shared learning rate follows Kaplan et al. 2020 eq. D.1 in the non-embedding parameters") {
  for (const char* preset : {"smoke", "gpu"}) {
    const doc::SweepDocument d = design(preset);
    CHECK(d.rules.lr.form == doc::LrForm::kLogLinear);
    CHECK(d.rules.lr.intercept == 0.003239);
    CHECK(d.rules.lr.log_slope == -0.0001395);
    for (const auto& r : d.runs) {
      CHECK(r.lr == doctest::Approx(0.003239 - 0.0001395 * std::log(r.non_embedding_params)));
      CHECK(r.warmup_tokens == std::floor(d.rules.warmup_fraction * r.tokens));
    }
    // Smaller models get the larger rate.
    CHECK(d.runs.front().lr > d.runs[d.sizes_per_budget - 1].lr);
  }
}

TEST_CASE("the cpu preset's own rule is a power of N and D, with the shared schedule") {
  const doc::SweepDocument d = design("cpu"), smoke = design("smoke");
  CHECK(d.rules.lr.form == doc::LrForm::kPower);
  CHECK(d.rules.lr.intercept == 0);
  CHECK(d.rules.lr.scale > 0);
  // Both exponents negative: a bigger model and a longer run each take a smaller peak.
  CHECK(d.rules.lr.params_exponent < 0);
  CHECK(d.rules.lr.tokens_exponent < 0);
  CHECK(d.rules.warmup_fraction == smoke.rules.warmup_fraction);
  CHECK(d.rules.min_lr_fraction == smoke.rules.min_lr_fraction);
  for (const auto& r : d.runs) {
    CHECK(r.lr == doctest::Approx(d.rules.lr.scale * std::pow(r.non_embedding_params, d.rules.lr.params_exponent) *
                                  std::pow(r.tokens, d.rules.lr.tokens_exponent)));
    CHECK(r.warmup_tokens == std::floor(d.rules.warmup_fraction * r.tokens));
  }
  // The same model trained 3x longer at the next budget takes a smaller peak.
  for (const auto& a : d.runs)
    for (const auto& b : d.runs)
      if (a.params == b.params && b.tokens > a.tokens) CHECK(b.lr < a.lr);
}

TEST_CASE("shapes follow the family's depth-to-width ratio within the parameter tolerance") {
  const SizedModel small = shape_model(2e5, 64, 64, 64), wide = shape_model(2e5, 400, 64, 64);
  CHECK(small.params == doctest::Approx(2e5).epsilon(0.25));
  CHECK(static_cast<double>(wide.config.d_model) / wide.config.layers >
        static_cast<double>(small.config.d_model) / small.config.layers);
  CHECK(small.config.d_model % small.config.heads == 0);
}

TEST_CASE("small sizes widen one layer in steps of 4 instead of stacking narrow layers") {
  // Between the 1-layer models of d 16 (5.4k parameters at seq 64, vocab 64) and d 24 (10.3k) a target of 7.7k
  // once got 2 layers of d 16, which trains worse per parameter than either neighbour and bent the smallest
  // budget's IsoFLOP curve (README, validate). d 20 with heads of 4 lies there.
  const SizedModel m = shape_model(7.74e3, 64, 64, 64);
  CHECK(m.config.layers == 1);
  CHECK(m.config.d_model == 20);
  CHECK(m.config.heads == 5);
  // Widths of 32 and more keep heads of at least 8.
  const SizedModel wide = shape_model(2e5, 64, 64, 64);
  CHECK(wide.config.d_model % 8 == 0);
  CHECK(wide.config.d_model / wide.config.heads >= 8);
  // In the cpu preset every budget's shapes grow in width and depth together: no size is narrower than a smaller one.
  const doc::SweepDocument d = design("cpu");
  for (size_t i = 1; i < d.runs.size(); ++i) {
    if (d.runs[i].budget != d.runs[i - 1].budget) continue;
    CAPTURE(d.runs[i].id);
    CHECK(d.runs[i].shape.d_model >= d.runs[i - 1].shape.d_model);
    CHECK(d.runs[i].shape.layers >= d.runs[i - 1].shape.layers);
  }
}

TEST_CASE("the cpu preset's rule, borrowed by a custom design or another source, says so") {
  const std::string borrowed = "(the cpu preset's rule, borrowed outside the sweep it was fitted to)";
  CHECK(design("cpu").rules.lr_rule.find(borrowed) == std::string::npos);
  SweepOptions o;
  o.flops = 1e21;
  o.law.law = "epoch-2024";
  o.preset = "cpu";
  o.budgets = 2;
  const doc::SweepDocument custom = design_from_options(o, cat());
  CHECK(custom.preset == "custom");
  CHECK(custom.rules.lr.form == doc::LrForm::kPower);
  CHECK(custom.rules.lr_rule.find(borrowed) != std::string::npos);
  o.budgets.reset();
  o.source = "markov";
  CHECK(design_from_options(o, cat()).rules.lr_rule.find(borrowed) != std::string::npos);
  // Kaplan's rule is nobody's own: a custom smoke design states it as it is.
  o.preset = "smoke";
  o.source.reset();
  o.sizes = 4;
  CHECK(design_from_options(o, cat()).rules.lr_rule ==
        "peak lr = 0.003239 - 0.0001395 ln(N_non-embedding)");
}

TEST_CASE("the sweep document reads back as written, with either form of learning-rate rule") {
  for (const char* preset : {"smoke", "cpu"}) {
    CAPTURE(preset);
    const doc::SweepDocument d = design(preset);
    const doc::Json j = d;
    CHECK(j.at("rules").at("lr_form") == (std::string(preset) == "cpu" ? "power" : "log_linear"));
    CHECK(j.get<doc::SweepDocument>() == d);
  }
}

TEST_CASE("a sweep document emitted before the rule had a form reads as Kaplan's log-linear rule") {
  const doc::SweepDocument d = design("smoke");
  doc::Json j = d;
  for (const char* key : {"lr_form", "lr_scale", "lr_params_exponent", "lr_tokens_exponent"}) j["rules"].erase(key);
  const auto old = j.get<doc::SweepDocument>();
  CHECK(old.rules.lr.form == doc::LrForm::kLogLinear);
  CHECK(old.rules.lr.scale == 0);
  CHECK(old == d);
  j["rules"].erase("lr_intercept");  // a key the document always had is still required
  CHECK_THROWS(j.get<doc::SweepDocument>());
}

TEST_CASE("a hand-edited sweep.json is refused where a budget, a run or the plan's reference is no longer real") {
  const doc::SweepDocument d = design("smoke");
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "edited");
  const std::vector<std::tuple<std::string, doc::Json, std::string>> edits = {
      {"/runs/0/budget", 7, "runs[0].budget: 7 is not one of the 3 budgets (0 to 2)"},
      {"/runs/0/budget", -1, "runs[0].budget: -1 is not one of the 3 budgets (0 to 2)"},
      {"/runs/1/id", d.runs[0].id, "runs[1].id: '" + d.runs[0].id + "' names another run too"},
      {"/runs/0/params", -5, "runs[0].params: "},
      {"/budgets", doc::Json::array(), "budgets: must list at least one budget"},
      {"/origin/full_budget_flops", -1, "origin.full_budget_flops: must be a positive number of FLOPs"},
      {"/origin/n_opt", 0, "origin.n_opt: must be a positive number of parameters"}};
  for (const auto& [pointer, value, message] : edits) {
    CAPTURE(pointer);
    doc::Json j = d;
    j[doc::Json::json_pointer(pointer)] = value;
    std::ofstream(dir / "sweep.json") << j.dump(2);
    CHECK_THROWS_WITH_AS(validate::read_sweep_folder(dir.string()), doctest::Contains(message.c_str()), InputError);
  }
}

TEST_CASE("the sweep document reads back as written, and its job files as the jobs") {
  const doc::SweepDocument d = design("smoke");
  const doc::Json j = d;
  CHECK(j.at("schema") == "isoflop/sweep/v2");
  CHECK(j.at("flops_convention").at("name") == "6nd");
  CHECK(j.get<doc::SweepDocument>() == d);
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "jobs");
  for (const auto& run : d.runs) {
    const std::string file = (dir / run.job).string();
    train::Job job = run_job(d, run, (dir / run.folder).string());
    job.file = file;
    CHECK(train::parse_job(train::job_yaml(job, file), file) == job);
    CHECK(job.train.tokens == run.tokens);
    CHECK(job.steps() == run.steps);
  }
}

TEST_CASE("bad input: a budget too small for the smallest model, too few sizes, one law, a source") {
  SweepOptions o;
  o.flops = 1e21;
  o.preset = "smoke";
  o.total_flops = 1e8;
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()), doctest::Contains("too small for the model"), FieldError);
  o.total_flops.reset();
  // Two sizes give no parabola: Approach 2 could never fit such a sweep.
  o.sizes = 2;
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()),
                       "sizes: 2 is too few; accepted: at least 3 (a parabola through each budget's losses)",
                       FieldError);
  o.sizes = 3;
  CHECK_NOTHROW(design_from_options(o, cat()));
  o.sizes.reset();
  // The accelerator the runs' MFU is counted against is one the catalog has, checked before any job is written.
  o.peak_device = "bogus";
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()), doctest::Contains("peak_device: unknown accelerator 'bogus'"),
                       FieldError);
  o.peak_device = "h100-sxm5-80gb";
  CHECK_NOTHROW(design_from_options(o, cat()));
  o.peak_device.clear();
  o.law.all_laws = true;
  CHECK_THROWS_AS(design_from_options(o, cat()), FieldError);
  o.law.all_laws = false;
  o.source = "text";
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()), doctest::Contains("accepted: quanta, markov"), FieldError);
  o.source.reset();
  o.preset = "huge";
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()), doctest::Contains("accepted: smoke, cpu, gpu"), FieldError);
  o.preset = "smoke";
  // A plan smaller than the sweep: its N_opt would come from carrying the fitted law down, not up.
  o.flops = 1;
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()),
                       doctest::Contains("flops: the plan's budget 1e0 FLOPs is below the sweep's largest"),
                       FieldError);
  o.flops.reset();
  CHECK_THROWS_WITH_AS(design_from_options(o, cat()), doctest::Contains("flops: missing"), FieldError);
}

TEST_CASE("bad input: a plan with no law or no allocation") {
  plan::PlanResult p;
  p.family = "chinchilla-70b";
  CHECK_THROWS_WITH_AS(target_from_plan(p, "p.json", cat(), std::nullopt, std::nullopt),
                       "from: 'p.json' has no scaling law", FieldError);
  p.allocation.law = "no-such-law";
  p.allocation.flops = 1e21;
  p.allocation.params = 1e9;
  p.allocation.tokens = 1e21 / 6e9;
  CHECK_THROWS_WITH_AS(target_from_plan(p, "p.json", cat(), std::nullopt, std::nullopt),
                       doctest::Contains("not in the catalog"), FieldError);
  p.allocation.law = "chinchilla";
  const SweepTarget t = target_from_plan(p, "p.json", cat(), std::nullopt, std::nullopt);
  CHECK(t.origin.n_opt == 1e9);
  CHECK(t.family.has_value());  // chinchilla-70b is shaped after the chinchilla family
  // Chinchilla's Approach 3: a = β/(α+β) = 0.28/(0.34+0.28) (Hoffmann et al. 2022 eq. 4, rounded constants).
  CHECK(t.origin.law_exponent_a == doctest::Approx(0.28 / 0.62).epsilon(1e-3));
  // An MoE plan: the laws are dense and so is the sweep; refused, as the law's kind of N is another count.
  p.job.architecture = cat().model("st-moe-32b").architecture;
  REQUIRE(p.job.architecture.moe.enabled());
  CHECK_THROWS_WITH_AS(target_from_plan(p, "p.json", cat(), std::nullopt, std::nullopt),
                       doctest::Contains("'p.json' plans a mixture of experts"), FieldError);
  // A law of non-embedding parameters: refused by name.
  p.job.architecture = {};
  CHECK_THROWS_WITH_AS(target_from_plan(p, "p.json", cat(), cat().law("kaplan-2020"), std::nullopt),
                       doctest::Contains("law: 'kaplan-2020' counts non-embedding parameters"), FieldError);
}

}  // namespace
}  // namespace isoflop::validate
