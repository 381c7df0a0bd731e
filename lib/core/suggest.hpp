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

// The entry of a table of named entries (a `name` member) called `name`, or null.
template <class Entry>
const Entry* find_named(const std::vector<Entry>& table, std::string_view name) {
  for (const auto& e : table)
    if (name == e.name) return &e;
  return nullptr;
}

// Every entry's name, in the table's order — the candidates of did_you_mean.
template <class Entry>
std::vector<std::string> names_of(const std::vector<Entry>& table) {
  std::vector<std::string> names;
  names.reserve(table.size());
  for (const auto& e : table) names.emplace_back(e.name);
  return names;
}

// "a, b, c" — for listing what is accepted.
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");
// "a, b and c" — for naming the things a message is about in a sentence.
std::string join_words(const std::vector<std::string>& items);

}  // namespace isoflop
