// The table of integer sanity limits.
#include "units/integer_limits.hpp"

#include <string>

#include "core/error.hpp"

namespace isoflop::units {
namespace {

struct IntegerLimit {
  std::string_view field;
  long long high;
};
constexpr IntegerLimit kIntegerLimits[] = {
    {"seq", 1LL << 24},            // tokens per sequence
    {"vocab", 1LL << 24},          // vocabulary entries
    {"global_batch", 1LL << 30},   // sequences per step
    {"gpus_per_node", 1LL << 16},  // accelerators in one node
};

}  // namespace

std::optional<long long> integer_limit(std::string_view field) {
  for (const auto& l : kIntegerLimits)
    if (l.field == field) return l.high;
  return std::nullopt;
}

void check_integer_limit(std::string_view field, long long value, Sign sign) {
  const auto high = integer_limit(field);
  if (high && value > *high)
    throw FieldError(std::string(field), std::to_string(value) + " is out of range; accepted: a whole number from " +
                                             (sign == Sign::kPositive ? "1" : "0") + " to " + std::to_string(*high));
}

}  // namespace isoflop::units
