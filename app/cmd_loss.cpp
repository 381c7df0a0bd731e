// isoflop loss: the predicted loss of N parameters trained on D tokens (optionally from U unique tokens).
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "core/error.hpp"
#include "report/text_table.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "loss",
    "isoflop loss --params N --tokens D [--unique-tokens U] [options]",
    "Predicted pre-training loss (nats per token) of a model with N parameters trained on D tokens, under a\n"
    "scaling law (default epoch-2024): parametric L = E + A/N^alpha + B/D^beta, Kaplan's L(N, D) in its own\n"
    "non-embedding convention, or Muennighoff's data-constrained law with U unique tokens (repeated epochs\n"
    "count less). --all-laws gives the loss under every law that predicts one.",
    {"isoflop loss --params 70B --tokens 1.4T                 # Chinchilla itself, default law",
     "isoflop loss --params 70B --tokens 1.4T --law chinchilla",
     "isoflop loss --params 6.34B --tokens 242B --unique-tokens 25B --law muennighoff-2023",
     "isoflop loss --params 1B --tokens 20B --all-laws -o json",
     "isoflop loss --params 1B --tokens 20B --law-params 1.69,406.4,410.7,0.34,0.28"}};

struct Row {
  std::string law;
  double loss = 0;
};

}  // namespace

int run_loss(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("params", po::value<std::string>()->value_name("N"), "parameters (70B; non-embedding for kaplan-2020)")
      ("tokens", po::value<std::string>()->value_name("D"), "training tokens, repeats included (1.4T)")
      ("unique-tokens", po::value<std::string>()->value_name("U"), "distinct tokens (D/U epochs)");
  add_law_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  if (!vm.count("params")) throw InputError("loss: missing --params N (e.g. --params 70B)");
  if (!vm.count("tokens")) throw InputError("loss: missing --tokens D (e.g. --tokens 1.4T)");
  scaling::LossQuery query;
  query.params = *get_count(vm, "params");
  query.tokens = *get_count(vm, "tokens");
  query.unique_tokens = get_count(vm, "unique-tokens");

  const catalog::Catalog cat = load_catalog(parsed->common);
  const auto laws = selected_laws(vm, cat, query.unique_tokens.has_value());
  const bool all = vm["all-laws"].as<bool>();
  std::vector<Row> rows;
  Json skipped = Json::array();
  for (const auto& law : laws) {
    if (all && (!scaling::has_loss(law) || (query.unique_tokens && !scaling::handles_unique_tokens(law)))) {
      skipped.push_back({{"law", law.name},
                         {"reason", scaling::has_loss(law) ? "no model of repeated data (unique tokens)"
                                                           : "allocation-only law: predicts no loss"}});
      continue;
    }
    rows.push_back({law.name, scaling::predicted_loss(law, query)});
  }

  Json inputs = {{"params", query.params}, {"tokens", query.tokens}};
  if (query.unique_tokens) inputs["unique_tokens"] = *query.unique_tokens;
  inputs["law"] = all ? Json("all") : Json(laws.front().name);
  if (auto lp = get_string(vm, "law-params")) inputs["law_params"] = *lp;
  auto entry = [&](const Row& r) {
    Json j = {{"law", r.law}, {"params", query.params}, {"tokens", query.tokens}, {"flops", 6.0 * query.params * query.tokens}};
    if (query.unique_tokens) {
      j["unique_tokens"] = *query.unique_tokens;
      j["epochs"] = query.tokens / *query.unique_tokens;
    }
    j["loss"] = r.loss;
    return j;
  };
  Json doc = {{"schema", "isoflop/loss/v1"}, {"inputs", inputs}};
  Json csv = Json::array();
  for (const auto& r : rows) csv.push_back(entry(r));
  if (all) {
    doc["laws"] = csv;
    doc["skipped"] = skipped;
  } else {
    doc.update(csv.front());
    doc["source"] = laws.front().source;
    if (!laws.front().convention.empty()) doc["convention"] = laws.front().convention;
  }
  auto table = [&] {
    if (!all) {
      std::vector<std::pair<std::string, std::string>> kv = {
          {"law", rows.front().law},
          {"parameters", units::format_count(query.params, 4)},
          {"tokens", units::format_count(query.tokens, 4)},
          {"compute (6ND)", units::format_scientific(6.0 * query.params * query.tokens, 4) + " FLOPs"}};
      if (query.unique_tokens) {
        kv.emplace_back("unique tokens", units::format_count(*query.unique_tokens, 4));
        kv.emplace_back("epochs", units::format_significant(query.tokens / *query.unique_tokens, 4));
      }
      kv.emplace_back("loss", units::format_significant(rows.front().loss, 6));
      return report::render_key_values(kv);
    }
    report::TextTable t({"law", "loss"}, {false, true});
    for (const auto& r : rows) t.add_row({r.law, units::format_significant(r.loss, 6)});
    std::string out = t.render();
    for (const auto& s : skipped)
      out += "  skipped " + s["law"].get<std::string>() + ": " + s["reason"].get<std::string>() + "\n";
    return out;
  };
  write_result(parsed->common, doc, table, &csv);
  return 0;
}

}  // namespace isoflop::app
