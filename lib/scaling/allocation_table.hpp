// Allocation-only tables (Hoffmann et al. 2022 Table 3): log-log interpolation between rows, power-law
// extrapolation outside them.
#pragma once

#include "catalog/laws.hpp"

namespace isoflop::scaling {

struct TablePoint {
  double flops = 0;   // C, FLOPs
  double params = 0;  // N
  double tokens = 0;  // D
};

// The point at budget `flops`: between two rows, ln N and ln D are linear in ln C; below the first row or
// above the last, N ∝ C^a and D ∝ C^b with the law's exponent_a and exponent_b (Table 2, Approach 1).
// At a row's FLOPs it returns that row exactly.
TablePoint interpolate_table(const catalog::LawSpec& law, double flops);

// The point at which the table's N (or D) equals `params` (or `tokens`): the same piecewise log-log line,
// read the other way.
TablePoint table_point_for_params(const catalog::LawSpec& law, double params);
TablePoint table_point_for_tokens(const catalog::LawSpec& law, double tokens);

}  // namespace isoflop::scaling
