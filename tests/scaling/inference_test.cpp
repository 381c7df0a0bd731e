// Tests for inference-aware allocation (Sardana et al. 2024) and unique-token caps (Muennighoff et al. 2023).
#include <doctest/doctest.h>

#include <cmath>

#include "scaling/allocate.hpp"
#include "scaling/laws_fixture.hpp"
#include "scaling/loss_law.hpp"
#include "support/expect_close.hpp"

using namespace isoflop::scaling;
using namespace isoflop::test;

namespace {
AllocationConstraints demand(double tokens) {
  AllocationConstraints c;
  c.inference_tokens = tokens;
  return c;
}
}  // namespace

TEST_CASE("zero inference demand gives the compute-optimal answer") {
  for (const char* name : {"chinchilla", "epoch-2024"}) {
    CAPTURE(name);
    const Allocation plain = allocate(law(name), 5.76e23);
    const Allocation zero = allocate(law(name), 5.76e23, demand(0));
    CHECK(zero.method == "numeric");
    EXPECT_CLOSE(zero.params, plain.params, 1e-6);
    EXPECT_CLOSE(zero.tokens, plain.tokens, 1e-6);
    EXPECT_CLOSE(*zero.loss, *plain.loss, 1e-12);
  }
}

TEST_CASE("with demand N falls and D rises monotonically — total FLOPs never exceed the compute-optimal model's") {
  const auto& l = law("chinchilla");
  const Allocation plain = allocate(l, 5.76e23);
  double previous_n = plain.params * (1 + 1e-6), previous_d = plain.tokens * (1 - 1e-6);
  for (double t : {1e11, 1e12, 1e13, 1e14, 1e15}) {
    CAPTURE(t);
    const Allocation a = allocate(l, 5.76e23, demand(t));
    CHECK(a.params < previous_n);
    CHECK(a.tokens > previous_d);
    EXPECT_CLOSE(*a.loss, *plain.loss, 1e-12);
    CHECK(*a.total_flops <= *a.compute_optimal_total_flops * (1 + 1e-12));
    EXPECT_CLOSE(*a.compute_optimal_total_flops, plain.flops + 2 * plain.params * t, 1e-9);
    previous_n = a.params;
    previous_d = a.tokens;
  }
}

TEST_CASE("first-order optimality: cost and loss gradients are parallel to 1e-6") {
  const auto& law_spec = law("epoch-2024");
  const auto& l = *law_spec.parametric();
  for (double t : {0.0, 1e12, 1e14}) {
    CAPTURE(t);
    const Allocation a = allocate(law_spec, 1e24, demand(t));
    const double n = a.params, d = a.tokens;
    // Lagrange: (∂cost/∂N)/(∂L/∂N) = (∂cost/∂D)/(∂L/∂D), cost = 6ND + 2NT, L = E + A/N^α + B/D^β.
    const double dl_dn = -l.alpha * l.A * std::pow(n, -l.alpha - 1);
    const double dl_dd = -l.beta * l.B * std::pow(d, -l.beta - 1);
    const double lhs = (6 * d + 2 * t) / dl_dn;
    const double rhs = (6 * n) / dl_dd;
    EXPECT_CLOSE(lhs, rhs, 1e-6);
  }
}

TEST_CASE("Muennighoff optimal allocation with 25B unique tokens matches the README's grid search") {
  const auto& m = law("muennighoff-2023");
  AllocationConstraints c;
  c.unique_tokens = 25e9;
  const double flops = 6 * 8.67e9 * 178e9;
  const Allocation a = allocate(m, flops, c);
  EXPECT_CLOSE(a.params, 6.813e9, 5e-3);
  EXPECT_CLOSE(a.tokens, 2.265e11, 5e-3);
  EXPECT_CLOSE(*a.epochs, 9.061, 5e-3);
  CHECK(*a.loss <= 2.225269 + 1e-7);  // a continuous optimum is at least as good as the 500-point grid
  CHECK(*a.loss < predicted_loss(m, 8.67e9, 178e9, 25e9));
}

TEST_CASE("a unique-token cap moves a parametric law to more parameters and fewer tokens") {
  const auto repeated = with_repetition_decay(law("chinchilla"), law("muennighoff-2023"));
  const Allocation free = allocate(repeated, 5.76e23);
  AllocationConstraints c;
  c.unique_tokens = free.tokens / 4;
  const Allocation capped = allocate(repeated, 5.76e23, c);
  CHECK(capped.params > free.params);
  CHECK(capped.tokens < free.tokens);
  CHECK(*capped.loss > *free.loss);
  c.unique_tokens = free.tokens * 2;  // a cap that does not bind changes nothing
  EXPECT_CLOSE(allocate(repeated, 5.76e23, c).params, free.params, 1e-12);
}

TEST_CASE("target loss with a unique-token cap below the reachable floor is rejected") {
  const auto& m = law("muennighoff-2023");
  AllocationConstraints c;
  c.unique_tokens = 1e9;
  CHECK_THROWS_AS(allocate_for_loss(m, 1.9, c), isoflop::InfeasibleError);
  const Allocation a = allocate_for_loss(m, 3.0, c);
  EXPECT_CLOSE(*a.loss, 3.0, 1e-9);
}
