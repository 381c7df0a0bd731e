// Reading an input the user named: a file, or "-" for standard input.
#pragma once

#include <string>

namespace isoflop {

// The whole text of `path`, or of standard input when `path` is "-". Throws InputError naming the path and
// the reason ("plan.json: cannot read: No such file or directory").
std::string read_input_text(const std::string& path);

// How an input is named in messages: the path, or "<stdin>" for "-".
std::string input_name(const std::string& path);

}  // namespace isoflop
