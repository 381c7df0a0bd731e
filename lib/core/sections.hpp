// Text in named sections, as isoflop's embedded help files are written: a line "[name]" starts a section that
// runs to the next one; lines starting with '#' are comments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isoflop {

// The lines of section `name` in `text`, without comments and trailing blank lines (views into `text`);
// nullopt when `text` has no such section. A name given twice gathers both sections' lines.
std::optional<std::vector<std::string_view>> text_section(std::string_view text, std::string_view name);

// The lines as logical lines: an indented line continues the one above (joined with one space, its indent
// dropped), blank lines are left out. An indented first line starts a line of its own.
std::vector<std::string> logical_lines(const std::vector<std::string_view>& lines);

// The lines joined with newlines, none after the last.
std::string join_lines(const std::vector<std::string_view>& lines);

}  // namespace isoflop
