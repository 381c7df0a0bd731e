// Reference families for shaping (how a family sets depth against width: published shapes or size bands) and
// ST-MoE's recommendations for sparse models, as plain data. The catalog fills them from shapes.yaml.
#pragma once

#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace isoflop::model {

// aspect: d_model/layers follows the family's published shapes; bands: d_model and heads by size band.
ISOFLOP_NAMED_ENUM(ShapeRule, (kAspect, "aspect"), (kBands, "bands"));

// One published shape (e.g. a Chinchilla Table A9 row).
struct ShapeRow {
  double params = 0;       // published parameter count
  long long d_model = 0;
  int layers = 0;
  int heads = 0;
  long long head_size = 0;
  // Key/value heads when the row gives them: equal to `heads` for multi-head attention, fewer for grouped-query
  // attention (Llama 3 keeps 8 at every size); 0 when the row does not say (the block's group size is kept).
  int kv_heads = 0;
  // The feed-forward width when the row gives it (Llama 2 7B: 11008, 2.6875 d_model; the 70B block's 3.5 is not
  // every size's); 0: the block's ffn / d_model is kept.
  long long ffn = 0;
  bool operator==(const ShapeRow&) const = default;
};

// One size band: models below `below_params` get this d_model and head count.
struct ShapeBand {
  double below_params = 0;
  long long d_model = 0;
  int heads = 0;
  bool operator==(const ShapeBand&) const = default;
};

struct ShapeFamily {
  std::string name;                 // "chinchilla"
  std::string display_name;
  ShapeRule rule = ShapeRule::kAspect;
  std::string block;                // name of the reference model whose block every shape copies
  std::vector<ShapeRow> rows;       // aspect rule
  double smoothing_ln = 0;          // aspect rule: Gaussian kernel width in ln(params)
  std::vector<ShapeBand> bands;     // bands rule, ascending
  int vocab_pad_per_tp = 0;         // vocabulary padded to a multiple of this × TP (Megatron); 0 = as the block
  std::string source;               // the paper or documentation the shapes come from
  std::string file;                 // where the family was read from (file:line), informational
  bool operator==(const ShapeFamily&) const = default;
};

// ST-MoE's design recommendations (Zoph et al. 2022).
struct MoeRecommendations {
  std::string name;                 // "st-moe"
  int top_k = 0;
  double capacity_factor = 0;       // training
  double eval_capacity_factor = 0;
  int max_experts = 0;
  int max_experts_per_device = 0;
  int every = 0;                    // every k-th layer an MoE layer
  std::string source;
  std::string file;                 // where it was read from (file:line), informational
  bool operator==(const MoeRecommendations&) const = default;
};

}  // namespace isoflop::model
