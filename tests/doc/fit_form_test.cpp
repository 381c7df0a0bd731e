// Tests for `isoflop fit --form`: the interaction law beside Approach 3, the choice by held-out budgets, and the
// chosen law saved as a catalog law (with gamma) that `loss` and `optimal` then use.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/fit_document.hpp"
#include "fit/simulate.hpp"
#include "scaling/allocate.hpp"
#include "scaling/loss_law.hpp"
#include "support/temp_files.hpp"

namespace isoflop::doc {
namespace {

namespace fs = std::filesystem;

// A runs table of 5 IsoFLOP budgets x 7 sizes (x3 apart, sizes around the optimum) from `law`, 0.5 % noise.
std::string write_runs(const fs::path& dir, const fit::TrueLaw& law, std::uint64_t seed = 1) {
  fit::SimulationSpec spec;
  spec.law = law;
  spec.budgets_flops = {1e18, 3e18, 9e18, 2.7e19, 8.1e19};
  spec.sizes_per_budget = 7;
  spec.min_tokens_per_param = 2;
  spec.max_tokens_per_param = 200;
  spec.noise = 0.005;
  spec.seed = seed;
  const std::string path = (dir / "runs.csv").string();
  std::ofstream out(path);
  out << "params,tokens,flops,loss\n";
  for (const auto& r : fit::simulate_runs(spec))
    out << std::to_string(r.params) << ',' << std::to_string(r.tokens) << ',' << r.flops << ',' << r.loss << '\n';
  return path;
}

fit::FitRequest request(const std::string& runs, fit::FormRequest form) {
  fit::FitRequest r;
  r.runs_file = runs;
  r.grid = "coarse";
  r.form = form;
  return r;
}

// A bottleneck: the larger shortfall dominates the reducible loss.
fit::TrueLaw bottleneck() {
  fit::TrueLaw law;
  law.gamma = 0.5;
  law.A = 406.4 * 406.4;  // (A/N^α)^γ keeps Chinchilla's scale at γ = 0.5 with α doubled
  law.B = 410.7 * 410.7;
  law.alpha = 0.68;
  law.beta = 0.56;
  return law;
}

}  // namespace

TEST_CASE("fit --form auto: a bottleneck's runs choose the interaction law, which is saved with its gamma") {
  const fs::path dir = test::fresh_temp_dir("fit-form", "bottleneck");
  fit::FitRequest r = request(write_runs(dir, bottleneck()), fit::FormRequest::kAuto);
  r.save_law = "bottleneck";
  r.catalog_dir = (dir / "laws").string();
  const FitDocument d = fit_document(r);
  REQUIRE(d.interaction);
  REQUIRE(d.form_choice);
  CHECK(d.form_choice->chosen == fit::ParametricForm::kInteraction);
  CHECK(d.form_choice->folds == 5);
  CHECK(d.form_choice->held_out_runs == 35);
  CHECK(d.form_choice->rms_interaction < 0.7 * d.form_choice->rms_chinchilla);
  CHECK(d.interaction->gamma == doctest::Approx(0.5).epsilon(0.1));
  // γ does not move the optimum: a = β/(α+β) of the true law, 0.56/1.24.
  CHECK(d.interaction->a == doctest::Approx(0.56 / 1.24).epsilon(0.03));
  REQUIRE(d.saved_law);
  CHECK(d.saved_law->form == fit::ParametricForm::kInteraction);

  // The saved law loads, carries gamma, and predicts what the fitted interaction law does.
  const std::string yaml = fit_law_yaml(d);
  CHECK(yaml.find("    gamma: ") != std::string::npos);
  catalog::Catalog cat = catalog::load_catalog();
  catalog::merge_catalog_text(yaml, "bottleneck.yaml", &cat);
  const catalog::LawSpec& law = cat.law("bottleneck");
  REQUIRE(law.as<catalog::ParametricLaw>());
  CHECK(law.as<catalog::ParametricLaw>()->gamma == d.interaction->gamma);
  for (double n : {1e8, 1e9, 1e10})
    for (double t : {1e9, 1e11}) {
      CAPTURE(n);
      CAPTURE(t);
      CHECK(scaling::predicted_loss(law, n, t) ==
            doctest::Approx(std::exp(fit::interaction_log_loss(d.interaction->x, n, t))).epsilon(1e-12));
    }
  // And its allocation is the interaction fit's eq. 4: N_opt = G·(C/6)^a.
  const double flops = 1e21;
  const scaling::Allocation opt = scaling::allocate(law, flops);
  CHECK(opt.params == doctest::Approx(d.interaction->G * std::pow(flops / 6, d.interaction->a)).epsilon(1e-6));

  // The figure draws it beside Approach 3's law: its frontier, its IsoFLOP curves and optima, its N and D.
  const std::string svg = render_fit_figure(d);
  for (const char* legend : {"interaction law (gamma = ", "interaction optimum", "interaction N", "interaction D",
                             "Approach 3 law", "Approach 3 optimum"})
    CHECK_MESSAGE(svg.find(legend) != std::string::npos, legend);
  CHECK(svg.find("#9467bd") != std::string::npos);
}

TEST_CASE("fit --form auto: an additive law's runs keep the additive law, and save it without gamma") {
  const fs::path dir = test::fresh_temp_dir("fit-form", "additive");
  fit::FitRequest r = request(write_runs(dir, fit::TrueLaw{}), fit::FormRequest::kAuto);
  r.save_law = "additive";
  r.catalog_dir = (dir / "laws").string();
  const FitDocument d = fit_document(r);
  REQUIRE(d.form_choice);
  CHECK(d.form_choice->chosen == fit::ParametricForm::kAdditive);
  REQUIRE(d.saved_law);
  CHECK(d.saved_law->form == fit::ParametricForm::kAdditive);
  const std::string yaml = fit_law_yaml(d);
  CHECK(yaml.find("gamma") == std::string::npos);
  CHECK(yaml.find("    alpha: ") != std::string::npos);
  // Without --form there is no interaction fit and no choice; --form interaction fits it without choosing.
  const FitDocument plain = fit_document(request(r.runs_file, fit::FormRequest::kAdditive));
  CHECK_FALSE(plain.interaction);
  CHECK_FALSE(plain.form_choice);
  CHECK(render_fit_figure(plain).find("interaction") == std::string::npos);
  const FitDocument both = fit_document(request(r.runs_file, fit::FormRequest::kInteraction));
  REQUIRE(both.interaction);
  CHECK_FALSE(both.form_choice);
  CHECK(both.interaction->gamma == doctest::Approx(1).epsilon(0.15));

  // The document names the form as --form does; one written when the additive form was spelled "chinchilla"
  // reads as it, and a name that is neither is refused with the accepted ones.
  Json j = d;
  CHECK(j.at("saved_law").at("form") == "additive");
  CHECK(j.at("form_choice").at("chosen") == "additive");
  j["saved_law"]["form"] = "chinchilla";
  j["form_choice"]["chosen"] = "chinchilla";
  CHECK(Json(j.get<FitDocument>()) == Json(d));
  j["saved_law"]["form"] = "kaplan";
  CHECK_THROWS_WITH(j.get<FitDocument>(), doctest::Contains("'kaplan' is not one of additive|interaction"));
}

TEST_CASE("fit --form interaction --bootstrap: the interaction law gets intervals that hold its gamma") {
  const fs::path dir = test::fresh_temp_dir("fit-form", "bootstrap");
  fit::FitRequest r = request(write_runs(dir, bottleneck()), fit::FormRequest::kInteraction);
  r.bootstrap = 40;
  r.seed = 3;
  const FitDocument d = fit_document(r);
  REQUIRE(d.interaction);
  REQUIRE(d.bootstrap);
  REQUIRE(d.bootstrap->interaction);
  REQUIRE(d.bootstrap->interaction_failed);
  CHECK(*d.bootstrap->interaction_failed <= 2);
  const auto& iv = *d.bootstrap->interaction;
  for (const char* key : {"E", "A", "B", "alpha", "beta", "gamma", "a", "b", "G"}) {
    CAPTURE(key);
    REQUIRE(iv.count(key));
    CHECK(iv.at(key).p2_5 <= iv.at(key).p50);
    CHECK(iv.at(key).p50 <= iv.at(key).p97_5);
  }
  // The estimate and the true law's gamma (0.5) and a (0.56/1.24) lie inside their 95 % intervals.
  CHECK(iv.at("gamma").p2_5 <= d.interaction->gamma);
  CHECK(d.interaction->gamma <= iv.at("gamma").p97_5);
  CHECK(iv.at("gamma").p2_5 <= 0.5);
  CHECK(0.5 <= iv.at("gamma").p97_5);
  CHECK(iv.at("a").p2_5 <= 0.56 / 1.24);
  CHECK(0.56 / 1.24 <= iv.at("a").p97_5);
  // The same seed on one thread gives the same intervals, and the document reads back as written.
  fit::FitRequest one = r;
  one.threads = 1;
  CHECK(fit_document(one).bootstrap == d.bootstrap);
  const Json j = d;
  CHECK(Json(j.get<FitDocument>()) == j);
  // Without an interaction law there is none to refit, and a document from before the keys reads with none.
  const FitDocument plain = fit_document([&] {
    fit::FitRequest a = r;
    a.form = fit::FormRequest::kAdditive;
    return a;
  }());
  REQUIRE(plain.bootstrap);
  CHECK_FALSE(plain.bootstrap->interaction);
  CHECK_FALSE(plain.bootstrap->interaction_failed);
  Json old = plain;
  old["bootstrap"].erase("interaction");
  old["bootstrap"].erase("interaction_failed");
  CHECK(old.get<FitDocument>().bootstrap == plain.bootstrap);
}

TEST_CASE("fit --form: bad requests name the rule") {
  const fs::path dir = test::fresh_temp_dir("fit-form", "bad");
  const std::string runs = write_runs(dir, fit::TrueLaw{});
  fit::FitRequest no_a3 = request(runs, fit::FormRequest::kInteraction);
  no_a3.approaches = {2};
  CHECK_THROWS_WITH_AS(fit_document(no_a3),
                       "form: interaction fits the interaction law beside Approach 3; include 3 in the approaches",
                       FieldError);
  // Two budgets cannot hold one out and still compare.
  fit::FitRequest two = request(runs, fit::FormRequest::kAuto);
  two.selection.max_flops = 4e18;
  try {
    fit_document(two);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("--form auto: 2 budgets: holding one out leaves too few") != std::string::npos);
    CHECK(m.find("--budget-tolerance") != std::string::npos);
  }
}

}  // namespace isoflop::doc
