// Sanity limits of the integer fields whose value feeds products and powers (a sequence of 1e11 tokens or 1e10
// GPUs in a node overflows what is computed from it): checked when the value is read, before any arithmetic.
// The bounds are far beyond real runs.
#pragma once

#include <optional>
#include <string_view>

#include "units/quantity.hpp"

namespace isoflop::units {

// The largest token count a training run may have (a job's train.tokens, a launch config's samples): a thousand
// times the longest published runs, and small enough that every step and sample count made from it stays
// exact in a 64-bit integer.
inline constexpr double kMaxTrainingTokens = 1e16;

// The largest value `field` accepts ("seq" → 2^24 tokens), or nothing for a field without a limit.
std::optional<long long> integer_limit(std::string_view field);

// Throws FieldError(field, "N is out of range; accepted: a whole number from 1 to MAX") when `value` is over the
// field's limit (from 0 when `sign` admits zero).
void check_integer_limit(std::string_view field, long long value, Sign sign = Sign::kPositive);

}  // namespace isoflop::units
