// `isoflop fit --form auto` against `validate report`: the same runs as a table give the same interaction law and
// the same held-out choice as the kept cpu record (two front ends of lib/fit's interaction law and form choice).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "doc/fit_document.hpp"
#include "support/temp_files.hpp"
#include "validate/report_document.hpp"

namespace isoflop::doc {

namespace fs = std::filesystem;

TEST_CASE("fit --form auto on the kept cpu sweep's runs makes the validate report's choice, with its numbers") {
  // The same 35 (N, D, loss) as a runs table: fit and validate report run the same fits and the same folds.
  std::ifstream in(ISOFLOP_SOURCE_DIR "/tests/validate/results/validate-cpu-5x7-tuned-lr-2026-12-05.json");
  REQUIRE(in.good());
  const ValidationDocument kept = Json::parse(in).get<ValidationDocument>();
  REQUIRE(kept.report.interaction);
  const fs::path dir = test::fresh_temp_dir("fit-form", "kept");
  const std::string runs = (dir / "runs.csv").string();
  {
    std::ofstream out(runs);
    out << "params,tokens,loss\n";
    out.precision(17);  // the document's losses, every digit
    for (const auto& r : kept.runs)
      out << std::to_string(r.params) << ',' << std::to_string(r.tokens) << ',' << r.loss << '\n';
  }
  fit::FitRequest r;
  r.runs_file = runs;
  r.form = fit::FormRequest::kAuto;
  const FitDocument d = fit_document(r);
  REQUIRE(d.form_choice);
  const fit::FormChoice& want = kept.report.interaction->choice;
  CHECK(d.form_choice->chosen == fit::ParametricForm::kInteraction);
  CHECK(d.form_choice->folds == want.folds);
  CHECK(d.form_choice->rms_chinchilla == doctest::Approx(want.rms_chinchilla).epsilon(1e-5));    // README: 0.0127
  CHECK(d.form_choice->rms_interaction == doctest::Approx(want.rms_interaction).epsilon(1e-5));  // 0.0057
  // γ is the least determined parameter: the two optimizer paths agree to 1e-4.
  CHECK(d.interaction->gamma == doctest::Approx(kept.report.interaction->law.gamma).epsilon(1e-3));  // 0.457
  CHECK(d.interaction->E == doctest::Approx(kept.report.interaction->law.E).epsilon(1e-3));          // 1.325

  // --bootstrap 50 --seed 1 refits both laws; the interaction law's intervals as the README gives them, near
  // validate report's, which resamples within budgets rather than over all runs.
  fit::FitRequest b = r;
  b.bootstrap = 50;
  b.seed = 1;
  const FitDocument bd = fit_document(b);
  REQUIRE(bd.bootstrap);
  REQUIRE(bd.bootstrap->interaction);
  CHECK(bd.bootstrap->interaction_failed == 0);
  const auto& iv = *bd.bootstrap->interaction;
  CHECK(iv.at("gamma").p2_5 == doctest::Approx(0.349).epsilon(0.005));
  CHECK(iv.at("gamma").p97_5 == doctest::Approx(0.539).epsilon(0.005));
  CHECK(iv.at("a").p2_5 == doctest::Approx(0.497).epsilon(0.005));
  CHECK(iv.at("a").p97_5 == doctest::Approx(0.535).epsilon(0.005));
  CHECK(iv.at("E").p2_5 == doctest::Approx(1.225).epsilon(0.005));
  CHECK(iv.at("E").p97_5 == doctest::Approx(1.359).epsilon(0.005));
  const auto& kept_gamma = kept.report.interaction->intervals.at("gamma");
  CHECK(std::abs(iv.at("gamma").p2_5 - kept_gamma.p2_5) < 0.03);
  CHECK(std::abs(iv.at("gamma").p97_5 - kept_gamma.p97_5) < 0.03);
}

}  // namespace isoflop::doc
