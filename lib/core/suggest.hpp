// "Did you mean …?" suggestions for misspelt names (commands, options, catalog entries).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace isoflop {

// Optimal-string-alignment edit distance between a and b, case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo
// (distance at most max(2, |word|/3)), or when `word` is a prefix of exactly one candidate.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — for appending to an error message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// "a, b, c" — for listing what is accepted.
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace isoflop
