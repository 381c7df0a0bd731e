// The output folder of a training run, held for the whole run: locked against a second trainer, cleared of
// the temporary files a killed run left, and every file the run will write checked before the first step.
#pragma once

#include <string>
#include <vector>

#include "core/folder_lock.hpp"
#include "core/output_path.hpp"
#include "train/job.hpp"

namespace isoflop::train {

// A file the run writes besides its checkpoint (the results, the loss curve, a figure), under `rules`.
struct RunOutput {
  std::string path;
  std::string what;  // the field or option that named it, for messages
  OutputRules rules;
};

class RunFolder {
 public:
  // When job.output exists already, locks it now (before its checkpoint is read) and removes stale
  // temporary files; a folder another trainer holds is an InputError "output folder 'x' is in use by pid N".
  explicit RunFolder(const Job& job, std::vector<RunOutput> outputs = {});

  // Called once the job has been checked, before anything is written: creates the output folder and the
  // checkpoint's, locks the output folder (if not yet), removes stale temporary files there, and checks
  // each output and the checkpoint path (core/output_path.hpp's rules; no two the same file) and that
  // each folder takes a new file. Throws InputError naming the path.
  void prepare();

  // The stale temporary files removed so far.
  const std::vector<std::string>& removed() const { return removed_; }

 private:
  void lock_and_clean();

  std::string output_;
  std::string checkpoint_;
  std::vector<RunOutput> outputs_;
  FolderLock lock_;
  std::vector<std::string> removed_;
};

}  // namespace isoflop::train
