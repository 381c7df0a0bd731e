// Parsing architectures (models.yaml entries and --arch files).
#include "catalog/models.hpp"

#include "catalog/entry_fields.hpp"

#include "core/error.hpp"
#include "model/params.hpp"

namespace isoflop::catalog {
namespace {

template <typename E, size_t N>
E parse_enum(FieldReader& r, const std::string& key, const EnumNames<E, N>& names, E fallback) {
  if (!r.has(key)) {
    (void)r.string_or(key, "");
    return fallback;
  }
  const std::string text = r.string(key);
  try {
    return names.parse(text, key);
  } catch (const InputError& e) {
    r.fail(key, "'" + text + "' is not one of " + join(names.names(), "|"));
  }
}

int to_int(FieldReader& r, const std::string& key, long long value) {
  if (value > 1'000'000'000LL) r.fail(key, "is implausibly large");
  return static_cast<int>(value);
}

// A size (d_model, head_size, ffn, expert_ffn) at most model::kMaxArchitectureSize.
long long size_field(FieldReader& r, const std::string& key, long long value) {
  if (value > model::kMaxArchitectureSize)
    r.fail(key, "is implausibly large (at most " + std::to_string(model::kMaxArchitectureSize) + ")");
  return value;
}

}  // namespace

model::Architecture parse_architecture(FieldReader& r) {
  model::Architecture a;
  a.name = r.string_or("name", "");
  a.layers = to_int(r, "layers", r.positive_integer("layers"));
  a.d_model = size_field(r, "d_model", r.positive_integer("d_model"));
  a.heads = to_int(r, "heads", r.positive_integer("heads"));
  a.kv_heads = to_int(r, "kv_heads", r.non_negative_integer_or("kv_heads", 0));
  a.head_size = size_field(r, "head_size", r.non_negative_integer_or("head_size", 0));
  a.ffn = size_field(r, "ffn", r.non_negative_integer_or("ffn", 0));
  a.activation = parse_enum(r, "activation", model::kActivationNames, model::Activation::kGelu);
  a.vocab = r.limited("vocab", r.positive_integer("vocab"));
  a.vocab_pad_multiple = to_int(r, "vocab_pad_multiple", r.positive_integer_or("vocab_pad_multiple", 1));
  a.seq = r.limited("seq", r.positive_integer_or("seq", 2048));
  a.positional = parse_enum(r, "positional", model::kPositionalEncodingNames, model::PositionalEncoding::kLearned);
  a.tied_embeddings = r.boolean_or("tied_embeddings", true);
  a.norm = parse_enum(r, "norm", model::kNormKindNames, model::NormKind::kLayerNorm);
  a.bias = r.boolean_or("bias", true);
  if (auto moe = r.optional_child("moe")) {
    FieldReader m(*moe, r.file(), "moe of '" + a.name + "'");
    a.moe.experts = to_int(m, "experts", m.positive_integer("experts"));
    a.moe.top_k = to_int(m, "top_k", m.positive_integer_or("top_k", 2));
    a.moe.capacity_factor = m.positive_or("capacity_factor", 1.25);
    a.moe.eval_capacity_factor = m.positive_or("eval_capacity_factor", 2.0);
    a.moe.every = to_int(m, "every", m.positive_integer_or("every", 1));
    a.moe.shared_experts = to_int(m, "shared_experts", m.non_negative_integer_or("shared_experts", 0));
    a.moe.expert_ffn = size_field(m, "expert_ffn", m.non_negative_integer_or("expert_ffn", 0));
    m.finish();
    if (a.moe.top_k > a.moe.experts) m.fail("top_k", "must not exceed experts");
  }
  if (a.d_model % a.heads != 0 && a.head_size == 0)
    r.fail("heads", "d_model " + std::to_string(a.d_model) + " is not divisible by heads " +
                        std::to_string(a.heads) + " (give head_size to override)");
  if (a.kv_heads > 0 && a.heads % a.kv_heads != 0)
    r.fail("kv_heads", "heads " + std::to_string(a.heads) + " must be a multiple of kv_heads");
  if (const double params = model::count_params(a).total(); params > model::kMaxParams)
    r.fail("", model::too_many_params(params));
  return a;
}

ModelEntry parse_model(FieldReader& r) {
  return read_named_entry<ModelEntry>(r, [&](ModelEntry& m) {
    m.architecture = parse_architecture(r);
    m.architecture.name = m.name;
    m.published_params = r.non_negative_or("published_params", 0);
    m.tokens_trained = r.non_negative_or("tokens_trained", 0);
  });
}

}  // namespace isoflop::catalog
