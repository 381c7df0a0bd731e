// Choosing laws and answering `optimal`/`loss` questions: the library names fields, never flags.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "scaling/query.hpp"

using namespace isoflop;

namespace {
std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const FieldError& e) {
    CHECK(std::string(e.what()).find("--") == std::string::npos);
    return e.field();
  }
  return "";
}
}  // namespace

TEST_CASE("select_laws: default, by name, by constants, all, and conflicts that name the field") {
  const auto cat = catalog::embedded_catalog();
  CHECK(scaling::select_laws(cat, {}).front().name == "epoch-2024");
  CHECK(scaling::select_laws(cat, {"chinchilla", {}, false}).front().parametric()->E == doctest::Approx(1.69));
  const auto custom = scaling::select_laws(cat, {{}, "1.69,406.4,410.7,0.34,0.28", false});
  CHECK(custom.front().name == "custom");
  CHECK(custom.front().parametric()->beta == doctest::Approx(0.28));
  CHECK(scaling::select_laws(cat, {{}, {}, true}).size() == cat.laws.size());
  // With unique tokens, parametric laws borrow the data-constrained law's repetition decay.
  CHECK(scaling::select_laws(cat, {"chinchilla", {}, false}, true).front().parametric()->r_d_star ==
        doctest::Approx(cat.law("muennighoff-2023").parametric()->r_d_star));
  CHECK(field_of([&] { scaling::select_laws(cat, {"chinchilla", {}, true}); }) == "all_laws");
  CHECK(field_of([&] { scaling::select_laws(cat, {"chinchilla", "1,2,3,4,5", false}); }) == "law");
  CHECK(field_of([&] { scaling::select_laws(cat, {"chinchila", {}, false}); }) == "law");
  CHECK(field_of([&] { scaling::select_laws(cat, {{}, "1,2,x,4,5", false}); }) == "law_params");
}

TEST_CASE("answer_optimal: Gopher's budget, the band, and invalid questions") {
  const auto cat = catalog::embedded_catalog();
  scaling::OptimalRequest r;
  r.flops = 5.76e23;
  r.laws.law = "chinchilla-approach1";
  auto a = scaling::answer_optimal(cat, r);
  REQUIRE(a.allocations.size() == 1);
  CHECK(a.allocations[0].params == doctest::Approx(67e9).epsilon(1e-9));  // Table 3
  r.laws = {{}, {}, true};
  a = scaling::answer_optimal(cat, r);
  // The band holds the total-parameter laws; Kaplan and DeepSeek (non-embedding) are skipped with the reason.
  CHECK(a.allocations.size() + a.skipped.size() == cat.laws.size());
  CHECK(a.skipped.size() == 2);
  r.tokens = 1e12;
  CHECK(field_of([&] { scaling::answer_optimal(cat, r); }) == "flops");
  r = {};
  CHECK(field_of([&] { scaling::answer_optimal(cat, r); }) == "flops");
  r.params = 70e9;
  r.unique_tokens = 1e9;
  CHECK(field_of([&] { scaling::answer_optimal(cat, r); }) == "unique_tokens");
  // Past the longest a run may have (1e16 tokens), the answer says it is the formula extrapolated, not a plan;
  // at Gopher's budget it does not.
  r = {};
  r.flops = 1e60;
  const auto far = scaling::answer_optimal(cat, r);
  CHECK(far.notes.back().rfind("an extrapolation: ", 0) == 0);
  r.flops = 5.76e23;
  for (const auto& n : scaling::answer_optimal(cat, r).notes)
    CHECK(n.find("a training run may have") == std::string::npos);
}

TEST_CASE("an answer outside the model sizes its law was fitted to says it is an extrapolation, and which bound") {
  const auto cat = catalog::embedded_catalog();
  // Hoffmann et al. 2022 fitted 70M to over 16B parameters: Gopher's budget gives Epoch's law 72B, past them; 1e20
  // FLOPs gives about 1.3B, inside them.
  scaling::OptimalRequest r;
  r.flops = 5.76e23;
  const auto gopher = scaling::answer_optimal(cat, r);
  REQUIRE(!gopher.notes.empty());
  CHECK(gopher.notes.back().rfind("an extrapolation: 72.2B parameters is more than the 70M to 16B of the runs "
                                  "epoch-2024 was fitted to",
                                  0) == 0);
  r.flops = 1e20;
  for (const auto& n : scaling::answer_optimal(cat, r).notes) CHECK(n.find("extrapolation") == std::string::npos);
  // The band names each law outside its runs in one line.
  r.flops = 5.76e23;
  r.laws = {{}, {}, true};
  const auto band = scaling::answer_optimal(cat, r);
  CHECK(band.notes.back().rfind("extrapolations past the model sizes each law was fitted to: chinchilla 32.2B "
                                "(fitted 70M to 16B)",
                                0) == 0);
  // A loss for 70 parameters (70B without its unit) is far below them; Kaplan et al. 2020's 768 to 1.5B
  // non-embedding parameters do not hold 7B; Muennighoff's law has no range catalogued, and says nothing.
  scaling::LossRequest unitless{70, 1.4e12, {}, {}};
  CHECK(scaling::answer_loss(cat, unitless)
            .losses.front()
            .extrapolation.rfind("an extrapolation: 70 parameters is fewer than the 70M", 0) == 0);
  scaling::LossRequest kaplan{7e9, 1.4e11, {}, {"kaplan-2020", {}, false}};
  CHECK(scaling::answer_loss(cat, kaplan).losses.front().extrapolation.find("more than the 768 to 1.5B") !=
        std::string::npos);
  scaling::LossRequest inside{1e9, 2e10, {}, {}};
  CHECK(scaling::answer_loss(cat, inside).losses.front().extrapolation.empty());
  scaling::LossRequest unranged{70, 1.4e12, {}, {"muennighoff-2023", {}, false}};
  CHECK(scaling::answer_loss(cat, unranged).losses.front().extrapolation.empty());
}

TEST_CASE("answer_loss: Muennighoff's README example, and --all-laws skips laws without a loss") {
  const auto cat = catalog::embedded_catalog();
  scaling::LossRequest r{6.34e9, 242e9, 25e9, {"muennighoff-2023", {}, false}};
  auto a = scaling::answer_loss(cat, r);
  REQUIRE(a.losses.size() == 1);
  CHECK(a.losses[0].loss == doctest::Approx(2.2256440889984477).epsilon(1e-9));
  CHECK(*a.losses[0].epochs == doctest::Approx(242.0 / 25.0));
  r = {70e9, 1.4e12, {}, {{}, {}, true}};
  a = scaling::answer_loss(cat, r);
  CHECK(a.losses.size() + a.skipped.size() == cat.laws.size());
  CHECK(a.skipped.size() == 3);
}
