// Ctrl-C and SIGTERM during a run: the first one sets a flag the trainer polls after every step (it saves a
// checkpoint and returns); a second one takes the default action, so an impatient user can still kill it.
#pragma once

#include <atomic>

namespace isoflop::train {

class StopSignals {
 public:
  StopSignals();   // installs the handlers and clears the flag
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>* flag() const;  // for RunOptions::stop
  int signal() const;                     // the signal that stopped the run (0: none)

 private:
  struct Saved;
  Saved* saved_;
};

}  // namespace isoflop::train
