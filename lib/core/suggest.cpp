// "Did you mean …?" suggestions: a small edit-distance search over the accepted names.
#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace isoflop {

int edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      const int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);  // transposition
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  int best_distance = 1 << 30;
  int prefix_hits = 0;
  std::string prefix_hit;
  for (const auto& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
    if (!word.empty() && c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
      ++prefix_hits;
      prefix_hit = c;
    }
  }
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  if (best_distance <= limit) return best;
  if (prefix_hits == 1) return prefix_hit;
  return "";
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string match = closest_match(word, candidates);
  return match.empty() ? std::string() : " (did you mean '" + match + "'?)";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string join_words(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace isoflop
