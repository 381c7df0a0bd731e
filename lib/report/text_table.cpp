// Aligned text tables: widths measured in UTF-8 code points so "±" and "×" align.
#include "report/text_table.hpp"

#include <algorithm>

#include "core/printable.hpp"

namespace isoflop::report {

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;  // every byte but a continuation byte starts a code point
  return n;
}

namespace {

std::string pad(const std::string& s, size_t width, bool right) {
  const size_t w = code_points(s);
  if (w >= width) return s;
  const std::string fill(width - w, ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_aligned_(std::move(right_aligned)) {
  const bool defaulted = right_aligned_.empty();
  right_aligned_.resize(header_.size(), true);
  if (defaulted && !right_aligned_.empty()) right_aligned_[0] = false;  // first column: labels
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  for (auto& cell : cells) cell = printable(cell);  // a name from the input prints as text, on its own row
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<size_t> widths(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) widths[i] = code_points(header_[i]);
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], code_points(row[i]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out += "  ";
      out += pad(cells[i], widths[i], right_aligned_[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::string rule;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (i) rule += "  ";
    rule += std::string(widths[i], '-');
  }
  out += rule + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string render_key_values(const std::vector<std::pair<std::string, std::string>>& items, int indent) {
  size_t width = 0;
  for (const auto& [key, _] : items) width = std::max(width, code_points(key));
  std::string out;
  for (const auto& [key, value] : items)
    out += std::string(static_cast<size_t>(indent), ' ') + pad(key, width, false) + "  " + value + "\n";
  return out;
}

}  // namespace isoflop::report
