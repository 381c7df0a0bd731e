// Tests for the shared L-BFGS descent: bounds hold, and the projected-gradient test stops a descent whose optimum
// lies on a bound.
#include "fit/lbfgs.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace isoflop::fit {

TEST_CASE("an L-BFGS descent: the unbounded optimum, and an optimum on a bound reached and stopped at") {
  // f = (x − 3)² + (y + 1)², minimum at (3, −1).
  const auto f = [](const double* x, double* grad) {
    if (grad) {
      grad[0] = 2 * (x[0] - 3);
      grad[1] = 2 * (x[1] + 1);
    }
    return (x[0] - 3) * (x[0] - 3) + (x[1] + 1) * (x[1] + 1);
  };
  const DescentResult<2> free = lbfgs_descent(f, std::array<double, 2>{0, 0}, DescentRules{});
  CHECK(std::fabs(free.x[0] - 3) < 1e-6);
  CHECK(std::fabs(free.x[1] + 1) < 1e-6);
  CHECK_FALSE(free.failed);
  // x ≤ 1 and y ≥ 0: the optimum is the corner (1, 0), where the gradient (−4, 2) points out of the box. The
  // projected gradient is 0 there, so the descent stops without running to max_evals.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::array<double, 2> lower{-kInf, 0}, upper{1, kInf};
  DescentRules rules;
  rules.ftol = 1e-300;  // only the gradient test (or max_evals) can end it
  rules.max_evals = 1000;
  const DescentResult<2> boxed = lbfgs_descent(f, std::array<double, 2>{-2, 3}, rules, &lower, &upper);
  CHECK(boxed.x[0] == doctest::Approx(1));
  CHECK(boxed.x[1] == doctest::Approx(0).epsilon(1e-12));
  CHECK(boxed.f == doctest::Approx(5));
  CHECK(boxed.evaluations < 100);
  CHECK_FALSE(boxed.failed);
}

}  // namespace isoflop::fit
