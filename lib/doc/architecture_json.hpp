// JSON of an architecture (model::Architecture with its MoeConfig): the one shape of "architecture" in the
// arch, flops, layout and plan documents. The struct's members are written as they are (kv_heads, head_size,
// ffn and expert_ffn may be 0 = derived); then come keys derived from them: the effective sizes, the
// vocabulary padded to vocab_pad_multiple, d_model / layers, the MoE layers and the exact parameter counts
// (total, without embeddings, active per token). from_json reads the members and ignores the derived keys,
// which may be absent; to_json recomputes them. "moe" is null for a dense model.
#pragma once

#include "doc/fields.hpp"
#include "model/architecture.hpp"
#include "model/params.hpp"

namespace isoflop::doc {

template <>
inline constexpr auto fields<model::MoeConfig> =
    std::tuple{field("experts", &model::MoeConfig::experts),
               field("top_k", &model::MoeConfig::top_k), field("capacity_factor", &model::MoeConfig::capacity_factor),
               field("eval_capacity_factor", &model::MoeConfig::eval_capacity_factor),
               field("every", &model::MoeConfig::every), field("shared_experts", &model::MoeConfig::shared_experts),
               field("expert_ffn", &model::MoeConfig::expert_ffn),
               on_read([](const Json& j, const model::MoeConfig& m) {
                 if (m.experts < 1)
                   fail_at(j.at("experts"), "must be at least 1 (write \"moe\": null for a dense model)");
                 if (m.every < 1) fail_at(j.at("every"), "must be at least 1");
                 if (m.top_k < 1) fail_at(j.at("top_k"), "must be at least 1");
                 if (m.shared_experts < 0) fail_at(j.at("shared_experts"), "must not be negative");
                 if (m.expert_ffn < 0 || m.expert_ffn > model::kMaxArchitectureSize)
                   fail_at(j.at("expert_ffn"), "must be in [0, " + std::to_string(model::kMaxArchitectureSize) +
                                                   "] (0: the dense ffn size)");
               })};

}  // namespace isoflop::doc

namespace isoflop::model {

void to_json(doc::Json& j, const Architecture& architecture);
void from_json(const doc::Json& j, Architecture& architecture);

// Parameters by component: {"token_embedding", "position_embedding", "attention", "mlp", "experts", "norms",
// "output_head", "total", "non_embedding", "active"} (integers), "moe_layers" left to the architecture.
void to_json(doc::Json& j, const ParamCount& count);
void from_json(const doc::Json& j, ParamCount& count);

}  // namespace isoflop::model
