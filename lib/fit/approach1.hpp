// Chinchilla Approach 1: the envelope of training curves. At log-spaced compute values the run with the
// lowest loss gives N_opt(C); N_opt = k·C^a and D_opt = k′·C^b are fitted in log space (Hoffmann et al.
// 2022, §3.1: 1,500 log-spaced FLOP values).
#pragma once

#include <vector>

#include "fit/runs.hpp"

namespace isoflop::fit {

struct Approach1Options {
  int points = 1500;  // log-spaced FLOP values along the envelope (Hoffmann et al. 2022, §3.1)
  void validate() const;
};

struct EnvelopePoint {
  double flops = 0, params = 0, tokens = 0, loss = 0;  // the lowest-loss run at this compute
  bool operator==(const EnvelopePoint&) const = default;
};

struct Approach1Result {
  double a = 0, b = 0, k_params = 0, k_tokens = 0;  // N_opt = k_params·C^a, D_opt = k_tokens·C^b
  std::vector<EnvelopePoint> envelope;              // the log-spaced compute values kept
  size_t curves = 0;                                // training runs read
  size_t sizes_on_envelope = 0;                     // distinct model sizes that are lowest somewhere
  bool operator==(const Approach1Result&) const = default;
};

// Each run's loss is interpolated linearly in log C between its curve points (C = 6·N·D); only runs
// whose curve covers C compete there. Compute values where the smallest or the largest model size wins
// are left out (the optimum may lie beyond the sizes trained). Throws InputError when a run has fewer than 2 points or fewer
// than 2 sizes reach the envelope.
Approach1Result fit_approach1(const std::vector<CurvePoint>& curves, const Approach1Options& options);

}  // namespace isoflop::fit
