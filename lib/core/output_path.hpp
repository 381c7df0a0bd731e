// The rules for every file a command writes on the user's behalf (a figure, a saved law, a curve): one
// place that decides whether a path may be written, so that nothing a user owns is lost by accident.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/spelling.hpp"

namespace isoflop {

// Remembers a file the command reads (by device and inode), so that no output can replace it while its path
// still leads to it (a deleted input's inode number may be given to a new file). Called by read_input_text for
// every file it reads; call it for inputs read otherwise. Missing files are ignored.
void note_input(const std::string& path);
// The same for an open descriptor (standard input redirected from a file).
void note_input_fd(int fd);
// note_input for every file in `folder` (nothing when it cannot be read): a folder whose files are all inputs.
void note_folder_inputs(const std::string& folder);
// Takes `path` off the inputs again: for a file noted wholesale (every file of a catalog overlay folder) that
// this command does not read and is asked to write (a law saved into that folder).
void forget_input(const std::string& path);

// How one output may be written.
struct OutputRules {
  bool replace = false;  // an existing regular file may be replaced
  // What the user does to allow replacing, appended to "x exists; " (the command line says its flag).
  std::string replace_hint = "replacing it was not allowed";
};

// Where an output will be written after the rules were checked: `path` as named, and `target`, the file
// the bytes go to (different when `path` is a symbolic link; then `via_link` is true).
struct OutputTarget {
  std::string path;
  std::string target;
  bool via_link = false;
};

// Checks `path` against the rules; throws InputError "<what>: <reason>" (the target untouched) when it is
// empty or "-" (standard output is not one of these files), one of the command's inputs, a directory, not a regular
// file (device, FIFO, socket), a link to nowhere, in a folder that does not exist, or exists and `rules.replace` is
// false.
OutputTarget check_output_path(const std::string& path, const std::string& what, const OutputRules& rules);

// Checks `path` and writes `content` all-or-nothing: a temporary file created exclusively in the target's
// folder, flushed, then renamed into place (never over a file that appeared meanwhile unless replacing is
// allowed); the temporary file is removed on every failure. Returns where the bytes went.
OutputTarget write_output(const std::string& path, const std::string& content, const std::string& what,
                          const OutputRules& rules);

// One of the files a command will write, and how messages name it ("--plot", "checkpoint.path").
struct PlannedOutput {
  std::string path;
  std::string what;
};
// Throws InputError "<what>: '<path>' is also the <other what> file; name a file of its own" when two of
// `outputs` are one file (links followed; files and folders that do not exist yet are compared by name), so
// that no output of a command replaces another. Call it before the work.
void require_distinct_outputs(const std::vector<PlannedOutput>& outputs);

// The files a caller names for a library call to write (a figure, a saved law): the rules they are written
// under, the caller's names for their fields in messages (Spelling: plot → --plot), and who hears of
// each file written (a command line says "wrote PATH").
struct NamedOutputs {
  OutputRules rules;
  Spelling spell = nullptr;
  std::function<void(const OutputTarget&)> on_written;  // after each file is written (none: nothing)

  // check_output_path for the file that the field `field` names.
  OutputTarget check(const std::string& path, std::string_view field) const;
  // write_output under `rules`, then on_written.
  OutputTarget write(const std::string& path, const std::string& content, std::string_view field) const;
};

// Checks a folder a command writes its files into: it is a folder, or it can be made (its parent folder exists).
// Returns whether it exists already. Throws InputError "<what>: …" for a path that is not a folder (a file) and
// for a missing parent.
bool check_output_folder(const std::string& path, const std::string& what);
// Creates that folder when it does not exist yet (the folder only, never missing parents).
void make_output_folder(const std::string& path, const std::string& what);

}  // namespace isoflop
