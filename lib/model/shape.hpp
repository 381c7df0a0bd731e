// Shaping: a parameter budget → layers, d_model, heads and ffn, near a reference family's aspect ratio.
#pragma once

#include <string>
#include <vector>

#include "model/architecture.hpp"

namespace isoflop::model {

struct ShapeOptions {
  Architecture reference;   // family to follow: its d_model/layers ratio, head size, activation, vocab, seq
  int tp = 1;               // heads must be divisible by the tensor-parallel degree
  int d_model_multiple = 128;
  double tolerance = 0.02;  // largest relative miss of the exact count against the target
  int alternatives = 3;     // how many runners-up to return

  void validate() const;    // throws InputError naming the field
};

struct ShapeCandidate {
  Architecture architecture;
  double params = 0;        // exact total parameters
  double ratio = 0;         // params / target
};

struct ShapeResult {
  ShapeCandidate best;
  std::vector<ShapeCandidate> alternatives;
};

// The architecture whose exact count is within `tolerance` of `target_params` and whose aspect ratio is
// closest to the reference's; throws InfeasibleError when no shape satisfies the constraints.
ShapeResult shape_architecture(double target_params, const ShapeOptions& options);

}  // namespace isoflop::model
