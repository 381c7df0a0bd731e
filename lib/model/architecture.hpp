// A transformer architecture as plain data: what the catalog's models.yaml entries and architecture files
// describe. The catalog fills it from YAML; lib/doc/architecture_json.hpp writes and reads it as JSON.
#pragma once

#include <string>

#include "core/enum_names.hpp"

namespace isoflop::model {

// MLP activation. SwiGLU is gated (three matrices: gate, up, down; Shazeer 2020); squared ReLU (So et al.
// 2021, Nemotron-4) and the others use two.
ISOFLOP_NAMED_ENUM(Activation, (kGelu, "gelu"), (kSwiglu, "swiglu"), (kRelu, "relu"), (kSquaredRelu, "squared-relu"));

ISOFLOP_NAMED_ENUM(PositionalEncoding, (kLearned, "learned"), (kRotary, "rotary"), (kAlibi, "alibi"),
                   (kRelative, "relative"), (kNone, "none"));

ISOFLOP_NAMED_ENUM(NormKind, (kLayerNorm, "layernorm"), (kRmsNorm, "rmsnorm"));

// The largest width an architecture may name (d_model, head_size, ffn, expert_ffn): a million times today's
// largest models' and small enough that every size derived from one (4·d_model) stays exact in a 64-bit integer.
// Counts (layers, heads, experts) are ints; seq and vocab have the limits of units/integer_limits.hpp.
inline constexpr long long kMaxArchitectureSize = 1'000'000'000'000;

// Sparse mixture-of-experts fields; experts == 0 means a dense model.
struct MoeConfig {
  int experts = 0;                     // experts per MoE layer
  int top_k = 2;                       // experts each token is routed to
  double capacity_factor = 1.25;       // training capacity factor (ST-MoE)
  double eval_capacity_factor = 2.0;   // evaluation capacity factor (ST-MoE)
  int every = 1;                       // every k-th layer is an MoE layer (ST-MoE: every 4th)
  int shared_experts = 0;              // always-active experts (DeepSeek-MoE style)
  long long expert_ffn = 0;            // hidden size of one expert; 0 = the dense ffn size
  bool enabled() const { return experts > 0; }
  bool operator==(const MoeConfig&) const = default;
};

struct Architecture {
  std::string name;                    // catalog id or file name; informational
  int layers = 0;                      // transformer blocks
  long long d_model = 0;               // hidden size h
  int heads = 0;                       // attention (query) heads
  int kv_heads = 0;                    // key/value heads (GQA/MQA); 0 = heads
  long long head_size = 0;             // per-head size; 0 = d_model / heads
  long long ffn = 0;                   // MLP hidden size; 0 = 4·d_model (GELU) or the SwiGLU 2/3 convention
  Activation activation = Activation::kGelu;
  long long vocab = 0;                 // vocabulary size before padding
  int vocab_pad_multiple = 1;          // Megatron pads the vocabulary to a multiple of this (e.g. 128·TP)
  long long seq = 2048;                // training sequence length
  PositionalEncoding positional = PositionalEncoding::kLearned;
  bool tied_embeddings = true;         // output head shares the input embedding
  NormKind norm = NormKind::kLayerNorm;
  bool bias = true;                    // linear layers and norms carry biases
  MoeConfig moe;

  bool gated_mlp() const { return activation == Activation::kSwiglu; }
  int effective_kv_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  long long effective_head_size() const { return head_size > 0 ? head_size : (heads > 0 ? d_model / heads : 0); }
  bool operator==(const Architecture&) const = default;
};

}  // namespace isoflop::model
