// A trainer model (lib/train's GPT-2 block) for a parameter target, shaped like a reference family: the
// family's depth-to-width ratio (d_model / layers) at that size, counted exactly by lib/model.
#pragma once

#include "train/config.hpp"

namespace isoflop::validate {

struct SizedModel {
  train::ModelConfig config;
  double params = 0;  // total, the tied embedding once (model::count_params)
  double non_embedding_params = 0;
};

// Exact parameters of a trainer model.
SizedModel count_model(const train::ModelConfig& config);

// The model within 25 % of `target_params` whose d_model / layers is nearest `aspect` (else the nearest in
// parameters): d_model a multiple of 8, heads of d_model/8 channels rounded down to a power of two, 8 to 64
// (so about 8 heads); below d_model 32 also 12, 20 and 28, with heads of 4. The smallest model is one layer of
// d_model 4.
SizedModel shape_model(double target_params, double aspect, int seq, int vocab);

}  // namespace isoflop::validate
