// Exact parameter counts of an architecture, by component, and the conventions in use: total,
// non-embedding (Kaplan et al. 2020) and active per token (MoE).
#pragma once

#include <string>

#include "model/architecture.hpp"

namespace isoflop::model {

// The most parameters an architecture read from a file may have: a million times today's largest models, and
// within the 64-bit integers documents write parameter counts in.
inline constexpr double kMaxParams = 1e18;

// Why an architecture of `params` > kMaxParams parameters is refused, in one phrase:
// "1.2e34 parameters are more than the 1e18 an architecture may have".
std::string too_many_params(double params);

struct ParamCount {
  double token_embedding = 0;     // padded vocabulary × d_model
  double position_embedding = 0;  // learned positions: seq × d_model
  double attention = 0;           // all blocks: Q, K, V, output projections (+ biases)
  double mlp = 0;                 // all dense MLPs (+ biases)
  double experts = 0;             // all experts of all MoE blocks, with routers
  double routed_experts = 0;      // of `experts`, the routed experts (expert parallelism splits these)
  double norms = 0;               // block norms and the final norm
  double output_head = 0;         // untied output projection (0 when tied)
  int moe_layers = 0;             // blocks whose MLP is a mixture of experts

  double total() const {
    return token_embedding + position_embedding + attention + mlp + experts + norms + output_head;
  }
  // Kaplan et al. 2020 count N without the embedding matrices.
  double non_embedding() const { return total() - token_embedding - position_embedding; }
  double active = 0;              // parameters a token passes through (MoE: top-k experts); = total() for dense
};

// Vocabulary padded to a multiple of vocab_pad_multiple (Megatron pads to 128·TP).
long long padded_vocab(const Architecture& architecture);

// MLP hidden size: ffn, or 4·d_model (GELU/ReLU), or the SwiGLU 2/3 convention (8·d_model/3).
long long mlp_hidden_size(const Architecture& architecture);

// Narayanan et al. 2021 eq. 2 for a GPT block (12h² + 13h per layer, (V + s)·h for embeddings),
// generalised to grouped-query attention, gated MLPs, RMSNorm, bias-free layers, untied heads and experts.
ParamCount count_params(const Architecture& architecture);

}  // namespace isoflop::model
