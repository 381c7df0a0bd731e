// Choosing laws and answering `optimal` and `loss` questions with them.
#include "scaling/query.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"

namespace isoflop::scaling {

std::vector<catalog::LawSpec> select_laws(const catalog::Catalog& catalog, const LawChoice& choice,
                                          bool unique_tokens) {
  if (choice.all_laws && (choice.law || choice.law_params))
    throw FieldError("all_laws", "conflicts with a named law or law constants; give one");
  if (choice.law && choice.law_params)
    throw FieldError("law", "conflicts with the law constants given by hand; give a named law or the constants");
  std::vector<catalog::LawSpec> laws;
  if (choice.all_laws) {
    laws = catalog.laws;
  } else if (choice.law_params) {
    laws.push_back(law_from_params(*choice.law_params));
  } else {
    laws.push_back(catalog.law(choice.law.value_or(kDefaultLaw)));
  }
  if (unique_tokens) {
    const catalog::LawSpec* donor = catalog.find_law("muennighoff-2023");
    if (donor && donor->kind() == catalog::LawKind::kDataConstrained)
      for (auto& law : laws) law = with_repetition_decay(law, *donor);
  }
  return laws;
}

void OptimalRequest::validate() const {
  const int given = flops.has_value() + params.has_value() + tokens.has_value() + target_loss.has_value();
  const bool loss_with_params = target_loss && params;
  if (given == 0) throw FieldError("flops", "missing: give a budget (flops), params, tokens or a target_loss");
  if (given > 1 && !(given == 2 && loss_with_params))
    throw FieldError(flops ? "flops" : "params", "give one of flops, params, tokens, target_loss (target_loss "
                                                 "may come with params)");
  const bool constrained = unique_tokens || inference_tokens;
  if (constrained && (tokens || (params && !target_loss)))
    throw FieldError(unique_tokens ? "unique_tokens" : "inference_tokens",
                     "applies with a budget (flops) or a target_loss, not with params or tokens alone");
  if (loss_with_params && inference_tokens)
    throw FieldError("inference_tokens", "cannot be combined with a target_loss for fixed params (the model size "
                                         "is fixed)");
  AllocationConstraints{unique_tokens, inference_tokens}.validate();
}

std::string outside_fit(const catalog::LawSpec& law, double params) {
  const auto [smallest, largest] = law.fitted_params;
  if (!(smallest > 0) || (params >= smallest && params <= largest)) return "";
  const std::string kind = law.parameters == "non-embedding" ? " non-embedding" : "";
  return "an extrapolation: " + units::format_count(params) + kind + " parameters is " +
         (params < smallest ? "fewer" : "more") + " than the " + units::format_count(smallest) + " to " +
         units::format_count(largest) + " of the runs " + law.name + " was fitted to";
}

OptimalAnswer answer_optimal(const catalog::Catalog& catalog, const OptimalRequest& request) {
  request.validate();
  const AllocationConstraints constraints{request.unique_tokens, request.inference_tokens};
  const auto laws = select_laws(catalog, request.laws, request.unique_tokens.has_value());
  const bool all = request.laws.all_laws;
  OptimalAnswer out;
  if (request.target_loss && request.params) {
    // Infeasible when every law that could take the target found no solution (not a bad input).
    bool only_unreachable = true, any_unreachable = false;
    for (const auto& law : laws) {
      try {
        out.allocations.push_back(
            allocate_fixed_params_for_loss(law, *request.params, *request.target_loss, request.unique_tokens));
      } catch (const Error& e) {
        if (!all) throw;
        // A law with no loss cannot take a target at all: skipped, whatever the others found.
        const bool unreachable = dynamic_cast<const InfeasibleError*>(&e) != nullptr;
        any_unreachable = any_unreachable || unreachable;
        only_unreachable = only_unreachable && (unreachable || !has_loss(law));
        out.skipped.push_back({law.name, e.what()});
      }
    }
    if (out.allocations.empty()) throw_unanswered(out.skipped, only_unreachable && any_unreachable);
  } else {
    const BandQuery query = request.flops    ? BandQuery::kFlops
                            : request.params ? BandQuery::kParams
                            : request.tokens ? BandQuery::kTokens
                                             : BandQuery::kTargetLoss;
    const double value = request.flops    ? *request.flops
                         : request.params ? *request.params
                         : request.tokens ? *request.tokens
                                          : *request.target_loss;
    if (all) {
      AllocationBand band = allocation_band(laws, query, value, constraints);
      out.allocations = std::move(band.laws);
      out.skipped = std::move(band.skipped);
      out.notes.insert(out.notes.end(), band.notes.begin(), band.notes.end());
    } else {
      const auto& law = laws.front();
      switch (query) {
        case BandQuery::kFlops: out.allocations.push_back(allocate(law, value, constraints)); break;
        case BandQuery::kParams: out.allocations.push_back(allocate_for_params(law, value)); break;
        case BandQuery::kTokens: out.allocations.push_back(allocate_for_tokens(law, value)); break;
        case BandQuery::kTargetLoss: out.allocations.push_back(allocate_for_loss(law, value, constraints)); break;
      }
    }
  }
  if (!all && !laws.front().note.empty()) out.notes.push_back(laws.front().name + ": " + laws.front().note);
  // One law outside its runs: said as a sentence; several (a band): one line naming each.
  std::vector<std::string> outside;
  std::string only;
  for (const auto& a : out.allocations)
    for (const auto& law : laws) {
      if (law.name != a.law) continue;
      std::string sentence = outside_fit(law, a.params);
      if (sentence.empty()) continue;
      only = std::move(sentence);
      outside.push_back(law.name + " " + units::format_count(a.params) +
                        (law.parameters == "non-embedding" ? " non-embedding" : "") + " (fitted " +
                        units::format_count(law.fitted_params[0]) + " to " + units::format_count(law.fitted_params[1]) +
                        ")");
    }
  if (outside.size() == 1) out.notes.push_back(only);
  if (outside.size() > 1)
    out.notes.push_back("extrapolations past the model sizes each law was fitted to: " + join(outside, ", "));
  // The laws were fitted to runs of at most ~1e13 tokens: an answer past the longest a run may have is the formula
  // extrapolated over many decades, not a plan (plan refuses it).
  double most_tokens = 0;
  for (const auto& a : out.allocations) most_tokens = std::max(most_tokens, a.tokens);
  if (most_tokens > units::kMaxTrainingTokens)
    out.notes.push_back("an extrapolation: " + units::format_scientific(most_tokens) + " tokens is more than the " +
                        units::format_scientific(units::kMaxTrainingTokens) +
                        " a training run may have, far past the runs the laws were fitted to");
  return out;
}

LossAnswer answer_loss(const catalog::Catalog& catalog, const LossRequest& request) {
  LossQuery query{request.params, request.tokens, request.unique_tokens};
  query.validate();
  const auto laws = select_laws(catalog, request.laws, request.unique_tokens.has_value());
  LossAnswer out;
  for (const auto& law : laws) {
    if (request.laws.all_laws && (!has_loss(law) || (query.unique_tokens && !handles_unique_tokens(law)))) {
      out.skipped.push_back({law.name, has_loss(law) ? "no model of repeated data (unique tokens)"
                                                     : "allocation-only law: predicts no loss"});
      continue;
    }
    LossEstimate e;
    e.law = law.name;
    e.params = query.params;
    e.tokens = query.tokens;
    e.flops = 6.0 * query.params * query.tokens;
    e.unique_tokens = query.unique_tokens;
    if (query.unique_tokens) e.epochs = query.tokens / *query.unique_tokens;
    e.loss = predicted_loss(law, query);
    e.parameters = law.parameters;
    e.dataset = law.dataset;
    e.note = law.note;
    e.extrapolation = outside_fit(law, query.params);
    out.losses.push_back(std::move(e));
  }
  return out;
}

}  // namespace isoflop::scaling
