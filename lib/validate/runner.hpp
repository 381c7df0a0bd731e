// Running a sweep folder here: each run is its own `isoflop train` process (a failure stays that run's), up to
// `jobs` at a time; finished runs are skipped, interrupted ones resume from their checkpoint, and a run that
// fails is recorded as failed (run_state.hpp) and the others go on.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "doc/sweep_document.hpp"

namespace isoflop::validate {

struct RunnerOptions {
  // The command line that trains one run (argv[0] is the executable): the job file's path and whether to
  // resume go in; the caller spells its own train command, so this library names none of its flags.
  std::function<std::vector<std::string>(const std::string& job_path, bool resume)> train_command;
  int jobs = 1;                                  // runs at a time
  std::function<void(const std::string&)> line;  // one line per run started, skipped, finished or failed
  std::function<void(const std::string&)> bar;   // the overall bar with ETA: after each run, and
  bool redraw_bar = false;                       // also about every 0.5 s (on a terminal)
  const std::atomic<bool>* stop = nullptr;       // set: interrupt the running runs (they checkpoint), start no more
};

struct SweepRunSummary {
  int finished = 0;  // finished now or before
  int skipped = 0;   // of those, finished before this call
  int failed = 0;
  int interrupted = 0;                // stopped by `stop`, resumable
  std::vector<std::string> failures;  // "b1-s2: exit 2: …"
};

// Runs the sweep's unfinished runs in `dir`, holding the folder's lock (core/folder_lock.hpp) throughout: a
// second runner on the same folder is refused ("sweep folder 'x' is in use by pid N").
SweepRunSummary run_sweep(const doc::SweepDocument& sweep, const std::string& dir, const RunnerOptions& options);

// The runner's lines and bar put out through `write` (text as it is, newlines included): on a terminal each line
// first erases the bar's line and the bar is redrawn in place, also between runs (carriage return and ECMA-48's
// erase-in-line, ESC [ K); elsewhere each is a line of its own. Sets options.line, bar and redraw_bar.
void show_progress(RunnerOptions& options, bool terminal, const std::function<void(const std::string&)>& write);

// "3 of 9 runs finished, 1 failed, 0 interrupted" and a newline, erasing the bar's line first on a terminal.
std::string summary_text(const SweepRunSummary& summary, size_t runs, bool terminal);

// "[########............] 4/9 runs  41%  0:42 elapsed  ETA 1:01": the share of the sweep's FLOPs done.
std::string progress_bar(int runs_done, int runs, double fraction, double elapsed_s);

}  // namespace isoflop::validate
