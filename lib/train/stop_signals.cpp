// The signal handlers of a training run.
#include "train/stop_signals.hpp"

#include <signal.h>
#include <unistd.h>

namespace isoflop::train {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is written from a signal handler");

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
  static const char kMessage[] =
      "\nisoflop: stopping after this step and saving a checkpoint (press Ctrl-C again to abort)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
}

}  // namespace

struct StopSignals::Saved {
  struct sigaction old_int {};
  struct sigaction old_term {};
};

StopSignals::StopSignals() : saved_(new Saved) {
  g_stop.store(false);
  g_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // a write cut by the signal resumes
  sigaction(SIGINT, &action, &saved_->old_int);
  sigaction(SIGTERM, &action, &saved_->old_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &saved_->old_int, nullptr);
  sigaction(SIGTERM, &saved_->old_term, nullptr);
  delete saved_;
}

const std::atomic<bool>* StopSignals::flag() const { return &g_stop; }

int StopSignals::signal() const { return g_signal.load(); }

}  // namespace isoflop::train
