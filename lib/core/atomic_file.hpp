// Writing output files all-or-nothing: a temporary file beside the target, renamed into place.
#pragma once

#include <string>

namespace isoflop {

// Writes `content` to `path` atomically; on failure the target is untouched and InputError names the
// path and the reason (`what` names the field or option that named the path, e.g. "plot").
void write_file_atomically(const std::string& path, const std::string& content, const std::string& what);

}  // namespace isoflop
