// The stopping rules of one L-BFGS descent (fit/lbfgs.hpp), the ones scipy's L-BFGS-B applies by default.
#pragma once

#include <cmath>

#include "core/error.hpp"

namespace isoflop::fit {

struct DescentRules {
  // Stop when an iteration improves the objective by ≤ ftol·max(|f|, 1) (scipy's factr 1e7 × machine epsilon),
  // when every component of the projected gradient is ≤ gtol in magnitude (scipy's pgtol), or after max_evals
  // evaluations (scipy's maxfun).
  double ftol = 2.220446049250313e-9;
  double gtol = 1e-5;
  int max_evals = 15000;
  void validate() const {
    if (!(ftol > 0) || !(ftol < 1)) throw FieldError("ftol", "must be in (0, 1)");
    if (!(gtol >= 0) || !std::isfinite(gtol)) throw FieldError("gtol", "must be 0 or more");
    if (max_evals < 1) throw FieldError("max_evals", "must be at least 1");
  }
};

}  // namespace isoflop::fit
