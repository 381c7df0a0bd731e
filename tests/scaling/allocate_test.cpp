// Tests for lib/scaling/allocate: the closed form against the papers' numbers, Kaplan, power laws, round trips.
#include "scaling/allocate.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "scaling/laws_fixture.hpp"
#include "scaling/loss_law.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::scaling;
using namespace isoflop::test;

namespace {

// A law's closed-form G and a, and the allocation it gives at one budget, as the paper prints them.
struct PaperAllocation {
  const char* law;
  double G, a;
  double flops, params, tokens;
};

Allocation check_paper_allocation(const PaperAllocation& p) {
  INFO(p.law);
  const ClosedForm cf = closed_form(law(p.law));
  EXPECT_CLOSE(cf.G, p.G, 1e-3);
  EXPECT_CLOSE(cf.a, p.a, 1e-3);
  const Allocation a = allocate(law(p.law), p.flops);
  EXPECT_CLOSE(a.params, p.params, 1e-3);
  EXPECT_CLOSE(a.tokens, p.tokens, 1e-3);
  return a;
}

}  // namespace

TEST_CASE("closed form, rounded Chinchilla: G, a and the Gopher budget") {
  const Allocation a = check_paper_allocation({"chinchilla", 1.34471, 0.4516, 5.76e23, 3.219e10, 2.982e12});
  EXPECT_CLOSE(closed_form(law("chinchilla")).b, 0.5484, 1e-3);
  CHECK(a.law == "chinchilla");
  CHECK(a.method == "closed-form");
  EXPECT_CLOSE(a.tokens_per_param, 92.65, 1e-3);
  REQUIRE(a.loss);
  EXPECT_CLOSE(*a.loss, 1.9307, 1e-3);
  EXPECT_CLOSE(6 * a.params * a.tokens, 5.76e23, 1e-12);
  const Allocation small = allocate(law("chinchilla"), 1e21);
  EXPECT_CLOSE(small.params, 1.824e9, 1e-3);
  EXPECT_CLOSE(small.tokens, 9.136e10, 1e-3);
}

TEST_CASE("closed form, unrounded TeX constants: the paper's 40B for Gopher's budget") {
  const Allocation a = check_paper_allocation({"chinchilla-tex", 1.30005, 0.4565, 5.76e23, 4.036e10, 2.379e12});
  EXPECT_CLOSE(*a.loss, 1.9184, 1e-3);
  EXPECT_CLOSE(allocate(law("chinchilla-tex"), 1e24).params, 5.192e10, 1e-3);
}

TEST_CASE("Epoch 2024 constants at Chinchilla's budget") {
  const Allocation a = check_paper_allocation({"epoch-2024", 0.11963, 0.5126, 5.88e23, 7.302e10, 1.342e12});
  EXPECT_CLOSE(a.tokens_per_param, 18.4, 2e-3);
  EXPECT_CLOSE(allocate(law("epoch-2024"), 3.8e25).params, 6.187e11, 1e-3);
  CHECK(std::string(kDefaultLaw) == "epoch-2024");
}

TEST_CASE("Kaplan Table 6 frontier: 1e21 FLOPs = 11.574 PF-days gives 7.77e9 parameters") {
  const auto& k = law("kaplan-2020");
  EXPECT_CLOSE(1e21 / std::get<isoflop::catalog::KaplanLaw>(k.form).flops_per_pf_day, 11.574, 1e-4);
  const Allocation a = allocate(k, 1e21);
  EXPECT_CLOSE(a.params, 7.77e9, 1e-3);
  EXPECT_CLOSE(allocate(k, 1e22).params / a.params, 5.37, 1e-3);  // 10× compute → N × 10^0.73
  CHECK(a.loss);
}

TEST_CASE("power-law allocations: DeepSeek and Llama 3 (which does not reproduce its 16.55T)") {
  const Allocation d = allocate(law("deepseek-2024"), 1e24);
  EXPECT_CLOSE(d.tokens, 5.8316 * std::pow(1e24, 0.4757), 1e-12);
  EXPECT_CLOSE(6 * d.params * d.tokens, 1e24, 1e-12);
  CHECK_FALSE(d.loss);
  const Allocation l = allocate(law("llama3-2024"), 3.8e25);
  CHECK(l.tokens < 0.7 * 16.55e12);
  CHECK(law("llama3-2024").note.find("16.55T") != std::string::npos);
}

TEST_CASE("round trip: optimal(flops(N)) = N, and the same for tokens, under every law") {
  for (const auto& l : test::shipped_catalog().laws) {
    CAPTURE(l.name);
    for (double n : {4e8, 7e10, 1e13}) {
      const Allocation inv = allocate_for_params(l, n);
      EXPECT_CLOSE(allocate(l, inv.flops).params, n, 1e-9);
    }
    for (double d : {1e10, 1.4e12}) {
      const Allocation inv = allocate_for_tokens(l, d);
      EXPECT_CLOSE(allocate(l, inv.flops).tokens, d, 1e-9);
    }
  }
}

TEST_CASE("inverse queries against the reference values") {
  const Allocation tex = allocate_for_params(law("chinchilla-tex"), 400e6);
  EXPECT_CLOSE(tex.flops, 2.35e19, 2e-3);
  EXPECT_CLOSE(tex.tokens, 9.79e9, 2e-3);
  EXPECT_CLOSE(allocate_for_params(law("chinchilla-tex"), 67e9).flops, 1.75e24, 3e-3);
  const Allocation epoch = allocate_for_params(law("epoch-2024"), 1e9);
  EXPECT_CLOSE(epoch.flops, 1.36e20, 3e-3);
  EXPECT_CLOSE(epoch.tokens, 2.27e10, 3e-3);
}

TEST_CASE("optimal loss falls monotonically with compute") {
  for (const char* name : {"chinchilla", "chinchilla-tex", "epoch-2024", "kaplan-2020", "muennighoff-2023"}) {
    CAPTURE(name);
    double previous = INFINITY;
    for (double c = 1e18; c <= 1e27; c *= 3) {
      const double loss = *allocate(law(name), c).loss;
      CHECK(loss < previous);
      previous = loss;
    }
  }
}

TEST_CASE("target loss: minimum compute, and a target at or below E is unreachable") {
  const auto& e = law("epoch-2024");
  const Allocation a = allocate(e, 5.88e23);
  const Allocation back = allocate_for_loss(e, *a.loss);
  EXPECT_CLOSE(back.flops, 5.88e23, 1e-9);
  EXPECT_CLOSE(back.params, a.params, 1e-9);
  // No budget reaches it: infeasible (exit 1), not invalid input.
  CHECK_THROWS_AS(allocate_for_loss(e, 1.8), InfeasibleError);  // below E = 1.8172
  CHECK_THROWS_AS(allocate_for_loss(e, e.parametric()->E), InfeasibleError);
  try {
    allocate_for_loss(e, 1.5);
  } catch (const InfeasibleError& err) {
    CHECK(std::string(err.what()).find("unreachable") != std::string::npos);
  }
  CHECK_THROWS_AS(allocate_for_loss(law("chinchilla-approach1"), 2.0), InputError);
  const Allocation k = allocate_for_loss(law("kaplan-2020"), 2.5);
  EXPECT_CLOSE(*k.loss, 2.5, 1e-9);
}

TEST_CASE("target loss under an interaction law: the budget's own loss gives the budget back, on the contour") {
  const auto bottleneck = law_from_params("1.8172,482.01,2085.43,0.3478,0.3658,0.6");  // epoch-2024's, gamma 0.6
  const Allocation a = allocate(bottleneck, 5.88e23);
  const Allocation back = allocate_for_loss(bottleneck, *a.loss);
  EXPECT_CLOSE(back.flops, 5.88e23, 1e-9);
  EXPECT_CLOSE(back.params, a.params, 1e-9);
  // Fixed parameters: the tokens that reach the target lie on its contour (the closed form solved for D).
  const Allocation fixed = allocate_fixed_params_for_loss(bottleneck, a.params / 2, *a.loss);
  EXPECT_CLOSE(predicted_loss(bottleneck, fixed.params, fixed.tokens), *a.loss, 1e-9);
  CHECK(fixed.flops > a.flops);  // off the optimum the same loss costs more
}

TEST_CASE("fixed parameters or tokens under a budget, and fixed parameters for a target loss") {
  const auto& c = law("chinchilla");
  const Allocation n = allocate_fixed_params(c, 5.76e23, 70e9);
  EXPECT_CLOSE(n.tokens, 5.76e23 / (6 * 70e9), 1e-12);
  CHECK(*n.loss > *allocate(c, 5.76e23).loss);  // off the optimum costs loss
  const Allocation d = allocate_fixed_tokens(c, 5.76e23, 1.4e12);
  EXPECT_CLOSE(d.params, 5.76e23 / (6 * 1.4e12), 1e-12);
  const Allocation f = allocate_fixed_params_for_loss(c, 70e9, 1.95);
  EXPECT_CLOSE(*f.loss, 1.95, 1e-9);
  CHECK_THROWS_AS(allocate_fixed_params_for_loss(c, 1e6, 1.95), InfeasibleError);  // too small a model
}

TEST_CASE("bad budgets and constraints are rejected") {
  const auto& c = law("chinchilla");
  CHECK_THROWS_AS(allocate(c, -1), InputError);
  CHECK_THROWS_AS(allocate(c, 0), InputError);
  CHECK_THROWS_AS(allocate(c, INFINITY), InputError);
  CHECK_THROWS_AS(allocate(c, std::nan("")), InputError);
  AllocationConstraints u;
  u.unique_tokens = -5;
  CHECK_THROWS_AS(allocate(law("muennighoff-2023"), 1e22, u), InputError);
  u.unique_tokens = 1e10;
  CHECK_THROWS_AS(allocate(law("kaplan-2020"), 1e22, u), InputError);
  CHECK_THROWS_AS(allocate(law("chinchilla-approach1"), 1e22, u), InputError);
  AllocationConstraints t;
  t.inference_tokens = -1;
  CHECK_THROWS_AS(allocate(c, 1e22, t), InputError);
}
