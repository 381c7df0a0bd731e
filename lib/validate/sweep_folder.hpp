// A sweep on disk: DIR/sweep.json (the sweep document), DIR/jobs/<id>.yaml (one `isoflop train` job per run,
// output DIR/runs/<id>), DIR/run.sh (runs it here) and DIR/slurm.sh (a SLURM array, one run per task).
#pragma once

#include <string>
#include <vector>

#include "doc/sweep_document.hpp"

namespace isoflop::validate {

inline constexpr const char* kSweepFile = "sweep.json";

// Writes the folder, each file all-or-nothing (core/output_path.hpp). A folder holding another sweep, or files
// that are not a sweep, is refused (FieldError "emit"); the same sweep again rewrites its files and keeps the
// runs. `max_parallel` caps the SLURM array's concurrent tasks. Returns the files written, relative to `dir`.
std::vector<std::string> write_sweep_folder(const doc::SweepDocument& sweep, const std::string& dir, int max_parallel);

// DIR/sweep.json read back; a folder without one is a FieldError("sweep folder", …).
doc::SweepDocument read_sweep_folder(const std::string& dir);

// The SLURM array script: #SBATCH --array=0-<runs-1>%<max_parallel>, and $SLURM_ARRAY_TASK_ID picks the job.
std::string slurm_script(const doc::SweepDocument& sweep, int max_parallel);
// The local script: `isoflop validate run` on its own folder.
std::string local_script(const doc::SweepDocument& sweep);

}  // namespace isoflop::validate
