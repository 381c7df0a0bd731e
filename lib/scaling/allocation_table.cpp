// Piecewise log-log interpolation of allocation tables (Hoffmann et al. 2022 Table 3).
#include "scaling/allocation_table.hpp"

#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace isoflop::scaling {
namespace {

using catalog::AllocationRow;
using catalog::LawSpec;

// One coordinate of a row (C, N or D) in log space.
using Coordinate = double AllocationRow::*;

// The exponent of coordinate `c` against ln C outside the table (1 for C itself).
const catalog::AllocationTableLaw& table_of(const LawSpec& law) {
  const auto* t = law.as<catalog::AllocationTableLaw>();
  if (!t) throw InputError("law '" + law.name + "' is not an allocation table");
  return *t;
}

double exponent_of(const LawSpec& law, Coordinate c) {
  if (c == &AllocationRow::params) return table_of(law).exponent_a;
  if (c == &AllocationRow::tokens) return table_of(law).exponent_b;
  return 1.0;
}

// Reads the table along `key` (which must increase down the rows) at `value`, returning all three coordinates.
TablePoint read_along(const LawSpec& law, Coordinate key, double value) {
  const std::vector<AllocationRow>& rows = table_of(law).rows;
  if (rows.size() < 2) throw InputError("law '" + law.name + "' needs at least 2 rows");
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (!(rows[i].*key > rows[i - 1].*key))
      throw InputError("law '" + law.name + "': rows must increase in params, flops and tokens");
  const double x = std::log(value);
  // ln C as a function of the key's log: linear inside a segment, with slope 1/exponent outside.
  double log_c = 0;
  const double key_exponent = exponent_of(law, key);
  if (value <= rows.front().*key) {
    log_c = std::log(rows.front().flops) + (x - std::log(rows.front().*key)) / key_exponent;
  } else if (value >= rows.back().*key) {
    log_c = std::log(rows.back().flops) + (x - std::log(rows.back().*key)) / key_exponent;
  } else {
    std::size_t i = 1;
    while (rows[i].*key < value) ++i;
    const double x0 = std::log(rows[i - 1].*key), x1 = std::log(rows[i].*key);
    const double t = (x - x0) / (x1 - x0);
    log_c = std::log(rows[i - 1].flops) + t * (std::log(rows[i].flops) - std::log(rows[i - 1].flops));
  }
  // N and D at that C, from the same segment (the segments coincide because each coordinate is monotone).
  const double c = key == &AllocationRow::flops ? value : std::exp(log_c);
  auto at = [&](Coordinate coord) {
    if (coord == key) return value;
    if (c <= rows.front().flops) return rows.front().*coord * std::pow(c / rows.front().flops, exponent_of(law, coord));
    if (c >= rows.back().flops) return rows.back().*coord * std::pow(c / rows.back().flops, exponent_of(law, coord));
    std::size_t i = 1;
    while (rows[i].flops < c) ++i;
    const double t = (log_c - std::log(rows[i - 1].flops)) / (std::log(rows[i].flops) - std::log(rows[i - 1].flops));
    return std::exp(std::log(rows[i - 1].*coord) + t * (std::log(rows[i].*coord) - std::log(rows[i - 1].*coord)));
  };
  return TablePoint{key == &AllocationRow::flops ? value : c, at(&AllocationRow::params), at(&AllocationRow::tokens)};
}

}  // namespace

TablePoint interpolate_table(const LawSpec& law, double flops) { return read_along(law, &AllocationRow::flops, flops); }

TablePoint table_point_for_params(const LawSpec& law, double params) {
  return read_along(law, &AllocationRow::params, params);
}

TablePoint table_point_for_tokens(const LawSpec& law, double tokens) {
  return read_along(law, &AllocationRow::tokens, tokens);
}

}  // namespace isoflop::scaling
