// Writing files all-or-nothing: a temporary file beside the target, renamed into place.
#pragma once

#include <string>
#include <vector>

namespace isoflop {

// Writes `content` to `path` atomically, replacing what is there; on failure the target is untouched, the
// temporary file is gone and InputError names the path and the reason (`what` names the field or option
// that named the path, e.g. "plot"). Files a user named go through write_output (core/output_path.hpp),
// which checks the rules first; this is for files the program owns (checkpoints, results it manages).
void write_file_atomically(const std::string& path, const std::string& content, const std::string& what);

// Names a temporary file for `path` ("<dir>/.<name>.isoflop-tmp.<pid>.<n>"), created with O_EXCL, and
// writes and syncs `content` into it. Returns its name; throws InputError (with the file removed) on failure.
std::string write_temporary_beside(const std::string& path, const std::string& content, const std::string& what,
                                   unsigned mode);

// Whether `filename` (no folder) is a temporary file this scheme names: ".<name>.isoflop-tmp.<pid>.<n>".
bool is_temporary_name(const std::string& filename);

// Removes the temporary files in `folder` whose writer is gone (its pid is no running process): what a
// kill -9 during a save leaves behind. A live writer's file is left alone. Returns the paths removed.
std::vector<std::string> remove_stale_temporaries(const std::string& folder);

}  // namespace isoflop
