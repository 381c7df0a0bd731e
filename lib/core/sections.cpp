// Reading one named section of a sectioned text.
#include "core/sections.hpp"

#include <algorithm>

namespace isoflop {

std::optional<std::vector<std::string_view>> text_section(std::string_view text, std::string_view name) {
  std::vector<std::string_view> lines;
  bool inside = false, found = false;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with('#')) continue;
    if (line.starts_with('[') && line.ends_with(']')) {
      inside = line.substr(1, line.size() - 2) == name;
      found = found || inside;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (!found) return std::nullopt;
  return lines;
}

std::vector<std::string> logical_lines(const std::vector<std::string_view>& lines) {
  std::vector<std::string> out;
  for (const auto line : lines) {
    if (line.empty()) continue;
    if (line.starts_with(' ') && !out.empty())
      out.back().append(" ").append(line.substr(line.find_first_not_of(' ')));
    else
      out.emplace_back(line);
  }
  return out;
}

std::string join_lines(const std::vector<std::string_view>& lines) {
  std::string out;
  for (const auto line : lines) out.append(out.empty() ? "" : "\n").append(line);
  return out;
}

}  // namespace isoflop
