// JSON of an architecture (model::Architecture with its MoeConfig): the one shape of "architecture" in the
// arch, flops, layout and plan documents.
//
//   {"name", "layers", "d_model", "heads", "kv_heads", "head_size", "ffn", "activation", "vocab",
//    "vocab_pad_multiple", "seq", "positional", "norm", "tied_embeddings", "bias",
//    "moe": null | {"experts", "top_k", "capacity_factor", "eval_capacity_factor", "every", "shared_experts",
//                   "expert_ffn", "effective_expert_ffn"},
//    "effective_kv_heads", "effective_head_size", "effective_ffn", "padded_vocab", "aspect_ratio",
//    "moe_layers", "params", "non_embedding_params", "active_params"}
//
// The struct's members are written as they are (kv_heads, head_size, ffn and expert_ffn may be 0 = derived).
// The keys after "moe" (and "effective_expert_ffn") are derived from the members: the effective sizes, the
// vocabulary padded to vocab_pad_multiple, d_model / layers, the MoE layers, and the exact parameter counts
// (total, without embeddings, active per token). from_json reads the members and ignores the derived keys,
// which may be absent; to_json recomputes them.
#pragma once

#include "doc/document.hpp"
#include "model/architecture.hpp"
#include "model/params.hpp"

namespace isoflop::model {

void to_json(doc::Json& j, const MoeConfig& moe);
void from_json(const doc::Json& j, MoeConfig& moe);

void to_json(doc::Json& j, const Architecture& architecture);
void from_json(const doc::Json& j, Architecture& architecture);

}  // namespace isoflop::model

namespace isoflop::model {

// Parameters by component: {"token_embedding", "position_embedding", "attention", "mlp", "experts", "norms",
// "output_head", "total", "non_embedding", "active"} (integers), "moe_layers" left to the architecture.
void to_json(doc::Json& j, const ParamCount& count);
void from_json(const doc::Json& j, ParamCount& count);

}  // namespace isoflop::model
