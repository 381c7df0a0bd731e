// A small CSV reader for run tables: header plus rows, each cell remembering its line and column so
// every error can say "runs.csv:12: column 4 ('loss'): …".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace isoflop::fit {

struct CsvRow {
  int line = 0;                     // 1-based line of the row in the file
  std::vector<std::string> cells;   // trimmed; quotes removed
};

struct CsvTable {
  std::string file;                 // name used in messages
  std::vector<std::string> header;  // trimmed column names
  std::vector<CsvRow> rows;

  // Index of `name` in the header, or nullopt.
  std::optional<size_t> find(const std::string& name) const;
  // Index of `name`; throws InputError "file:1: missing column 'x' (given by OPTION); columns are …".
  size_t require(const std::string& name, const std::string& option) const;
  // A cell as a finite number > 0; throws InputError naming file, line, column number and name.
  double positive(const CsvRow& row, size_t column) const;
  // A cell as text; throws when empty.
  std::string text(const CsvRow& row, size_t column) const;
  // "file:LINE: column K ('name')" for messages.
  std::string where(const CsvRow& row, size_t column) const;
};

// Parses RFC 4180-style CSV (commas, optional double quotes, "" inside quotes, CRLF or LF, '#' comment
// lines and blank lines skipped). Throws InputError on an empty file, an empty or duplicate column name,
// a row with the wrong number of cells, or an unterminated quote, naming file and line.
CsvTable parse_csv(const std::string& text, const std::string& file);

}  // namespace isoflop::fit
