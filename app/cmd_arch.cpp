// isoflop arch: an architecture for a parameter count, dense or a mixture of experts, after a reference family.
#include <spdlog/spdlog.h>

#include <cmath>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/params_json.hpp"
#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/moe_advice.hpp"
#include "model/params.hpp"
#include "model/shape.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "arch",
    "isoflop arch (--params N | --active-params N) [--style chinchilla|kaplan|megatron] [--tp T] [--vocab V]\n"
    "       [--seq S] [--top K] [--moe --experts E [--top-k K] [--capacity-factor F] [--moe-every K] [--ep D]]",
    "Proposes layers, d_model, heads and ffn whose exact parameter count is within 2% of N, with d_model a\n"
    "multiple of 128, heads of 64 or 128 divisible by the tensor-parallel degree, and depth against width after a\n"
    "reference family from data/shapes.yaml: chinchilla (the aspect ratio d_model/layers of Hoffmann et al. 2022\n"
    "Table A9 and Chinchilla 70B, averaged around N), kaplan (the constant aspect of Kaplan et al. 2020's\n"
    "(48, 1600) model) or megatron (NeMo's GPT-3 size bands fix d_model and heads; the depth makes up N). The\n"
    "block (norm, positions, activation, ffn / d_model, vocabulary, sequence) is the family's reference model.\n"
    "It prints the exact count, the ratio to the target and the next best shapes. With --moe it shapes a sparse\n"
    "model: N is the total (or, with --active-params, the active) count, and it reports total and active\n"
    "parameters and the FLOPs per token as a dense equivalent. It warns when the routing departs from ST-MoE's\n"
    "recommendations (Zoph et al. 2022; 'isoflop catalog models' shows them: routing, capacity factors in training\n"
    "and evaluation, experts per layer and per device). Its defaults come from the same catalog entry.",
    {"isoflop arch --params 70B --tp 8                          # 80 x 8192, 64 heads of 128 (Chinchilla 70B)",
     "isoflop arch --params 1.3B --style kaplan --seq 1024",
     "isoflop arch --params 175B --style megatron --tp 8 -o json",
     "isoflop arch --params 269B --moe --experts 64 --tp 8     # ST-MoE-32B-like: 64 experts every 4th layer",
     "isoflop arch --active-params 32B --moe --experts 64 --ep 64",
     "isoflop arch --params 7B --top 5 -o csv"}};

Json architecture_json(const model::Architecture& a) {
  Json j = {{"layers", a.layers},
            {"d_model", a.d_model},
            {"heads", a.heads},
            {"kv_heads", a.effective_kv_heads()},
            {"head_size", a.effective_head_size()},
            {"ffn", model::mlp_hidden_size(a)},
            {"activation", std::string(model::kActivationNames.name(a.activation))},
            {"vocab", a.vocab},
            {"padded_vocab", model::padded_vocab(a)},
            {"seq", a.seq},
            {"positional", std::string(model::kPositionalEncodingNames.name(a.positional))},
            {"norm", std::string(model::kNormKindNames.name(a.norm))},
            {"tied_embeddings", a.tied_embeddings},
            {"bias", a.bias},
            {"aspect_ratio", static_cast<double>(a.d_model) / a.layers}};
  if (a.moe.enabled())
    j["moe"] = {{"experts", a.moe.experts},
                {"top_k", a.moe.top_k},
                {"capacity_factor", a.moe.capacity_factor},
                {"eval_capacity_factor", a.moe.eval_capacity_factor},
                {"every", a.moe.every},
                {"moe_layers", a.layers / a.moe.every}};
  return j;
}

Json candidate_json(const model::FamilyShapeCandidate& c) {
  Json j = {{"layers", c.architecture.layers},
            {"d_model", c.architecture.d_model},
            {"heads", c.architecture.heads},
            {"head_size", c.architecture.effective_head_size()},
            {"ffn", model::mlp_hidden_size(c.architecture)},
            {"params", c.params},
            {"active_params", c.active_params},
            {"ratio", c.ratio},
            {"aspect_ratio", static_cast<double>(c.architecture.d_model) / c.architecture.layers},
            {"score", c.score}};
  return j;
}

std::string percent(double ratio) { return units::format_significant(100 * ratio, 4) + "%"; }

}  // namespace

int run_arch(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("params", po::value<std::string>()->value_name("N"), "parameter budget (total parameters), e.g. 70B")
      ("active-params", po::value<std::string>()->value_name("N"), "with --moe: the active parameters per token instead")
      ("style", po::value<std::string>()->value_name("NAME"), "reference family: chinchilla|kaplan|megatron (default chinchilla)")
      ("tp", po::value<std::string>()->value_name("T"), "tensor-parallel degree, a power of 2: heads divisible by it (default 1)")
      ("vocab", po::value<std::string>()->value_name("V"), "vocabulary size (default: the family's)")
      ("seq", po::value<std::string>()->value_name("S"), "sequence length (default: the family's)")
      ("top", po::value<std::string>()->value_name("K"), "how many alternatives to show (default 3)")
      ("moe", po::bool_switch(), "shape a sparse mixture of experts")
      ("experts", po::value<std::string>()->value_name("E"), "with --moe: experts per MoE layer (at least 2)")
      ("top-k", po::value<std::string>()->value_name("K"), "with --moe: experts per token (default: the catalog's ST-MoE value)")
      ("capacity-factor", po::value<std::string>()->value_name("F"), "with --moe: training capacity factor (default: the catalog's)")
      ("eval-capacity-factor", po::value<std::string>()->value_name("F"), "with --moe: evaluation capacity factor (default: the catalog's)")
      ("moe-every", po::value<std::string>()->value_name("K"), "with --moe: every K-th layer is an MoE layer (default: the catalog's)")
      ("ep", po::value<std::string>()->value_name("D"), "with --moe: expert-parallel devices (must divide the experts)");
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"params", "active-params"});
  const bool moe = vm["moe"].as<bool>();
  if (!moe)
    for (const char* name : {"active-params", "experts", "top-k", "capacity-factor", "eval-capacity-factor", "moe-every", "ep"})
      if (vm.count(name)) throw InputError(std::string("--") + name + ": only with --moe (a sparse model)");
  const bool target_active = vm.count("active-params") > 0;
  const double target = *get_count(vm, target_active ? "active-params" : "params");

  const catalog::Catalog cat = load_catalog(parsed->common);
  const std::string style = get_string(vm, "style").value_or("chinchilla");
  model::FamilyShapeOptions o;
  o.family = cat.shape_family(style, "--style");
  o.block = cat.model(o.family.block, "shape family '" + style + "' block").architecture;
  o.tp = get_int(vm, "tp").value_or(1);
  o.vocab = get_integer(vm, "vocab").value_or(0);
  o.seq = get_integer(vm, "seq").value_or(0);
  o.alternatives = get_int(vm, "top", units::Sign::kNonNegative).value_or(3);
  o.target_active = target_active;
  int ep = 0;
  const catalog::MoeRecommendations* advice = nullptr;
  if (moe) {
    advice = &cat.moe_recommendation();
    if (!vm.count("experts")) throw InputError("--moe needs --experts E (experts per MoE layer, at least 2)");
    o.moe.experts = *get_int(vm, "experts");
    o.moe.top_k = get_int(vm, "top-k").value_or(advice->top_k);
    o.moe.capacity_factor = get_number(vm, "capacity-factor").value_or(advice->capacity_factor);
    o.moe.eval_capacity_factor = get_number(vm, "eval-capacity-factor").value_or(advice->eval_capacity_factor);
    o.moe.every = get_int(vm, "moe-every").value_or(advice->every);
    o.moe.shared_experts = 0;
    o.moe.expert_ffn = 0;
    ep = get_int(vm, "ep").value_or(0);
    if (ep > 0 && o.moe.experts >= 2 && o.moe.experts % ep != 0)
      throw InputError("--ep: " + std::to_string(ep) + " does not divide --experts " + std::to_string(o.moe.experts) +
                       " (each device must hold the same number of experts)");
  }
  const model::FamilyShapeResult r = model::shape_by_family(target, o);
  std::vector<std::string> warnings;
  if (moe) warnings = model::moe_departures(o.moe, ep, *advice);
  for (const auto& w : warnings) spdlog::warn("{}", w);

  const model::Architecture& a = r.best.architecture;
  const model::ParamCount pc = model::count_params(a);
  // FLOPs per token in Hoffmann et al. 2022 App. F (backward = 2 × forward): MoE layers run top-k × capacity
  // factor experts per token plus the router, so this is the sparse model's dense-equivalent cost.
  const double flops_per_token = model::chinchilla_training_flops_per_sequence(a, a.seq) / static_cast<double>(a.seq);
  const double dense_equivalent = flops_per_token / 6;  // the dense N whose 6·N matches it

  Json inputs = {{"style", style}, {"tp", o.tp}, {"top", o.alternatives}};
  inputs[target_active ? "active_params" : "params"] = target;
  if (o.vocab > 0) inputs["vocab"] = o.vocab;
  if (o.seq > 0) inputs["seq"] = o.seq;
  if (moe) {
    inputs["moe"] = {{"experts", o.moe.experts},
                     {"top_k", o.moe.top_k},
                     {"capacity_factor", o.moe.capacity_factor},
                     {"eval_capacity_factor", o.moe.eval_capacity_factor},
                     {"every", o.moe.every}};
    if (ep > 0) inputs["moe"]["ep"] = ep;
  }
  Json preferred = {{"head_size", r.best.preferred.head_size}, {"beyond_family", r.best.preferred.beyond_family}};
  if (o.family.rule == catalog::ShapeRule::kAspect) preferred["aspect_ratio"] = r.best.preferred.aspect;
  else preferred["d_model"] = r.best.preferred.d_model, preferred["heads"] = r.best.preferred.heads;
  Json alternatives = Json::array();
  for (const auto& c : r.alternatives) alternatives.push_back(candidate_json(c));
  Json doc = {{"schema", "isoflop/arch/v1"},
              {"inputs", inputs},
              {"family", {{"name", o.family.name},
                          {"display_name", o.family.display_name},
                          {"rule", std::string(catalog::kShapeRuleNames.name(o.family.rule))},
                          {"block", o.family.block},
                          {"source", o.family.source}}},
              {"preferred", preferred},
              {"architecture", architecture_json(a)},
              {"target_params", target},
              {"params", r.best.params},
              {"active_params", r.best.active_params},
              {"ratio", r.best.ratio},
              {"params_breakdown", params_breakdown_json(pc)},
              {"flops_per_token", flops_per_token},
              {"dense_equivalent_params", dense_equivalent},
              {"d_model_multiple", r.d_model_step},
              {"warnings", warnings},
              {"alternatives", alternatives}};
  if (moe) doc["moe_recommendations"] = {{"top_k", advice->top_k},
                                         {"capacity_factor", advice->capacity_factor},
                                         {"eval_capacity_factor", advice->eval_capacity_factor},
                                         {"max_experts", advice->max_experts},
                                         {"max_experts_per_device", advice->max_experts_per_device},
                                         {"source", advice->source}};

  Json rows = Json::array();
  auto add_row = [&](int rank, const model::FamilyShapeCandidate& c) {
    Json row = {{"rank", rank}};
    row.update(candidate_json(c));
    rows.push_back(row);
  };
  add_row(1, r.best);
  for (size_t i = 0; i < r.alternatives.size(); ++i) add_row(static_cast<int>(i) + 2, r.alternatives[i]);

  auto table = [&] {
    const std::string target_name = target_active ? "active parameters" : "parameters";
    std::string out = "isoflop arch: " + units::format_count(target, 4) + " " + target_name + " after " +
                      o.family.display_name + " (" + o.family.name + ")\n\n";
    std::string prefer;
    if (o.family.rule == catalog::ShapeRule::kAspect)
      prefer = "family prefers " + units::format_significant(r.best.preferred.aspect, 4);
    else
      prefer = "band d_model " + std::to_string(r.best.preferred.d_model) + ", " +
               std::to_string(r.best.preferred.heads) + " heads";
    if (r.best.preferred.beyond_family) prefer += "; beyond the family's largest";
    std::vector<std::pair<std::string, std::string>> kv = {
        {"layers x d_model", std::to_string(a.layers) + " x " + std::to_string(a.d_model) + " (aspect " +
                                 units::format_significant(static_cast<double>(a.d_model) / a.layers, 4) + "; " +
                                 prefer + ")"},
        {"heads x head size", std::to_string(a.heads) + " x " + std::to_string(a.effective_head_size()) +
                                  (o.tp > 1 ? " (" + std::to_string(a.heads / o.tp) + " per GPU at TP " +
                                                  std::to_string(o.tp) + ")"
                                            : "")},
        {"kv heads", std::to_string(a.effective_kv_heads())},
        {"ffn", std::to_string(model::mlp_hidden_size(a)) + " (" +
                    std::string(model::kActivationNames.name(a.activation)) + ")"},
        {"vocabulary", std::to_string(a.vocab) + (model::padded_vocab(a) != a.vocab
                                                      ? " (padded to " + std::to_string(model::padded_vocab(a)) + ")"
                                                      : "")},
        {"sequence", std::to_string(a.seq) + ", " + std::string(model::kPositionalEncodingNames.name(a.positional)) +
                         " positions, " + std::string(model::kNormKindNames.name(a.norm))}};
    if (a.moe.enabled()) {
      kv.push_back({"experts", std::to_string(a.moe.experts) + " per MoE layer, every " + std::to_string(a.moe.every) +
                                   (a.moe.every == 1 ? "st" : "th") + " layer (" + std::to_string(pc.moe_layers) +
                                   " MoE layers), top-" + std::to_string(a.moe.top_k) + ", capacity " +
                                   units::format_significant(a.moe.capacity_factor, 3) + " / " +
                                   units::format_significant(a.moe.eval_capacity_factor, 3) + " (train / eval)"});
    }
    kv.push_back({"parameters (exact)", units::format_count(r.best.params, 4) + " = " +
                                            units::format_scientific(r.best.params, 7) +
                                            (target_active ? "" : " (" + percent(r.best.ratio) + " of target)")});
    if (a.moe.enabled())
      kv.push_back({"active parameters", units::format_count(r.best.active_params, 4) +
                                             (target_active ? " (" + percent(r.best.ratio) + " of target)" : "")});
    kv.push_back({"FLOPs per token",
                  units::format_scientific(flops_per_token, 4) + " (Hoffmann et al. 2022 App. F" +
                      (a.moe.enabled() ? "; as a dense model of 6 x " + units::format_count(dense_equivalent, 4) : "") +
                      ")"});
    out += report::render_key_values(kv, 2);
    out += "\nParameters by component\n";
    report::TextTable t({"component", "parameters"});
    for (const auto& [k, v] : doc["params_breakdown"].items())
      if (v.get<double>() > 0 || k == "total") t.add_row({k, units::format_count(v.get<double>(), 4)});
    out += t.render();
    if (!r.alternatives.empty()) {
      out += "\nAlternatives\n";
      report::TextTable alt({"#", "layers", "d_model", "heads", "head size", "ffn", "parameters",
                             target_active ? "active" : "of target", "aspect"});
      int rank = 2;
      for (const auto& c : r.alternatives)
        alt.add_row({std::to_string(rank++), std::to_string(c.architecture.layers),
                     std::to_string(c.architecture.d_model), std::to_string(c.architecture.heads),
                     std::to_string(c.architecture.effective_head_size()),
                     std::to_string(model::mlp_hidden_size(c.architecture)), units::format_count(c.params, 4),
                     target_active ? units::format_count(c.active_params, 4) + " (" + percent(c.ratio) + ")"
                                   : percent(c.ratio),
                     units::format_significant(static_cast<double>(c.architecture.d_model) / c.architecture.layers, 4)});
      out += alt.render();
    }
    if (!warnings.empty()) out += "\n" + std::to_string(warnings.size()) + " departure(s) from ST-MoE's recommendations (see stderr)\n";
    return out;
  };
  write_result(parsed->common, doc, table, &rows);
  return 0;
}

}  // namespace isoflop::app
