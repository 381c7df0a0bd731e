// Branch-free exp, log and reciprocal for the Approach-3 objective's log-sum-exp, written so that a loop
// over runs vectorises (no calls into libm, no data-dependent branches). They cover exactly the ranges that
// LSE(u, v, e) = m + log(e^(u−m) + e^(v−m) + e^(e−m)), m = max(u, v, e), needs: exp of a non-positive
// argument, and log and reciprocal of a sum in [1, 3]. All are accurate to a few units in the last place;
// the tests compare them with std::exp, std::log and division.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace isoflop::fit {

// c[0]·x^(N−1) + c[1]·x^(N−2) + … + c[N−1] by Horner's rule; the fixed count unrolls, so loops over it still
// vectorise.
template <std::size_t N>
inline double horner(double x, const std::array<double, N>& c) {
  double p = c[0];
  for (std::size_t i = 1; i < N; ++i) p = p * x + c[i];
  return p;
}

// e^x for x ≤ 0. Arguments below −708 return e^−708 ≈ 3e−308 instead of underflowing to subnormals: in a
// sum whose largest term is 1 the difference is far below one ulp.
inline double exp_nonpositive(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split so that k·kLn2Hi is exact (fdlibm)
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShifter = 6755399441055744.0;        // 1.5·2^52: adding it rounds to an integer
  x = x < -708.0 ? -708.0 : x;
  // x = k·ln 2 + r with |r| ≤ ln 2 / 2; the shifter's low mantissa bits then hold k as an integer.
  const double shifted = x * kLog2e + kShifter;
  const double k = shifted - kShifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series to r^12: the remainder r^13/13! < 2e−16 (about one ulp) for |r| ≤ 0.347.
  constexpr std::array<double, 13> kInverseFactorials = {
      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
      1.0 / 120.0,       1.0 / 24.0,       1.0 / 6.0,       0.5,            1.0,           1.0};  // 1/12! … 1/0!
  const double p = horner(r, kInverseFactorials);
  // 2^k: k (−1022 ≤ k ≤ 0) into the exponent field, read from the shifted value's low bits.
  const uint64_t bits = std::bit_cast<uint64_t>(shifted);
  return p * std::bit_cast<double>((bits << 52) + (uint64_t{1023} << 52));
}

// ln s and 1/s for 1 ≤ s ≤ 3 from a single division, the slowest operation here (the objective needs
// both: 1/s turns the LSE's terms into its gradient's softmax weights). s above √2 is halved (adding ln 2) so s' ∈ [0.70, 1.5], then
// ln s' = 2·atanh(t) with t = (s' − 1)/(s' + 1), |t| ≤ 0.2: the odd series to t^23 leaves < 1e−18.
// q = 1/(s·(s' + 1)) gives t = (s' − 1)·s·q and 1/s = (s' + 1)·q, each within a few ulp; an error of a
// few ulp in the small t moves ln s by less than 1e−16.
struct LogReciprocal {
  double log, reciprocal;
};
inline LogReciprocal log_reciprocal_one_to_three(double s) {
  constexpr double kLn2 = 0.6931471805599453;
  constexpr double kSqrt2 = 1.4142135623730951;
  const bool halve = s > kSqrt2;
  const double reduced = halve ? s * 0.5 : s;
  const double denominator = reduced + 1.0;
  const double q = 1.0 / (s * denominator);
  const double t = (reduced - 1.0) * s * q;
  const double t2 = t * t;
  constexpr std::array<double, 12> kInverseOdds = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13,
                                                   1.0 / 11, 1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
  const double p = horner(t2, kInverseOdds);  // atanh(t)/t = Σ t^2i/(2i + 1)
  return {2.0 * t * p + (halve ? kLn2 : 0.0), denominator * q};
}

}  // namespace isoflop::fit
