// Optimiser arithmetic shared by the backends' host code: the learning-rate schedule, the clipping factor,
// and AdamW on host buffers (the CPU backend's update and the CUDA kernels' reference).
#pragma once

#include <cstddef>

#include "train/backend.hpp"
#include "train/layout.hpp"

namespace isoflop::train {

// Linear warm-up over `warmup_steps` to `peak`, then cosine decay that reaches min_fraction·peak exactly at the
// last of `steps` (Hoffmann et al. 2022 §D.1: a cosine cycle matching the training horizon, decaying 10×).
// `step` is 0-based.
struct LrSchedule {
  double peak = 0;
  long long warmup_steps = 0;
  long long steps = 1;
  double min_fraction = 0.1;

  double at(long long step) const;
};

// min(1, clip / norm); 1 when clip ≤ 0 (no clipping) or the norm is not finite-positive.
double clip_scale(double grad_norm, double clip);

// AdamW in place over the whole flat buffer: weight decay only on the tensors the layout marks as decayed.
void adamw_update_host(const ParameterLayout& layout, const AdamWStep& step, float* params, const float* grads,
                       float* m, float* v);

// Global L2 norm of n values, summed in double over fixed blocks so the result does not depend on threads.
double l2_norm_host(const float* values, size_t n);

}  // namespace isoflop::train
