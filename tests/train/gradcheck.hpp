// Finite-difference gradient checking for the trainer tests: central differences in double precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

namespace isoflop::train::test {

// Largest |analytic − numeric| over the checked entries, divided by the largest |numeric| (≥ 1e-12).
// `indices` empty means every entry of `x`. Central differences with step h have error O(h²·f''').
inline double gradient_error(std::vector<double>& x, const std::function<double()>& loss,
                             const std::vector<double>& analytic, std::vector<size_t> indices = {},
                             double h = 1e-5) {
  if (indices.empty())
    for (size_t i = 0; i < x.size(); ++i) indices.push_back(i);
  double max_diff = 0, max_ref = 1e-12;
  for (size_t i : indices) {
    const double saved = x[i];
    x[i] = saved + h;
    const double up = loss();
    x[i] = saved - h;
    const double down = loss();
    x[i] = saved;
    const double numeric = (up - down) / (2 * h);
    max_diff = std::max(max_diff, std::fabs(numeric - analytic[i]));
    max_ref = std::max(max_ref, std::fabs(numeric));
  }
  return max_diff / max_ref;
}

}  // namespace isoflop::train::test
