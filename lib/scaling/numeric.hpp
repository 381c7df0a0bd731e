// Thin wrappers over Boost.Math's root finder (TOMS 748) and 1-D minimiser (Brent) used by the allocation
// code, with the tolerances written down once.
#pragma once

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cstdint>
#include <limits>
#include <utility>

namespace isoflop::scaling::detail {

// A root of f in [lo, hi], where f(lo) and f(hi) have opposite signs (the caller checks). The bracket is
// narrowed to ~2^-50 relative width, well past the 1e-9 that any published constant supports.
template <typename F>
double find_root(F f, double lo, double hi, double f_lo, double f_hi) {
  if (f_lo == 0) return lo;
  if (f_hi == 0) return hi;
  std::uintmax_t iterations = 200;
  const auto bracket =
      boost::math::tools::toms748_solve(f, lo, hi, f_lo, f_hi, boost::math::tools::eps_tolerance<double>(50), iterations);
  return 0.5 * (bracket.first + bracket.second);
}

// The minimum of f over [lo, hi] (f unimodal there), to Brent's best precision for doubles (half the mantissa
// bits: the minimum of a smooth function is only defined to ~sqrt(eps) in x). Returns {x, f(x)}.
template <typename F>
std::pair<double, double> find_minimum(F f, double lo, double hi) {
  std::uintmax_t iterations = 500;
  return boost::math::tools::brent_find_minima(f, lo, hi, std::numeric_limits<double>::digits / 2, iterations);
}

}  // namespace isoflop::scaling::detail
