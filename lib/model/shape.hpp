// Shaping: a parameter budget → layers, d_model, heads and ffn, near a reference family's aspect ratio
// (shape_architecture, used by plan) or after a named family of shapes.yaml (shape_by_family, used by arch).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/architecture.hpp"
#include "model/shape_family.hpp"

namespace isoflop::model {

struct ShapeOptions {
  Architecture reference;   // family to follow: its d_model/layers ratio, head size, activation, vocab, seq
  int tp = 1;               // heads must be divisible by the tensor-parallel degree
  int d_model_multiple = 128;
  int layer_multiple = 1;   // layers are a multiple of this (e.g. pipeline stages × virtual stages)
  // Where set, only depths it accepts are shaped (a pinned pipeline's stages), and `depth_rule` says which in the
  // message when none fits.
  std::function<bool(int layers)> accept_layers;
  std::string depth_rule;
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

// Shaping after a named family (shapes.yaml): Chinchilla Table A9's aspect ratios, Kaplan's constant aspect,
// or Megatron/NeMo size bands.
struct FamilyShapeOptions {
  ShapeFamily family;       // the rule and the published shapes or bands
  Architecture block;                // the family's block (norm, positions, activation, ffn / d_model, vocab, seq)
  int tp = 1;                        // tensor-parallel degree, a power of 2; heads and kv heads divisible by it
  long long vocab = 0;               // vocabulary before padding; 0 = the block's
  long long seq = 0;                 // sequence length, tokens; 0 = the block's
  int d_model_multiple = 128;        // d_model is a multiple of this
  std::vector<long long> head_sizes = {64, 128};  // allowed per-head sizes
  double tolerance = 0.02;           // largest relative miss of the exact count against the target
  int alternatives = 3;              // how many runners-up to return
  int max_layers = 1024;             // deepest shape considered
  MoeConfig moe;                     // experts == 0: dense; else layers are a multiple of moe.every
  bool target_active = false;        // MoE: the target is the active parameter count, not the total

  void validate() const;             // throws FieldError naming the field (tp, vocab, experts, moe_top_k, …)
};

// What the family prefers at a size: for the aspect rule the kernel-averaged d_model/layers and the nearest
// row's head size; for the bands rule the band's d_model and heads (the last band beyond the largest).
struct PreferredShape {
  double aspect = 0;                 // d_model / layers (aspect rule), 0 otherwise
  long long d_model = 0;             // the band's d_model (bands rule), 0 otherwise
  int heads = 0;                     // the band's heads (bands rule), 0 otherwise
  long long head_size = 0;           // preferred per-head size, one of the allowed sizes
  // The nearest row's attention (aspect rule, where its rows give key/value heads): 0 for multi-head
  // attention, else the number of key/value heads; unset where the family does not say.
  std::optional<int> kv_heads;
  // The rows' ffn / d_model, kernel-averaged in ln as the aspect (aspect rule, where its rows give the ffn);
  // unset: the block's.
  std::optional<double> ffn_ratio;
  bool beyond_family = false;        // past the largest band, or more than smoothing_ln past the largest row
  bool operator==(const PreferredShape&) const = default;
};
PreferredShape preferred_shape(const ShapeFamily& family, double params,
                               const std::vector<long long>& head_sizes = {64, 128});

struct FamilyShapeCandidate {
  Architecture architecture;
  double params = 0;                 // exact total parameters
  double active_params = 0;          // parameters a token passes through (= params for a dense model)
  double ratio = 0;                  // (active_params if target_active else params) / target
  double score = 0;                  // distance from the family's preference; lower is better
  PreferredShape preferred;          // what the family prefers at this candidate's active size
  bool operator==(const FamilyShapeCandidate&) const = default;
};

struct FamilyShapeResult {
  FamilyShapeCandidate best;
  std::vector<FamilyShapeCandidate> alternatives;  // next best, each a different (layers, d_model)
  long long d_model_step = 0;        // d_model is a multiple of this (lcm of the multiple and head size × TP)
};

// The shape whose exact count is within `tolerance` of `target_params` and which lies closest to the family's
// preferred shape at its size; throws InputError for invalid options and InfeasibleError when nothing fits.
FamilyShapeResult shape_by_family(double target_params, const FamilyShapeOptions& options);

}  // namespace isoflop::model
