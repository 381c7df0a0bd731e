// Parsing CSV text into a header and rows with line numbers; typed cell reads with located errors.
#include "fit/csv_table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace isoflop::fit {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Splits one record starting at `pos`; advances `pos` past the record and counts newlines in `line`.
std::vector<std::string> split_record(const std::string& text, size_t* pos, int* line, const std::string& file) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false, was_quoted = false;
  const int start_line = *line;
  size_t i = *pos;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++*line;
        cell += c;
      }
    } else if (c == '"' && trim(cell).empty()) {
      quoted = was_quoted = true;
      cell.clear();
    } else if (c == ',') {
      cells.push_back(was_quoted ? cell : trim(cell));
      cell.clear();
      was_quoted = false;
    } else if (c == '\n') {
      break;
    } else if (c == '\r' && (i + 1 == text.size() || text[i + 1] == '\n')) {
      continue;  // CRLF line ends (a spreadsheet's export) read like LF
    } else {
      cell += c;
    }
  }
  if (quoted) throw InputError(file + ":" + std::to_string(start_line) + ": unterminated quoted field");
  cells.push_back(was_quoted ? cell : trim(cell));
  *pos = i < text.size() ? i + 1 : i;
  ++*line;
  return cells;
}

}  // namespace

std::optional<size_t> CsvTable::find(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

size_t CsvTable::require(const std::string& name, const std::string& option) const {
  if (auto i = find(name)) return *i;
  throw FieldError(option, file + ":1: missing column '" + name + "'" + did_you_mean(name, header) +
                          "; columns are " + join(header));
}

std::string CsvTable::where(const CsvRow& row, size_t column) const {
  return file + ":" + std::to_string(row.line) + ": column " + std::to_string(column + 1) + " ('" + header[column] +
         "')";
}

std::string CsvTable::text(const CsvRow& row, size_t column) const {
  if (row.cells[column].empty()) throw InputError(where(row, column) + ": empty value");
  return row.cells[column];
}

double CsvTable::positive(const CsvRow& row, size_t column) const {
  const std::string& cell = text(row, column);
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end == cell.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
    throw InputError(where(row, column) + ": '" + cell + "' is not a number (a cell takes a plain number: 1e8, 0.5)");
  if (!(value > 0)) throw InputError(where(row, column) + ": " + cell + " must be positive");
  return value;
}

CsvTable parse_csv(const std::string& text, const std::string& file) {
  CsvTable table;
  table.file = file;
  size_t pos = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte-order mark is no part of the header
  int line = 1;
  bool have_header = false;
  while (pos < text.size()) {
    // Skip blank and comment lines.
    const size_t eol = text.find('\n', pos);
    const std::string raw = trim(text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos));
    if (raw.empty() || raw[0] == '#') {
      pos = eol == std::string::npos ? text.size() : eol + 1;
      ++line;
      continue;
    }
    const int record_line = line;
    std::vector<std::string> cells = split_record(text, &pos, &line, file);
    if (!have_header) {
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].empty())
          throw InputError(file + ":" + std::to_string(record_line) + ": column " + std::to_string(i + 1) +
                           " has an empty name");
        for (size_t j = 0; j < i; ++j)
          if (cells[j] == cells[i])
            throw InputError(file + ":" + std::to_string(record_line) + ": column " + std::to_string(i + 1) +
                             ": duplicate column name '" + cells[i] + "' (also column " + std::to_string(j + 1) + ")");
      }
      // A spreadsheet saved with another separator (';' where the decimal mark is a comma, or tabs) reads as one
      // column: say so rather than report that column missing.
      if (cells.size() == 1)
        for (const char separator : {';', '\t'})
          if (cells[0].find(separator) != std::string::npos)
            throw InputError(file + ":" + std::to_string(record_line) + ": the header '" + cells[0] +
                             "' has no comma but " + (separator == ';' ? "semicolons" : "tabs") +
                             "; the file must be comma-separated (CSV, '.' for the decimal mark)");
      table.header = std::move(cells);
      have_header = true;
      continue;
    }
    if (cells.size() != table.header.size())
      throw InputError(file + ":" + std::to_string(record_line) + ": " + std::to_string(cells.size()) +
                       " cells but the header has " + std::to_string(table.header.size()) + " columns");
    table.rows.push_back({record_line, std::move(cells)});
  }
  if (!have_header) throw InputError(file + ": empty file; expected a header line of column names");
  return table;
}

}  // namespace isoflop::fit
