// Helpers shared by the allocation files (not part of the public API).
#pragma once

#include <optional>
#include <string>

#include "catalog/laws.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::scaling::detail {

// Throws InputError "<what> must be a finite positive number, got <value>".
void require_finite_positive(double value, const std::string& what);

// A number for a message, 6 significant digits.
std::string number_text(double value);
// `value` in as many significant digits (6 to 17) as tell it apart from `other`, so that a message comparing
// two close numbers never prints them alike; `exact`: and as many as read back to `value` (a number the user
// typed, shown as typed).
std::string number_text_beside(double value, double other, bool exact = false);

// An Allocation with tokens_per_param, epochs and (for loss laws) the predicted loss filled in.
Allocation make_allocation(const catalog::LawSpec& law, const std::string& method, double flops, double params,
                           double tokens, const std::optional<double>& unique_tokens);

// The widest budget range the numeric searches consider, in FLOPs: far below any training run and far above
// any the laws were fitted near, so a target outside it is reported as unreachable rather than extrapolated.
inline constexpr double kMinSearchFlops = 1.0;
inline constexpr double kMaxSearchFlops = 1e60;

}  // namespace isoflop::scaling::detail
