// Tests for lib/scaling/loss_law: Muennighoff's README examples, Kaplan eq. 1.5, parametric values, errors.
#include "scaling/loss_law.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "support/expect_close.hpp"
#include "scaling/laws_fixture.hpp"

using namespace isoflop;
using namespace isoflop::scaling;
using namespace isoflop::test;

TEST_CASE("Muennighoff README examples reproduce to 1e-9") {
  const auto& m = law("muennighoff-2023");
  EXPECT_CLOSE(predicted_loss(m, 6.34e9, 242e9, 25e9), 2.2256440889984477, 1e-9);
  EXPECT_CLOSE(predicted_loss(m, 8.67e9, 178e9, 25e9), 2.2269634075087867, 1e-9);
}

TEST_CASE("effective data D'/U at 2, 4, 10 and 40 epochs (Muennighoff R_D*)") {
  const double r = law("muennighoff-2023").parametric()->r_d_star;
  EXPECT_CLOSE(effective_tokens(4e9, 1e9, r) / 1e9, 3.7257, 1e-4);
  EXPECT_CLOSE(effective_tokens(2e9, 1e9, r) / 1e9, 1.9682, 1e-4);
  EXPECT_CLOSE(effective_tokens(10e9, 1e9, r) / 1e9, 7.8141, 1e-4);
  EXPECT_CLOSE(effective_tokens(40e9, 1e9, r) / 1e9, 15.1675, 1e-4);
  CHECK(effective_tokens(0.5e9, 1e9, r) == 0.5e9);  // first epoch: every token counts
}

TEST_CASE("Kaplan eq. 1.5 with the Table 2 fit") {
  const auto& k = law("kaplan-2020");
  EXPECT_CLOSE(predicted_loss(k, 1e9, 2e10), 2.3739, 1e-4);
  EXPECT_CLOSE(predicted_loss(k, 1.5e9, 1e11), 2.2640, 1e-4);
  CHECK(irreducible_loss(k) == 0.0);
}

TEST_CASE("parametric loss: rounded Chinchilla at its Gopher-budget optimum") {
  EXPECT_CLOSE(predicted_loss(law("chinchilla"), 3.219e10, 2.982e12), 1.9307, 1e-3);
  EXPECT_CLOSE(predicted_loss(law("chinchilla-tex"), 4.036e10, 2.379e12), 1.9184, 1e-3);
  CHECK(irreducible_loss(law("chinchilla")) == 1.69);
}

TEST_CASE("loss falls with parameters and with tokens — repetition never helps") {
  for (const char* name : {"chinchilla", "epoch-2024", "kaplan-2020", "muennighoff-2023"}) {
    const auto& l = law(name);
    CHECK(predicted_loss(l, 2e9, 1e11) < predicted_loss(l, 1e9, 1e11));
    CHECK(predicted_loss(l, 1e9, 2e11) < predicted_loss(l, 1e9, 1e11));
  }
  const auto& m = law("muennighoff-2023");
  CHECK(predicted_loss(m, 1e9, 1e11, 1e10) > predicted_loss(m, 1e9, 1e11, 1e11));
}

TEST_CASE("--law-params builds a parametric law — malformed lists are rejected") {
  const auto custom = law_from_params("1.69,406.4,410.7,0.34,0.28");
  CHECK(custom.name == "custom");
  CHECK(predicted_loss(custom, 1e9, 1e11) == predicted_loss(law("chinchilla"), 1e9, 1e11));
  CHECK_THROWS_AS(law_from_params("1.69,406.4,410.7,0.34"), InputError);
  CHECK_THROWS_AS(law_from_params("1.69,406.4,410.7,0.34,0.28,1,1"), InputError);
  CHECK_THROWS_AS(law_from_params("1.69,406.4,410.7,0.34,0.28,0"), InputError);  // gamma must be positive
  // A sixth number is the interaction exponent: L = E + (A/N^α + B/D^β)^γ; 1 is the additive law.
  CHECK(predicted_loss(law_from_params("1.69,406.4,410.7,0.34,0.28,1"), 1e9, 1e11) ==
        predicted_loss(custom, 1e9, 1e11));
  const auto bottleneck = law_from_params("1.69,406.4,410.7,0.34,0.28,0.5");
  const double reducible = 406.4 / std::pow(1e9, 0.34) + 410.7 / std::pow(1e11, 0.28);
  CHECK(predicted_loss(bottleneck, 1e9, 1e11) == doctest::Approx(1.69 + std::sqrt(reducible)).epsilon(1e-14));
  // γ does not move the compute-optimal allocation (eq. 4), only the loss at it.
  const Allocation a = allocate(custom, 1e22), b = allocate(bottleneck, 1e22);
  CHECK(b.params == doctest::Approx(a.params).epsilon(1e-12));
  CHECK(*b.loss > *a.loss);  // the reducible part is below 1, so its square root is larger
  CHECK_THROWS_AS(law_from_params("1.69,406.4,x,0.34,0.28"), InputError);
  CHECK_THROWS_AS(law_from_params("1.69,-406.4,410.7,0.34,0.28"), InputError);
  CHECK_THROWS_AS(law_from_params("1.69,406.4,410.7,0.34,0.28,"), InputError);
}

TEST_CASE("loss errors: allocation-only laws, unique tokens without a repetition model, bad values") {
  CHECK_THROWS_AS(predicted_loss(law("chinchilla-approach1"), 1e9, 1e11), InputError);
  CHECK_THROWS_AS(predicted_loss(law("llama3-2024"), 1e9, 1e11), InputError);
  CHECK_THROWS_AS(predicted_loss(law("kaplan-2020"), 1e9, 1e11, 1e10), InputError);
  CHECK_THROWS_AS(predicted_loss(law("chinchilla"), 1e9, 1e11, 1e10), InputError);
  CHECK_THROWS_AS(predicted_loss(law("chinchilla"), -1, 1e11), InputError);
  CHECK_THROWS_AS(predicted_loss(law("chinchilla"), 1e9, std::nan("")), InputError);
  const auto repeated = with_repetition_decay(law("chinchilla"), law("muennighoff-2023"));
  CHECK(repeated.parametric()->r_d_star == law("muennighoff-2023").parametric()->r_d_star);
  CHECK(predicted_loss(repeated, 1e9, 1e11, 1e10) > predicted_loss(repeated, 1e9, 1e11));
  CHECK(predicted_loss(repeated, 1e9, 1e11, 2e11) == predicted_loss(law("chinchilla"), 1e9, 1e11));
}
