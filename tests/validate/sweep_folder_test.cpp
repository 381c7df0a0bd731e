// The sweep folder: what --emit writes, what it refuses, the SLURM array script, and the run states.
#include "validate/sweep_folder.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/folder_lock.hpp"
#include "support/temp_files.hpp"
#include "train/job.hpp"
#include "validate/run_state.hpp"
#include "validate/runner.hpp"
#include "validate/sweep_options.hpp"

namespace isoflop::validate {
namespace {

namespace fs = std::filesystem;

doc::SweepDocument smoke(const std::string& law = "chinchilla") {
  SweepOptions o;
  o.flops = 1e21;
  o.law.law = law;
  o.preset = "smoke";
  return design_from_options(o, catalog::embedded_catalog());
}

TEST_CASE("--emit writes a job per run, sweep.json and the scripts, and the same sweep again is accepted") {
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "emit") / "sweep";
  const doc::SweepDocument d = smoke();
  const auto files = write_sweep_folder(d, dir.string(), 4);
  CHECK(files.size() == d.runs.size() + 3);
  CHECK(read_sweep_folder(dir.string()) == d);
  CHECK((fs::status(dir / "run.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK_NOTHROW(write_sweep_folder(d, dir.string(), 4));
  for (const auto& run : d.runs) {
    const train::Job job = train::load_job((dir / run.job).string());
    CHECK(job.model == run.shape);
    CHECK(fs::path(job.output).lexically_normal() == (dir / run.folder).lexically_normal());
  }
  // Another sweep (another law) in the same folder is refused, and the folder keeps the first.
  CHECK_THROWS_WITH_AS(write_sweep_folder(smoke("epoch-2024"), dir.string(), 4),
                       doctest::Contains("holds another sweep"), FieldError);
  CHECK(read_sweep_folder(dir.string()) == d);
}

TEST_CASE("--emit refuses a folder of other files, and run refuses a folder without a sweep") {
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "other");
  std::ofstream(dir / "notes.txt") << "mine\n";
  CHECK_THROWS_WITH_AS(write_sweep_folder(smoke(), dir.string(), 4), doctest::Contains("not a sweep ('notes.txt')"),
                       FieldError);
  CHECK(test::read_file(dir / "notes.txt") == "mine\n");
  CHECK_THROWS_WITH_AS(read_sweep_folder(dir.string()), doctest::Contains("holds no sweep"), FieldError);
  // An empty name is no folder (it used to write into the current folder, past the check above).
  CHECK_THROWS_WITH_AS(write_sweep_folder(smoke(), "", 4), "emit: empty folder name; name a new or empty folder",
                       FieldError);
}

TEST_CASE("one runner at a time: a sweep folder another process runs is refused, and its lock file is the sweep's") {
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "locked") / "sweep";
  const doc::SweepDocument d = smoke();
  write_sweep_folder(d, dir.string(), 4);
  {
    const FolderLock held(dir.string(), "sweep folder");  // as a runner in another process holds it
    RunnerOptions o;
    o.train_command = [](const std::string&, bool) { return std::vector<std::string>{"/bin/false"}; };
    CHECK_THROWS_WITH_AS(run_sweep(d, dir.string(), o),
                         doctest::Contains(("sweep folder '" + dir.string() + "' is in use by pid").c_str()),
                         InputError);
    for (const auto& run : d.runs) CHECK(run_status(dir.string(), run).state == RunState::kPending);
  }
  REQUIRE(fs::exists(dir / kFolderLockName));
  CHECK_NOTHROW(write_sweep_folder(d, dir.string(), 4));
  // The lock file left behind is no foreign file, even where no sweep.json says the folder is a sweep's.
  const auto bare = dir.parent_path() / "bare";
  fs::create_directories(bare);
  { const FolderLock once(bare.string(), "sweep folder"); }
  REQUIRE(fs::exists(bare / kFolderLockName));
  CHECK_NOTHROW(write_sweep_folder(d, bare.string(), 4));
  const auto other = dir.parent_path() / "other";
  fs::create_directories(other);
  std::ofstream(other / "notes.txt") << "mine\n";
  { const FolderLock once(other.string(), "sweep folder"); }
  CHECK_THROWS_WITH_AS(write_sweep_folder(d, other.string(), 4), doctest::Contains("not a sweep ('notes.txt')"),
                       FieldError);
}

TEST_CASE("the SLURM array script: sbatch's spellings, one task per run, bash -n clean") {
  const doc::SweepDocument d = smoke();
  const std::string script = slurm_script(d, 3);
  // Long options of sbatch(1) (Slurm 23.x man page, OPTIONS) that the script may use.
  const std::set<std::string> sbatch = {"array",  "cpus-per-task", "error",     "gpus", "job-name", "ntasks",
                                        "output", "time",          "partition", "mem",  "nodes"};
  const std::regex line(R"(^#SBATCH --([a-z-]+)=(\S+)$)");
  int lines = 0;
  std::string array;
  std::istringstream in(script);
  for (std::string s; std::getline(in, s);) {
    if (s.rfind("#SBATCH", 0) != 0) continue;
    std::smatch m;
    REQUIRE_MESSAGE(std::regex_match(s, m, line), s);
    CHECK_MESSAGE(sbatch.count(m[1]) == 1, s);
    if (m[1] == "array") array = m[2];
    ++lines;
  }
  CHECK(lines >= 4);
  // --array=<first>-<last>%<max running>: indices 0..runs-1, as $SLURM_ARRAY_TASK_ID indexes JOBS.
  CHECK(array == "0-" + std::to_string(d.runs.size() - 1) + "%3");
  CHECK(script.find("${JOBS[$TASK]}") != std::string::npos);
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "slurm");
  std::ofstream(dir / "slurm.sh") << script;
  std::ofstream(dir / "run.sh") << local_script(d);
  CHECK(std::system(("bash -n " + (dir / "slurm.sh").string()).c_str()) == 0);
  CHECK(std::system(("bash -n " + (dir / "run.sh").string()).c_str()) == 0);
}

TEST_CASE("run states: pending, failed with its reason, cleared for another attempt") {
  const auto dir = test::fresh_temp_dir("isoflop-validate-test", "state");
  const doc::SweepDocument d = smoke();
  write_sweep_folder(d, dir.string(), 1);
  const auto& run = d.runs.front();
  CHECK(run_status(dir.string(), run).state == RunState::kPending);
  fs::create_directories(dir / run.folder);
  record_failure(dir.string(), run, "exit 2: isoflop: error: train.lr: must be positive");
  const RunStatus failed = run_status(dir.string(), run);
  CHECK(failed.state == RunState::kFailed);
  CHECK(failed.message == "exit 2: isoflop: error: train.lr: must be positive");
  clear_failure(dir.string(), run);
  CHECK(run_status(dir.string(), run).state == RunState::kPending);
}

TEST_CASE("the overall bar: the share of the FLOPs done and the time left at that pace") {
  CHECK(progress_bar(1, 4, 0.25, 30) == "[######..................] 1/4 runs 25% 0:30 elapsed ETA 1:30");
  CHECK(progress_bar(4, 4, 1, 3725) == "[########################] 4/4 runs 100% 1:02:05 elapsed");
  RunnerOptions none;
  none.jobs = 0;
  CHECK_THROWS_AS(run_sweep(smoke(), "/nonexistent", none), FieldError);
}

TEST_CASE("progress on a terminal redraws the bar in place, elsewhere every line and bar is a line of its own") {
  std::string out;
  RunnerOptions o;
  show_progress(o, true, [&](const std::string& text) { out += text; });
  CHECK(o.redraw_bar);
  o.bar("[#...] 1/4 runs");
  o.line("b0-s1 finished");
  o.bar("[##..] 2/4 runs");
  CHECK(out == "\r\033[K[#...] 1/4 runs\r\033[Kb0-s1 finished\n\r\033[K[##..] 2/4 runs");
  out.clear();
  show_progress(o, false, [&](const std::string& text) { out += text; });
  CHECK_FALSE(o.redraw_bar);
  o.bar("[#...] 1/4 runs");
  o.line("b0-s1 finished");
  CHECK(out == "[#...] 1/4 runs\nb0-s1 finished\n");
  const SweepRunSummary s{.finished = 3, .skipped = 1, .failed = 1, .interrupted = 0, .failures = {"b1-s2: exit 2"}};
  CHECK(summary_text(s, 9, false) == "3 of 9 runs finished, 1 failed, 0 interrupted\n");
  CHECK(summary_text(s, 9, true) == "\r\033[K3 of 9 runs finished, 1 failed, 0 interrupted\n");
}

}  // namespace
}  // namespace isoflop::validate
