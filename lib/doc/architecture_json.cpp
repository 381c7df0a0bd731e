// JSON of architectures: the members, then values derived from them.
#include "doc/architecture_json.hpp"

#include <cmath>

#include "model/params.hpp"

namespace isoflop::model {

using doc::Json;
using doc::read;

void to_json(Json& j, const MoeConfig& m) {
  j = Json::object();
  j["experts"] = m.experts;
  j["top_k"] = m.top_k;
  j["capacity_factor"] = m.capacity_factor;
  j["eval_capacity_factor"] = m.eval_capacity_factor;
  j["every"] = m.every;
  j["shared_experts"] = m.shared_experts;
  j["expert_ffn"] = m.expert_ffn;
}

void from_json(const Json& j, MoeConfig& m) {
  m = MoeConfig{};
  if (!j.is_object()) doc::fail_at(j, "must be an object or null");
  read(j, "experts", m.experts);
  read(j, "top_k", m.top_k);
  read(j, "capacity_factor", m.capacity_factor);
  read(j, "eval_capacity_factor", m.eval_capacity_factor);
  read(j, "every", m.every);
  read(j, "shared_experts", m.shared_experts);
  read(j, "expert_ffn", m.expert_ffn);
  if (m.experts < 1) doc::fail_at(j.at("experts"), "must be at least 1 (write \"moe\": null for a dense model)");
  if (m.every < 1) doc::fail_at(j.at("every"), "must be at least 1");
}

void to_json(Json& j, const Architecture& a) {
  j = Json::object();
  j["name"] = a.name;
  j["layers"] = a.layers;
  j["d_model"] = a.d_model;
  j["heads"] = a.heads;
  j["kv_heads"] = a.kv_heads;
  j["head_size"] = a.head_size;
  j["ffn"] = a.ffn;
  j["activation"] = doc::enum_json(a.activation, kActivationNames);
  j["vocab"] = a.vocab;
  j["vocab_pad_multiple"] = a.vocab_pad_multiple;
  j["seq"] = a.seq;
  j["positional"] = doc::enum_json(a.positional, kPositionalEncodingNames);
  j["norm"] = doc::enum_json(a.norm, kNormKindNames);
  j["tied_embeddings"] = a.tied_embeddings;
  j["bias"] = a.bias;
  if (a.moe.enabled()) {
    j["moe"] = a.moe;
    j["moe"]["effective_expert_ffn"] = a.moe.expert_ffn > 0 ? a.moe.expert_ffn : mlp_hidden_size(a);
  } else {
    j["moe"] = nullptr;
  }
  // Derived from the members above; from_json skips them.
  const ParamCount pc = count_params(a);
  j["effective_kv_heads"] = a.effective_kv_heads();
  j["effective_head_size"] = a.effective_head_size();
  j["effective_ffn"] = mlp_hidden_size(a);
  j["padded_vocab"] = padded_vocab(a);
  j["aspect_ratio"] = a.layers > 0 ? doc::finite_or_null(static_cast<double>(a.d_model) / a.layers) : Json(nullptr);
  j["moe_layers"] = pc.moe_layers;
  j["params"] = std::llround(pc.total());
  j["non_embedding_params"] = std::llround(pc.non_embedding());
  j["active_params"] = std::llround(pc.active);
}

void from_json(const Json& j, Architecture& a) {
  a = Architecture{};
  if (!j.is_object()) doc::fail_at(j, "must be an object");
  read(j, "name", a.name);
  read(j, "layers", a.layers);
  read(j, "d_model", a.d_model);
  read(j, "heads", a.heads);
  read(j, "kv_heads", a.kv_heads);
  read(j, "head_size", a.head_size);
  read(j, "ffn", a.ffn);
  doc::read_enum(j, "activation", kActivationNames, a.activation);
  read(j, "vocab", a.vocab);
  read(j, "vocab_pad_multiple", a.vocab_pad_multiple);
  read(j, "seq", a.seq);
  doc::read_enum(j, "positional", kPositionalEncodingNames, a.positional);
  doc::read_enum(j, "norm", kNormKindNames, a.norm);
  read(j, "tied_embeddings", a.tied_embeddings);
  read(j, "bias", a.bias);
  const Json& moe = j.at("moe");
  if (!moe.is_null()) moe.get_to(a.moe);
  for (const char* key : {"layers", "d_model", "heads", "vocab", "vocab_pad_multiple", "seq"})
    if (j.at(key).get<long long>() < 1) doc::fail_at(j.at(key), "must be positive");
  for (const char* key : {"kv_heads", "head_size", "ffn"})
    if (j.at(key).get<long long>() < 0) doc::fail_at(j.at(key), "must not be negative");
  if (a.head_size == 0 && a.d_model % a.heads != 0)
    doc::fail_at(j.at("heads"), "d_model " + std::to_string(a.d_model) + " is not divisible by heads " +
                                    std::to_string(a.heads) + " (give head_size to override)");
  if (a.kv_heads > 0 && a.heads % a.kv_heads != 0)
    doc::fail_at(j.at("kv_heads"), "heads " + std::to_string(a.heads) + " must be a multiple of kv_heads");
  if (a.moe.enabled() && a.moe.top_k > a.moe.experts) doc::fail_at(moe.at("top_k"), "must not exceed experts");
}

}  // namespace isoflop::model

namespace isoflop::model {

void to_json(doc::Json& j, const ParamCount& p) {
  j = doc::Json::object();
  j["token_embedding"] = std::llround(p.token_embedding);
  j["position_embedding"] = std::llround(p.position_embedding);
  j["attention"] = std::llround(p.attention);
  j["mlp"] = std::llround(p.mlp);
  j["experts"] = std::llround(p.experts);
  j["norms"] = std::llround(p.norms);
  j["output_head"] = std::llround(p.output_head);
  j["total"] = std::llround(p.total());
  j["non_embedding"] = std::llround(p.non_embedding());
  j["active"] = std::llround(p.active);
}

void from_json(const doc::Json& j, ParamCount& p) {
  p = ParamCount{};
  for (auto [key, field] : {std::pair{"token_embedding", &p.token_embedding}, {"position_embedding", &p.position_embedding},
                            {"attention", &p.attention}, {"mlp", &p.mlp}, {"experts", &p.experts},
                            {"norms", &p.norms}, {"output_head", &p.output_head}, {"active", &p.active}}) {
    long long v = 0;
    doc::read(j, key, v);
    *field = static_cast<double>(v);
  }
}

}  // namespace isoflop::model
