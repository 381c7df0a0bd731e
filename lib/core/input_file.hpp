// Reading an input the user named: a file, or "-" for standard input.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace isoflop {

// The most bytes an input may have: from a device, FIFO or standard input, far more than any document,
// proposal, run table or launch config, and little enough that an endless one (/dev/zero) is refused before it
// fills memory; from a regular file, room for a results.json of millions of steps.
inline constexpr size_t kMaxStreamBytes = size_t{64} << 20;
inline constexpr size_t kMaxFileBytes = size_t{1} << 30;

// The whole text of `path`, or of standard input when `path` is "-". Throws InputError naming the path and
// the reason ("plan.json: cannot read: No such file or directory", "… more than 64 MiB …").
std::string read_input_text(const std::string& path);

// Input paths with shell wildcards (*, ?, [) expanded in sorted order, for callers whose patterns arrive
// quoted (a CI variable); a path without wildcards, or that exists as it is, is kept. A pattern that matches
// nothing is an InputError naming it.
std::vector<std::string> expand_input_patterns(const std::vector<std::string>& patterns);

// How an input is named in messages: the path, or "<stdin>" for "-".
std::string input_name(const std::string& path);

}  // namespace isoflop
