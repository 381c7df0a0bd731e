// A workload's FLOPs under one named convention (6nd, chinchilla, megatron), with the parts that make them up:
// what `isoflop flops` reports. model/flops.hpp holds the per-convention arithmetic.
#pragma once

#include <string>
#include <vector>

#include "model/architecture.hpp"
#include "model/flops.hpp"

namespace isoflop::model {

// Which parameter count 6·N·D multiplies.
ISOFLOP_NAMED_ENUM(ParamsKind, (kTotal, "total"), (kActive, "active"), (kNonEmbedding, "non_embedding"),
                   (kGiven, "given"));

struct FlopsPart {
  std::string name;            // "qkv", "attention_scores", "recompute", …
  double flops = 0;
  bool operator==(const FlopsPart&) const = default;
};

struct FlopsCount {
  FlopsConvention convention = FlopsConvention::k6nd;
  Recompute recompute = Recompute::kNone;
  double params = 0;           // N of the count: total, active per token (MoE), non-embedding, or as given
  ParamsKind params_kind = ParamsKind::kTotal;
  double tokens = 0;           // training tokens D
  long long seq = 0;           // sequence length
  double model_flops = 0;      // the model's work (no recomputation)
  double hardware_flops = 0;   // executed, with the recompute forward
  std::vector<FlopsPart> parts;  // by operation (chinchilla) or part (megatron); empty for 6nd
  std::string note;            // the formula and its source
  double flops_per_token() const { return tokens > 0 ? hardware_flops / tokens : 0.0; }
  bool operator==(const FlopsCount&) const = default;
};

// Narayanan eq. 3 counts the full-recompute forward, so megatron defaults to full; App. F and 6ND count model
// FLOPs, so chinchilla and 6nd default to none.
Recompute default_recompute(FlopsConvention convention);

// The FLOPs of `tokens` tokens in sequences of `seq` through `architecture`. MoE: 6nd counts the active
// parameters. Throws FieldError("recompute", …) for selective recompute under 6nd.
FlopsCount count_flops(const Architecture& architecture, double tokens, long long seq, FlopsConvention convention,
                       Recompute recompute, bool non_embedding = false);

// 6·N·D for a bare parameter count (no architecture: only the 6nd convention).
FlopsCount count_flops_6nd(double params, double tokens, long long seq, Recompute recompute);

}  // namespace isoflop::model
