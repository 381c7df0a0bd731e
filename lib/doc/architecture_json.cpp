// JSON of architectures: the members, then values derived from them.
#include "doc/architecture_json.hpp"

#include <cmath>

#include "units/integer_limits.hpp"

namespace isoflop::model {
namespace {

using doc::derived;
using doc::field;
using doc::Json;
using doc::names;

// An "moe" object carries the expert size in effect (the dense ffn's when expert_ffn is 0).
Json moe_json(const Architecture& a) {
  if (!a.moe.enabled()) return nullptr;
  Json j = a.moe;
  j["effective_expert_ffn"] = a.moe.expert_ffn > 0 ? a.moe.expert_ffn : mlp_hidden_size(a);
  return j;
}

void read_moe(const Json& j, Architecture& a) {
  if (!j.is_null()) j.get_to(a.moe);
}

void check(const Json& j, const Architecture& a) {
  for (const char* key : {"layers", "d_model", "heads", "vocab", "vocab_pad_multiple", "seq"})
    if (j.at(key).get<long long>() < 1) doc::fail_at(j.at(key), "must be positive");
  for (const char* key : {"kv_heads", "head_size", "ffn"})
    if (j.at(key).get<long long>() < 0) doc::fail_at(j.at(key), "must not be negative");
  for (const char* key : {"d_model", "head_size", "ffn"})
    if (j.at(key).get<long long>() > kMaxArchitectureSize)
      doc::fail_at(j.at(key), "must be at most " + std::to_string(kMaxArchitectureSize));
  for (const char* key : {"vocab", "seq"})  // the sanity limits every command applies (units/integer_limits.hpp)
    if (const long long limit = *units::integer_limit(key); j.at(key).get<long long>() > limit)
      doc::fail_at(j.at(key), "must be at most " + std::to_string(limit));
  if (a.head_size == 0 && a.d_model % a.heads != 0)
    doc::fail_at(j.at("heads"), "d_model " + std::to_string(a.d_model) + " is not divisible by heads " +
                                    std::to_string(a.heads) + " (give head_size to override)");
  if (a.kv_heads > 0 && a.heads % a.kv_heads != 0)
    doc::fail_at(j.at("kv_heads"), "heads " + std::to_string(a.heads) + " must be a multiple of kv_heads");
  if (a.moe.enabled() && a.moe.top_k > a.moe.experts) doc::fail_at(j.at("moe").at("top_k"), "must not exceed experts");
  if (const double params = count_params(a).total(); params > kMaxParams)
    doc::fail_at(j, too_many_params(params));
}

// "moe_layers", "params", "non_embedding_params", "active_params": from one count, not read.
struct Counts {
  void write(Json& j, const Architecture& a) const {
    const ParamCount pc = count_params(a);
    j["moe_layers"] = pc.moe_layers;
    j["params"] = std::llround(pc.total());
    j["non_embedding_params"] = std::llround(pc.non_embedding());
    j["active_params"] = std::llround(pc.active);
  }
  void read(const Json&, Architecture&) const {}
};

using A = Architecture;
constexpr auto kArchitecture = std::tuple{
    field("name", &A::name), field("layers", &A::layers), field("d_model", &A::d_model), field("heads", &A::heads),
    field("kv_heads", &A::kv_heads), field("head_size", &A::head_size), field("ffn", &A::ffn),
    field("activation", &A::activation, names(kActivationNames)), field("vocab", &A::vocab),
    field("vocab_pad_multiple", &A::vocab_pad_multiple), field("seq", &A::seq),
    field("positional", &A::positional, names(kPositionalEncodingNames)),
    field("norm", &A::norm, names(kNormKindNames)), field("tied_embeddings", &A::tied_embeddings),
    field("bias", &A::bias), doc::custom("moe", moe_json, read_moe),
    // Derived from the members above; not read.
    derived("effective_kv_heads", [](const A& a) { return a.effective_kv_heads(); }),
    derived("effective_head_size", [](const A& a) { return a.effective_head_size(); }),
    derived("effective_ffn", [](const A& a) { return mlp_hidden_size(a); }),
    derived("padded_vocab", [](const A& a) { return padded_vocab(a); }),
    derived("aspect_ratio",
            [](const A& a) {
              return a.layers > 0 ? doc::finite_or_null(static_cast<double>(a.d_model) / a.layers) : Json(nullptr);
            }),
    Counts{}, doc::on_read(check)};

// A count kept as a double, written rounded to an integer.
struct Rounded {
  Json encode(double v) const { return std::llround(v); }
  void decode(const Json& j, const char* key, double& out) const {
    long long v = 0;
    doc::read(j, key, v);
    out = static_cast<double>(v);
  }
};

using P = ParamCount;
constexpr auto kParamCount =
    std::tuple{field("token_embedding", &P::token_embedding, Rounded{}),
               field("position_embedding", &P::position_embedding, Rounded{}),
               field("attention", &P::attention, Rounded{}), field("mlp", &P::mlp, Rounded{}),
               field("experts", &P::experts, Rounded{}), field("norms", &P::norms, Rounded{}),
               field("output_head", &P::output_head, Rounded{}),
               derived("total", [](const P& p) { return std::llround(p.total()); }),
               derived("non_embedding", [](const P& p) { return std::llround(p.non_embedding()); }),
               field("active", &P::active, Rounded{})};

}  // namespace

void to_json(Json& j, const Architecture& a) { doc::write_fields(j, a, kArchitecture); }
void from_json(const Json& j, Architecture& a) { doc::read_fields(j, a, kArchitecture); }

void to_json(Json& j, const ParamCount& p) { doc::write_fields(j, p, kParamCount); }
void from_json(const Json& j, ParamCount& p) { doc::read_fields(j, p, kParamCount); }

}  // namespace isoflop::model
