// Spawning, watching and recording the runs of a sweep.
#include "validate/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "core/folder_lock.hpp"
#include "train/job_changes.hpp"
#include "units/format.hpp"
#include "validate/run_state.hpp"

extern char** environ;

namespace isoflop::validate {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr int kBarEveryPolls = 5;

struct Running {
  const doc::SweepRun* run;
  pid_t pid;
  Clock::time_point start;
  bool resumed;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string clock_text(double s) {
  const long long t = std::llround(s);
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%lld:%02lld", t / 60, t % 60);
  return b;
}

// The train process: stdout (the document, also in results.json) discarded, stderr appended to train.log.
pid_t spawn_train(const RunnerOptions& o, const std::string& dir, const doc::SweepRun& run, bool resume) {
  const fs::path folder = fs::path(dir) / run.folder;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError("dir: cannot create '" + folder.string() + "': " + ec.message());
  const std::string log = (folder / kLogFile).string(), job = (fs::path(dir) / run.job).string();
  std::vector<std::string> args = o.train_command(job, resume);
  if (args.empty()) throw InputError("validate run: no train command to start");
  const std::string& binary = args.front();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw InputError("cannot start '" + binary + "': " + std::strerror(error));
  return pid;
}

// The train process's last error line ("isoflop: error: …"), else its last line.
std::string last_error(const std::string& dir, const doc::SweepRun& run) {
  std::ifstream in(fs::path(dir) / run.folder / kLogFile);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.find("error:") != std::string::npos) error = line;
  }
  return error.empty() ? last : error;
}

// A finished run is kept as it ran; where its job file has changed since (a learning rate edited by hand), the
// line says so rather than keep it silently (train --resume refuses the same change).
std::string changed_since(const std::string& dir, const doc::SweepRun& run, const doc::TrainDocument& results) {
  try {
    const train::Job now = train::load_job((fs::path(dir) / run.job).string());
    const auto changes = train::job_changes(train::job_fields(results.inputs, 0), train::job_fields(now, 0), 0);
    if (changes.empty()) return "";
    return ", though its job file changed since: " + train::describe(changes) + " (remove " + run.folder +
           " to run it again)";
  } catch (const InputError& e) {
    return std::string(", though its job file no longer reads: ") + e.what();
  }
}

// Whether a train process ended on an interrupt: the status 128 + signal it exits with after saving its
// checkpoint on SIGINT or SIGTERM (app/cmd_train.cpp), or the signal itself (before its handler was installed).
bool by_interrupt(int status) {
  for (const int signal : {SIGINT, SIGTERM})
    if ((WIFEXITED(status) && WEXITSTATUS(status) == 128 + signal) ||
        (WIFSIGNALED(status) && WTERMSIG(status) == signal))
      return true;
  return false;
}

std::string exit_text(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

std::string finished_line(const doc::SweepRun& run, const RunStatus& s, double wall_s) {
  const auto& r = s.results->result;
  char b[256];
  std::snprintf(b, sizeof b, "%-8s finished: N %s, D %s, eval loss %.4f, %s tokens/s, %.1f s", run.id.c_str(),
                units::format_count(run.params).c_str(), units::format_count(run.tokens).c_str(),
                r.eval_loss.value_or(NAN), units::format_count(r.tokens_per_s).c_str(), wall_s);
  return b;
}

}  // namespace

std::string progress_bar(int runs_done, int runs, double fraction, double elapsed_s) {
  constexpr int kWidth = 24;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(std::lround(fraction * kWidth));
  std::string s = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] " +
                  std::to_string(runs_done) + "/" + std::to_string(runs) + " runs " +
                  std::to_string(static_cast<int>(std::lround(100 * fraction))) + "% " + clock_text(elapsed_s) +
                  " elapsed";
  if (fraction > 0 && fraction < 1) s += " ETA " + clock_text(elapsed_s * (1 - fraction) / fraction);
  return s;
}

void show_progress(RunnerOptions& options, bool terminal, const std::function<void(const std::string&)>& write) {
  const std::string erase = terminal ? "\r\033[K" : "";
  options.line = [=](const std::string& line) { write(erase + line + "\n"); };
  options.bar = [=](const std::string& bar) { write(terminal ? erase + bar : bar + "\n"); };
  options.redraw_bar = terminal;
}

std::string summary_text(const SweepRunSummary& summary, size_t runs, bool terminal) {
  return std::string(terminal ? "\r\033[K" : "") + std::to_string(summary.finished) + " of " + std::to_string(runs) +
         " runs finished, " + std::to_string(summary.failed) + " failed, " + std::to_string(summary.interrupted) +
         " interrupted\n";
}

SweepRunSummary run_sweep(const doc::SweepDocument& sweep, const std::string& dir, const RunnerOptions& o) {
  if (o.jobs < 1) throw FieldError("jobs", "must be at least 1");
  // A second runner on the folder would find the first one's runs locked and record them as failed.
  const FolderLock lock(dir, "sweep folder");
  SweepRunSummary summary;
  std::vector<const doc::SweepRun*> queue;
  double todo_flops = 0, done_flops = 0;
  for (const auto& run : sweep.runs) {
    const RunStatus s = run_status(dir, run);
    if (s.state == RunState::kFinished) {
      ++summary.finished, ++summary.skipped;
      o.line(run.id + " finished already; kept" + changed_since(dir, run, *s.results));
      continue;
    }
    queue.push_back(&run);
    todo_flops += 6 * run.params * run.tokens;
  }
  const int total = static_cast<int>(sweep.runs.size());
  const Clock::time_point start = Clock::now();
  std::vector<Running> running;
  size_t next = 0;
  bool stopping = false;
  for (int poll = 0; next < queue.size() || !running.empty(); ++poll) {
    if (o.stop && o.stop->load() && !stopping) {
      stopping = true;
      for (const auto& r : running) ::kill(r.pid, SIGINT);  // each saves a checkpoint and exits
    }
    while (!stopping && next < queue.size() && static_cast<int>(running.size()) < o.jobs) {
      const doc::SweepRun& run = *queue[next++];
      const bool resume = run_status(dir, run).has_checkpoint;
      clear_failure(dir, run);
      running.push_back({&run, spawn_train(o, dir, run, resume), Clock::now(), resume});
      o.line(run.id + (resume ? " resuming from its checkpoint: " : " started: ") + train::describe(run.shape) + ", " +
             units::format_count(run.tokens) + " tokens");
    }
    if (stopping && running.empty()) break;
    std::this_thread::sleep_for(kPoll);
    for (size_t i = 0; i < running.size();) {
      int status = 0;
      if (::waitpid(running[i].pid, &status, WNOHANG) != running[i].pid) {
        ++i;
        continue;
      }
      const Running r = running[i];
      running.erase(running.begin() + static_cast<long>(i));
      const double wall_s = seconds_since(r.start);
      const RunStatus s = run_status(dir, *r.run);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && s.state == RunState::kFinished) {
        ++summary.finished;
        done_flops += 6 * r.run->params * r.run->tokens;
        o.line(finished_line(*r.run, s, wall_s));
      } else if (by_interrupt(status) || ((stopping || (o.stop && o.stop->load())) && s.has_checkpoint)) {
        // Ctrl-C in a terminal reaches the whole process group: a run may exit on it (130, its checkpoint saved)
        // before this loop sees the stop. It was interrupted, not failed, and no further run starts.
        if (!stopping) {
          stopping = true;
          for (const auto& other : running) ::kill(other.pid, SIGINT);
        }
        ++summary.interrupted;
        o.line(r.run->id + " interrupted; it resumes from its checkpoint on the next 'validate run'");
      } else {
        const std::string message = exit_text(status) + ": " + last_error(dir, *r.run);
        record_failure(dir, *r.run, message);
        ++summary.failed;
        summary.failures.push_back(r.run->id + ": " + message);
        o.line(r.run->id + " FAILED (" + message + "); its log: " + (fs::path(r.run->folder) / kLogFile).string());
      }
      if (o.bar)
        o.bar(
            progress_bar(summary.finished, total, todo_flops > 0 ? done_flops / todo_flops : 1, seconds_since(start)));
    }
    if (o.bar && o.redraw_bar && poll % kBarEveryPolls == 0)
      o.bar(progress_bar(summary.finished, total, todo_flops > 0 ? done_flops / todo_flops : 1, seconds_since(start)));
  }
  return summary;
}

}  // namespace isoflop::validate
