// `flops`: the model and the workload resolved, then counted.
#include "doc/flops_document.hpp"

#include "core/error.hpp"
#include "doc/architecture_input.hpp"

namespace isoflop::doc {
namespace {

// The tokens a document's run trains: a plan's `budget.tokens` (what its time, FLOPs and cost count; the
// allocation's are the law's optimum for the law's N, not the shaped model's), a flops document's
// `flops.tokens`. None for a document without a run (arch, layout).
std::optional<double> run_tokens(const SourceDocument& from) {
  const char* section = from.kind == "plan" ? "budget" : from.kind == "flops" ? "flops" : nullptr;
  if (!section || !from.json.contains(section)) return std::nullopt;
  const Json& s = from.json.at(section);
  if (!s.is_object() || !s.contains("tokens") || !s.at("tokens").is_number()) return std::nullopt;
  return s.at("tokens").get<double>();
}

}  // namespace

FlopsDocument count_flops(const catalog::Catalog& cat, const FlopsRequest& request) {
  FlopsDocument d;
  d.inputs = request;
  const int models = request.arch.has_value() + request.from.has_value() + request.params.has_value();
  if (models != 1) throw FieldError("arch", "give exactly one model: an architecture, a document, or a parameter count");
  if (request.tokens && request.global_batch)
    throw FieldError("tokens", "give the training tokens or a global batch, not both");
  std::optional<double> tokens = request.tokens;
  if (request.from) {
    const SourceDocument from = read_document(*request.from);
    d.architecture = architecture_of(from);
    if (!tokens && !request.global_batch) tokens = run_tokens(from);
  } else if (request.arch) {
    d.architecture = resolve_architecture(cat, *request.arch);
  }
  const long long seq = request.seq.value_or(d.architecture ? d.architecture->seq : 2048);
  if (seq < 1) throw FieldError("seq", "must be positive");
  // 6·N·D of a bare count has no attention term: a sequence length changes nothing unless it sizes the batch.
  if (request.seq && !d.architecture && !request.global_batch)
    throw FieldError("seq",
                     "changes nothing in 6·N·D of a bare parameter count; give an architecture (its attention "
                     "counts the sequence) or a global batch (sequences × seq = tokens)");
  if (request.global_batch) {
    if (*request.global_batch < 1) throw FieldError("global_batch", "must be positive");
    tokens = static_cast<double>(*request.global_batch) * static_cast<double>(seq);
  }
  if (!tokens)
    throw FieldError("tokens",
                     "give the training tokens or a global batch (a plan or flops document carries its tokens)");
  const model::Recompute recompute = request.recompute.value_or(model::default_recompute(request.convention));
  // Dropping the embeddings is a 6·N·D choice of N, and needs the architecture that has them.
  if (request.non_embedding && !d.architecture)
    throw FieldError("non_embedding", "needs an architecture (a bare parameter count has no embeddings to drop)");
  if (request.non_embedding && request.convention != model::FlopsConvention::k6nd)
    throw FieldError("non_embedding", "applies to 6nd only (the " +
                                          std::string(model::kFlopsConventionNames.name(request.convention)) +
                                          " convention counts the architecture's own matrices)");
  if (d.architecture) {
    d.flops = model::count_flops(*d.architecture, *tokens, seq, request.convention, recompute, request.non_embedding);
  } else {
    if (request.convention != model::FlopsConvention::k6nd)
      throw FieldError("flops_convention", std::string(model::kFlopsConventionNames.name(request.convention)) +
                                               " needs an architecture (a bare parameter count allows only 6nd)");
    d.flops = model::count_flops_6nd(*request.params, *tokens, seq, recompute);
  }
  return d;
}

}  // namespace isoflop::doc
