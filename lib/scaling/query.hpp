// The questions `optimal` and `loss` answer, in the library's words: which laws (one by name, one given by
// its constants, or all of the catalog), and what is asked of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::scaling {

// Which laws answer: a catalog law by name, a parametric law by its constants "E,A,B,alpha,beta[,gamma]", or every
// catalog law. None given: the default law (kDefaultLaw).
struct LawChoice {
  std::optional<std::string> law;
  std::optional<std::string> law_params;
  bool all_laws = false;

  bool operator==(const LawChoice&) const = default;
};

// The laws of `choice`; with `unique_tokens`, parametric laws take the data-constrained law's repetition
// decay (with_repetition_decay). Throws FieldError ("law", "law_params", "all_laws") for a conflicting
// choice or an unknown law.
std::vector<catalog::LawSpec> select_laws(const catalog::Catalog& catalog, const LawChoice& choice,
                                          bool unique_tokens = false);

// An allocation question: exactly one of flops, params, tokens, target_loss; or target_loss with params
// (the tokens that model needs). Constraints apply with flops or target_loss.
struct OptimalRequest {
  std::optional<double> flops;
  std::optional<double> params;
  std::optional<double> tokens;
  std::optional<double> target_loss;
  std::optional<double> unique_tokens;
  std::optional<double> inference_tokens;
  LawChoice laws;

  bool operator==(const OptimalRequest&) const = default;
  // Throws FieldError naming the offending field.
  void validate() const;
};

// The answers of every chosen law (one without all_laws), and the laws that could not answer.
struct OptimalAnswer {
  std::vector<Allocation> allocations;
  std::vector<SkippedLaw> skipped;
  std::vector<std::string> notes;  // the laws' caveats ("chinchilla: …")
};
OptimalAnswer answer_optimal(const catalog::Catalog& catalog, const OptimalRequest& request);

// Where `params` lies outside the model sizes `law` was fitted to (data/laws.yaml fitted_params): "an
// extrapolation: 72.2B parameters is more than the 70M to 16B of the runs epoch-2024 was fitted to"; "" inside
// them or where the catalog has no range for the law.
std::string outside_fit(const catalog::LawSpec& law, double params);

// A loss question: N parameters trained on D tokens, optionally from U unique tokens.
struct LossRequest {
  double params = 0;
  double tokens = 0;
  std::optional<double> unique_tokens;
  LawChoice laws;

  bool operator==(const LossRequest&) const = default;
};

// One law's prediction.
struct LossEstimate {
  std::string law;
  double params = 0;
  double tokens = 0;
  double flops = 0;                     // 6·N·D
  std::optional<double> unique_tokens;  // U
  std::optional<double> epochs;         // D/U
  double loss = 0;                      // nats per token
  // Which N the law counts ("total", "non-embedding": Kaplan et al. 2020) and what it was fitted on: losses of
  // different datasets (and tokenizers) do not compare, and N means the same model only under one convention.
  std::string parameters;
  std::string dataset;
  // The law's note: its caveats, and with unique tokens where its repeated-data decay comes from ("repeated
  // tokens decay with R_D* = 15.3878 from muennighoff-2023").
  std::string note;
  // Where N lies outside the runs the law was fitted to (data/laws.yaml fitted_params): that it is an
  // extrapolation and by which bound; "" inside them.
  std::string extrapolation;

  bool operator==(const LossEstimate&) const = default;
};

struct LossAnswer {
  std::vector<LossEstimate> losses;
  std::vector<SkippedLaw> skipped;
};
// Throws FieldError for an invalid request, InputError when the single chosen law cannot answer.
LossAnswer answer_loss(const catalog::Catalog& catalog, const LossRequest& request);

}  // namespace isoflop::scaling
