// Writing and reading a sweep folder.
#include "validate/sweep_folder.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/folder_lock.hpp"
#include "core/output_path.hpp"
#include "report/output.hpp"
#include "train/job_writer.hpp"
#include "validate/design.hpp"

namespace isoflop::validate {
namespace {

namespace fs = std::filesystem;

// "'runs', 'jobs' and 'sweep.json' beside the scripts": what a sweep folder may hold already.
bool is_sweep_entry(const std::string& name) {
  return name == kSweepFile || name == "jobs" || name == "runs" || name == "run.sh" || name == "slurm.sh" ||
         name == "report" || name == kFolderLockName;  // the lock `validate run` holds
}

// Refuses a folder that holds another sweep or other files; true when it holds this very sweep.
bool check_folder(const doc::SweepDocument& sweep, const std::string& dir) {
  if (dir.empty()) throw FieldError("emit", "empty folder name; name a new or empty folder");
  std::error_code ec;
  // A new folder is made in one that exists, as --out's is: a mistyped parent is refused, not created.
  if (!fs::exists(dir, ec)) return check_output_folder(dir, "--emit");
  if (!fs::is_directory(dir, ec)) throw FieldError("emit", "'" + dir + "' exists and is not a folder");
  const fs::path file = fs::path(dir) / kSweepFile;
  if (fs::exists(file, ec)) {
    const bool same = read_sweep_folder(dir) == sweep;
    forget_input(file.string());  // read only to compare; the same sweep rewrites it
    if (same) return true;
    throw FieldError("emit", "'" + dir + "' holds another sweep (its sweep.json differs); choose another folder");
  }
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (!is_sweep_entry(entry.path().filename().string()))
      throw FieldError("emit", "'" + dir + "' holds files that are not a sweep ('" + entry.path().filename().string() +
                                   "'); choose an empty or new folder");
  return false;
}

void make_folder(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec) throw FieldError("emit", "cannot create '" + p.string() + "': " + ec.message());
}

}  // namespace

std::vector<std::string> write_sweep_folder(const doc::SweepDocument& sweep, const std::string& dir, int max_parallel) {
  const bool same = check_folder(sweep, dir);
  const fs::path root(dir);
  make_folder(root / "jobs");
  make_folder(root / "runs");  // SLURM opens its log files here before a task starts
  const OutputRules rules{same, "it belongs to no sweep"};
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& text) {
    write_output((root / name).string(), text, "emit", rules);
    written.push_back(name);
  };
  for (const auto& run : sweep.runs) {
    const fs::path job_file = root / run.job;
    const train::Job job = run_job(sweep, run, (root / run.folder).string());
    write(run.job, train::job_yaml(job, job_file.string()));
  }
  write("run.sh", local_script(sweep));
  write("slurm.sh", slurm_script(sweep, max_parallel));
  for (const char* script : {"run.sh", "slurm.sh"})
    fs::permissions(root / script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
  // The document last: a folder with a sweep.json is complete.
  write(kSweepFile, report::to_json_text(doc::Json(sweep)));
  return written;
}

doc::SweepDocument read_sweep_folder(const std::string& dir) {
  const fs::path file = fs::path(dir) / kSweepFile;
  std::error_code ec;
  if (!fs::exists(file, ec)) throw FieldError("sweep folder", "'" + dir + "' holds no sweep (no " + kSweepFile + ")");
  const doc::SourceDocument d = doc::read_document(file.string());
  doc::require_kind(d, {"sweep"});
  return doc::decode<doc::SweepDocument>(d);
}

std::string local_script(const doc::SweepDocument& sweep) {
  return "#!/usr/bin/env bash\n"
         "# Runs this IsoFLOP sweep (" +
         std::to_string(sweep.runs.size()) +
         " runs) here, resumably, then reports it.\n"
         "# Options go to 'isoflop validate run', e.g. -j 2 for two runs at a time. ISOFLOP names the binary.\n"
         "set -euo pipefail\n"
         "cd \"$(dirname \"$0\")\"\n"
         "exec \"${ISOFLOP:-isoflop}\" validate run . \"$@\"\n";
}

std::string slurm_script(const doc::SweepDocument& sweep, int max_parallel) {
  const bool gpu = sweep.backend == train::BackendKind::kCuda;
  std::string s =
      "#!/usr/bin/env bash\n"
      "# The IsoFLOP sweep as a SLURM array: one run per task; submit from this folder with 'sbatch slurm.sh',\n"
      "# then 'isoflop validate report .' once every task has finished. A task resumes its run's checkpoint.\n"
      "#SBATCH --job-name=isoflop-sweep\n"
      "#SBATCH --array=0-" +
      std::to_string(sweep.runs.size() - 1) + "%" + std::to_string(max_parallel) +
      "\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=" +
      std::to_string(sweep.threads > 0 ? sweep.threads : 2) + "\n" + (gpu ? "#SBATCH --gpus=1\n" : "") +
      "#SBATCH --output=runs/slurm-%A_%a.out\n"
      "set -euo pipefail\n"
      "cd \"${SLURM_SUBMIT_DIR:-$(dirname \"$0\")}\"\n"
      "JOBS=(";
  for (const auto& run : sweep.runs) s += "\n  " + run.job;
  s += "\n)\nFOLDERS=(";
  for (const auto& run : sweep.runs) s += "\n  " + run.folder;
  s += "\n)\n"
       "TASK=\"${SLURM_ARRAY_TASK_ID:?run this script with sbatch (or set SLURM_ARRAY_TASK_ID)}\"\n"
       "RESUME=()\n"
       "if [ -e \"${FOLDERS[$TASK]}/checkpoint.bin\" ]; then RESUME=(--resume); fi\n"
       "exec \"${ISOFLOP:-isoflop}\" train \"${JOBS[$TASK]}\" \"${RESUME[@]}\" -q\n";
  return s;
}

}  // namespace isoflop::validate
