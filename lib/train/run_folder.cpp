// Holding a run's output folder: the lock, stale temporaries, and the output checks before training.
#include "train/run_folder.hpp"

#include <unistd.h>

#include <filesystem>
#include <set>
#include <utility>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;

fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

void create_folder(const fs::path& folder, const std::string& what) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError(what + ": cannot create '" + folder.string() + "': " + ec.message());
}

}  // namespace

RunFolder::RunFolder(const Job& job, std::vector<RunOutput> outputs)
    : output_(job.output), checkpoint_(job.checkpoint.path), outputs_(std::move(outputs)) {
  std::error_code ec;
  if (fs::is_directory(output_, ec)) lock_and_clean();
}

void RunFolder::lock_and_clean() {
  lock_ = FolderLock(output_, "output folder");
  // Under the lock no other trainer writes here; a temporary file whose writer is gone was left by a kill.
  for (const fs::path& folder : {fs::path(output_), folder_of(checkpoint_)})
    for (auto& path : remove_stale_temporaries(folder.string())) removed_.push_back(std::move(path));
}

void RunFolder::prepare() {
  std::vector<RunOutput> all = outputs_;
  all.push_back({checkpoint_, "checkpoint.path", OutputRules{true, ""}});
  std::vector<PlannedOutput> planned;
  for (const RunOutput& o : all) planned.push_back({o.path, o.what});
  require_distinct_outputs(planned);
  // The files in folders that exist already are checked before any folder is made: a refused run (a --plot
  // that exists) leaves nothing behind, not an empty output folder with its lock file.
  // A file in a folder that does not exist and that this run does not make (a --plot in a missing folder)
  // is refused here too.
  const auto made_here = [&](const fs::path& folder) {
    return folder.lexically_normal() == fs::path(output_).lexically_normal() ||
           folder.lexically_normal() == folder_of(checkpoint_).lexically_normal();
  };
  for (const RunOutput& o : all)
    if (std::error_code ec; fs::is_directory(folder_of(o.path), ec) || !made_here(folder_of(o.path)))
      (void)check_output_path(o.path, o.what, o.rules);
  create_folder(output_, "output");
  create_folder(folder_of(checkpoint_), "checkpoint.path");
  if (!lock_.held()) lock_and_clean();
  std::set<fs::path> folders;
  for (const RunOutput& o : all) {
    const OutputTarget t = check_output_path(o.path, o.what, o.rules);
    // A folder that refuses a new file (read-only, full of inodes) fails now, not after the training.
    if (folders.insert(folder_of(t.target)).second) ::unlink(write_temporary_beside(t.target, "", o.what, 0600).c_str());
  }
}

}  // namespace isoflop::train
