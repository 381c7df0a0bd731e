// Text from the input printed to a terminal: a name or a message may hold a newline or a terminal's escape
// sequence, which would break a line or recolour (or retitle) the user's terminal.
#pragma once

#include <string>

namespace isoflop {

// `text` with each control character written as an escape (\n, \r, \t, \x1b …), so that it stays one line and
// prints as the characters it holds. Other bytes, UTF-8 included, are unchanged.
std::string printable(const std::string& text);

}  // namespace isoflop
