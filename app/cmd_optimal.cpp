// isoflop optimal: compute-optimal parameters and tokens for a budget, the inverse queries, and the band.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "core/error.hpp"
#include "report/text_table.hpp"
#include "scaling/allocate.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "optimal",
    "isoflop optimal (--flops C | --params N | --tokens D | --target-loss L) [options]",
    "Compute-optimal model size N and training tokens D for a budget of C FLOPs (C = 6ND), under a scaling law\n"
    "(default epoch-2024). Inverse queries: --params N or --tokens D gives the budget at which that size is\n"
    "optimal; --target-loss L the least compute that reaches loss L (with --params N: the tokens N needs).\n"
    "Constraints: --unique-tokens U caps distinct data (repeated epochs decay, Muennighoff et al. 2023);\n"
    "--inference-tokens T minimises training plus inference FLOPs 6ND + 2NT at the loss the compute-optimal\n"
    "model reaches (Sardana et al. 2024). --all-laws answers with every catalog law.",
    {"isoflop optimal --flops 5.76e23                      # Gopher's budget, default law",
     "isoflop optimal --flops 5.76e23 --law chinchilla     # Approach 3, rounded constants",
     "isoflop optimal --flops 1e24 --all-laws              # the spread between the laws",
     "isoflop optimal --params 70B -o json                 # the budget at which 70B is optimal",
     "isoflop optimal --target-loss 2.0                    # least compute for loss 2.0",
     "isoflop optimal --flops 1e23 --unique-tokens 100B --law muennighoff-2023",
     "isoflop optimal --flops 5.76e23 --inference-tokens 2T  # smaller model, more tokens",
     "isoflop optimal --flops 1e22 --law-params 1.69,406.4,410.7,0.34,0.28"}};

std::string loss_text(const scaling::Allocation& a) {
  return a.loss ? units::format_significant(*a.loss, 5) : std::string("n/a");
}

std::string render(const Json& doc, const std::vector<scaling::Allocation>& results,
                   const std::vector<scaling::SkippedLaw>& skipped) {
  std::string out;
  if (results.size() == 1 && skipped.empty()) {
    const auto& a = results.front();
    std::vector<std::pair<std::string, std::string>> kv = {
        {"law", a.law},
        {"compute", units::format_scientific(a.flops, 4) + " FLOPs"},
        {"parameters", units::format_count(a.params, 4)},
        {"tokens", units::format_count(a.tokens, 4)},
        {"tokens/param", units::format_significant(a.tokens_per_param, 4)},
        {"loss", loss_text(a)}};
    if (a.unique_tokens) {
      kv.emplace_back("unique tokens", units::format_count(*a.unique_tokens, 4));
      kv.emplace_back("epochs", units::format_significant(*a.epochs, 4));
    }
    if (a.inference_tokens) {
      kv.emplace_back("inference tokens", units::format_count(*a.inference_tokens, 4));
      kv.emplace_back("inference compute", units::format_scientific(*a.inference_flops, 4) + " FLOPs");
      kv.emplace_back("total compute", units::format_scientific(*a.total_flops, 4) + " FLOPs");
      kv.emplace_back("compute-optimal model", units::format_count(*a.compute_optimal_params, 4) + " params, " +
                                                   units::format_count(*a.compute_optimal_tokens, 4) + " tokens, " +
                                                   units::format_scientific(*a.compute_optimal_total_flops, 4) +
                                                   " FLOPs total");
    }
    kv.emplace_back("method", a.method);
    out = report::render_key_values(kv);
    if (doc.contains("note")) out += "  note: " + doc["note"].get<std::string>() + "\n";
    return out;
  }
  report::TextTable table({"law", "compute (FLOPs)", "params", "tokens", "tokens/param", "loss", "method"},
                          {false, true, true, true, true, true, false});
  for (const auto& a : results)
    table.add_row({a.law, units::format_scientific(a.flops, 4), units::format_count(a.params, 4),
                   units::format_count(a.tokens, 4), units::format_significant(a.tokens_per_param, 4), loss_text(a),
                   a.method});
  out = table.render();
  for (const auto& s : skipped) out += "  skipped " + s.law + ": " + s.reason + "\n";
  return out;
}

}  // namespace

int run_optimal(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("flops", po::value<std::string>()->value_name("C"), "training budget in FLOPs (5.76e23, 1e24)")
      ("params", po::value<std::string>()->value_name("N"), "parameters (70B): the budget at which N is optimal")
      ("tokens", po::value<std::string>()->value_name("D"), "tokens (1.4T): the budget at which D is optimal")
      ("target-loss", po::value<std::string>()->value_name("L"), "the least compute that reaches loss L")
      ("unique-tokens", po::value<std::string>()->value_name("U"), "distinct tokens available (data cap)")
      ("inference-tokens", po::value<std::string>()->value_name("T"), "tokens served over the model's life");
  add_law_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;

  // --target-loss may pin --params (tokens needed by that model); otherwise exactly one query.
  const bool loss_with_params = vm.count("target-loss") && vm.count("params");
  if (loss_with_params) {
    require_one_of(vm, {"flops", "target-loss", "tokens"});
  } else {
    require_one_of(vm, {"flops", "params", "tokens", "target-loss"});
  }
  const auto flops = get_count(vm, "flops");
  const auto params = get_count(vm, "params");
  const auto tokens = get_count(vm, "tokens");
  const auto target = get_number(vm, "target-loss");
  scaling::AllocationConstraints constraints;
  constraints.unique_tokens = get_count(vm, "unique-tokens");
  constraints.inference_tokens = get_count(vm, "inference-tokens", units::Sign::kNonNegative);
  if ((constraints.unique_tokens || constraints.inference_tokens) && (tokens || (params && !target)))
    throw InputError("--unique-tokens and --inference-tokens apply with --flops or --target-loss, not with --params/--tokens");
  if (loss_with_params && constraints.inference_tokens)
    throw InputError("--inference-tokens cannot be combined with --target-loss and --params (the model size is fixed)");

  const catalog::Catalog cat = load_catalog(parsed->common);
  const std::vector<catalog::LawSpec> laws = selected_laws(vm, cat, constraints.unique_tokens.has_value());
  const bool all = vm["all-laws"].as<bool>();

  std::vector<scaling::Allocation> results;
  std::vector<scaling::SkippedLaw> skipped;
  if (loss_with_params) {
    for (const auto& law : laws) {
      try {
        results.push_back(scaling::allocate_fixed_params_for_loss(law, *params, *target, constraints.unique_tokens));
      } catch (const Error& e) {
        if (!all) throw;
        skipped.push_back({law.name, e.what()});
      }
    }
    if (results.empty()) throw InputError("no law can answer this query");
  } else {
    scaling::BandQuery query = flops ? scaling::BandQuery::kFlops
                               : params ? scaling::BandQuery::kParams
                               : tokens ? scaling::BandQuery::kTokens
                                        : scaling::BandQuery::kTargetLoss;
    const double value = flops ? *flops : params ? *params : tokens ? *tokens : *target;
    if (all) {
      scaling::AllocationBand band = scaling::allocation_band(laws, query, value, constraints);
      results = std::move(band.laws);
      skipped = std::move(band.skipped);
    } else {
      const auto& law = laws.front();
      switch (query) {
        case scaling::BandQuery::kFlops: results.push_back(scaling::allocate(law, value, constraints)); break;
        case scaling::BandQuery::kParams: results.push_back(scaling::allocate_for_params(law, value)); break;
        case scaling::BandQuery::kTokens: results.push_back(scaling::allocate_for_tokens(law, value)); break;
        case scaling::BandQuery::kTargetLoss:
          results.push_back(scaling::allocate_for_loss(law, value, constraints));
          break;
      }
    }
  }

  Json inputs = Json::object();
  if (flops) inputs["flops"] = *flops;
  if (params) inputs["params"] = *params;
  if (tokens) inputs["tokens"] = *tokens;
  if (target) inputs["target_loss"] = *target;
  if (constraints.unique_tokens) inputs["unique_tokens"] = *constraints.unique_tokens;
  if (constraints.inference_tokens) inputs["inference_tokens"] = *constraints.inference_tokens;
  inputs["law"] = all ? Json("all") : Json(laws.front().name);
  if (auto lp = get_string(vm, "law-params")) inputs["law_params"] = *lp;
  Json doc = {{"schema", "isoflop/optimal/v1"}, {"inputs", inputs}};
  Json rows = Json::array();
  for (const auto& a : results) rows.push_back(allocation_json(a));
  if (all) {
    doc["laws"] = rows;
    Json skip = Json::array();
    for (const auto& s : skipped) skip.push_back({{"law", s.law}, {"reason", s.reason}});
    doc["skipped"] = skip;
  } else {
    doc.update(rows.front());
    const auto& law = laws.front();
    if (!law.note.empty()) doc["note"] = law.note;
    if (!law.convention.empty()) doc["convention"] = law.convention;
    doc["source"] = law.source;
  }
  write_result(parsed->common, doc, [&] { return render(doc, results, skipped); }, &rows);
  return 0;
}

}  // namespace isoflop::app
