// Aligned text tables for the human-readable (table) output.
#pragma once

#include <string>
#include <vector>

namespace isoflop::report {

// The UTF-8 code points in s: its width in a monospace table ("±" and "×" count once), and the count the SVG's
// text width estimate scales.
size_t code_points(const std::string& s);

// Columns are left-aligned when marked so, right-aligned otherwise (numbers).
class TextTable {
 public:
  // `right_aligned[i]` says whether column i is numeric; missing entries default to right-aligned
  // except the first column.
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_aligned = {});

  void add_row(std::vector<std::string> cells);

  // The table with a header rule, each line ending in '\n'.
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_aligned_;
  std::vector<std::vector<std::string>> rows_;
};

// "  key        value" lines for a key/value section, with keys padded to the longest.
std::string render_key_values(const std::vector<std::pair<std::string, std::string>>& items, int indent = 2);

}  // namespace isoflop::report
