// The cost document: the request resolved against the catalog, costed, and written and read as JSON.
#include "doc/cost_document.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "cost/run_cost.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

// The cluster: a catalog node (given, or the accelerator's reference node), or — for an accelerator the
// catalog houses in no node, such as a TPU — just the accelerator and a count (node power is unavailable).
struct CostCluster {
  catalog::Accelerator accelerator;
  const catalog::Node* node = nullptr;
  int gpus = 0;
  int gpus_per_node = 1;
};

CostCluster resolve(const catalog::Catalog& cat, const parallel::ClusterRequest& request) {
  CostCluster c;
  if (request.gpu && !request.node) {
    const catalog::Accelerator& acc = cat.accelerator(*request.gpu, "gpu");
    if (acc.reference_node.empty()) {
      if (request.nodes)
        throw FieldError("nodes", "accelerator '" + acc.name + "' has no node in the catalog; give the accelerator count");
      if (!request.gpus) throw FieldError("gpus", "missing cluster size; give the accelerator count");
      if (request.gpus_per_node && *request.gpus_per_node < 1) throw FieldError("gpus_per_node", "must be positive");
      c.accelerator = acc;
      c.gpus = parallel::cluster_gpus(request.gpus, std::nullopt, 1);
      c.gpus_per_node = static_cast<int>(request.gpus_per_node.value_or(1));
      return c;
    }
  }
  parallel::ClusterRequest any_count = request;
  any_count.whole_nodes = false;  // the node method bills the nodes the GPUs occupy (cost/energy.cpp)
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, any_count);
  c.accelerator = cluster.spec.accelerator;
  c.node = &cat.node(cluster.spec.node_name, "node");
  c.gpus = cluster.spec.gpus;
  c.gpus_per_node = cluster.spec.gpus_per_node;
  return c;
}

// Which of the three work forms was given; anything else is a conflict.
CostWork work_form(const CostRequest& r) {
  const std::string forms = "give the FLOPs, the parameters and tokens (6ND), or a duration";
  if (r.flops.has_value() + r.tokens.has_value() + r.time_s.has_value() > 1 || (r.flops && r.params)) {
    std::vector<std::string> given;
    if (r.flops) given.emplace_back("flops");
    if (r.params) given.emplace_back("params");
    if (r.tokens) given.emplace_back("tokens");
    if (r.time_s) given.emplace_back("time");
    throw InputError("conflicting work specifications (" + join_words(given) + " given together); " + forms);
  }
  if (r.flops) return CostWork::kFlops;
  if (r.tokens) {
    if (!r.params) throw FieldError("tokens", "needs the parameter count (work = 6·N·D)");
    return CostWork::kParamsTokens;
  }
  if (r.time_s) {
    // The tokens a duration affords take a utilisation; without one the parameter count would go unused.
    if (r.params && !r.mfu && !r.tflops_per_gpu)
      throw FieldError("params",
                       "with a duration, needs a utilisation (mfu or tflops_per_gpu) to count the tokens "
                       "the time affords");
    return CostWork::kTime;
  }
  if (r.params) throw FieldError("params", "needs the tokens (work = 6·N·D) or a duration (the tokens it affords)");
  throw InputError("missing work; " + forms);
}

}  // namespace

CostDocument make_cost_document(const CostRequest& r, const catalog::Catalog& cat) {
  const CostWork work = work_form(r);
  if (r.mfu && r.tflops_per_gpu) throw FieldError("mfu", "give a utilisation or an achieved rate, not both");
  if (r.energy.power_per_gpu_w && r.energy.node_power_w)
    throw FieldError("power_per_gpu_w", "give the power per accelerator or per node, not both");
  const CostCluster cluster = resolve(cat, r.cluster);

  CostDocument d;
  CostInputs& echo = d.inputs;
  echo.work = work;
  echo.gpu = cluster.accelerator.name;
  if (cluster.node) echo.node = cluster.node->name;
  echo.gpus = cluster.gpus;
  echo.params = r.params;
  echo.tokens = r.tokens;

  cost::RunCostInputs in;
  in.gpus = cluster.gpus;
  in.gpus_per_node = cluster.gpus_per_node;
  in.peak_flops_per_gpu = cluster.accelerator.peak_16bit_flops;
  if (r.mfu) in.utilisation = *r.mfu;
  if (r.tflops_per_gpu) {
    in.utilisation = *r.tflops_per_gpu * 1e12 / in.peak_flops_per_gpu;
    if (!(in.utilisation > 0 && in.utilisation <= 1))
      throw FieldError("tflops_per_gpu", "must be positive and at most the peak of " + cluster.accelerator.name + ", " +
                                             units::format_significant(in.peak_flops_per_gpu / 1e12, 4) + " TFLOP/s");
  }
  // A utilisation far below any published run's is a unit slip (cost.yaml `plausible`: PF/s typed as TF/s).
  const double least = cat.run_cost_constants().min_utilisation;
  if ((r.mfu || r.tflops_per_gpu) && least > 0 && in.utilisation < least) {
    const std::string percent = units::format_significant(in.utilisation * 100, 3) + " %";
    const std::string least_percent = units::format_significant(least * 100, 3) + " %";
    if (r.tflops_per_gpu)
      throw FieldError("tflops_per_gpu", units::format_significant(*r.tflops_per_gpu, 4) + " TFLOP/s is " + percent +
                                             " of the " + units::format_significant(in.peak_flops_per_gpu / 1e12, 4) +
                                             " TFLOP/s peak of " + cluster.accelerator.name + ", under the " +
                                             least_percent + " no published run goes below; accepted: " +
                                             units::format_significant(least * in.peak_flops_per_gpu / 1e12, 4) +
                                             " to " + units::format_significant(in.peak_flops_per_gpu / 1e12, 4) +
                                             " TFLOP/s (in TF/s, not PF/s)");
    throw FieldError("mfu", units::format_significant(*r.mfu, 4) + " is " + percent + " of peak, under the " +
                                least_percent + " no published run goes below; accepted: " +
                                units::format_significant(least, 3) + " to 1 (a fraction: 0.45 is 45 %)");
  }
  if (work == CostWork::kTime) {
    // The run lasts `time_s`. With a utilisation, the work is what the cluster does in that time — the FLOPs it
    // affords; without one the work is unknown and the figure at full peak is an upper bound.
    if (in.utilisation > 0) {
      echo.affordable_flops = cost::affordable_flops(in.gpus, in.peak_flops_per_gpu, in.utilisation, *r.time_s);
      if (r.params) echo.affordable_tokens = *echo.affordable_flops / (6 * *r.params);
    } else {
      in.utilisation = 1;
      in.work_unknown = true;
    }
    in.flops = *r.time_s * in.gpus * in.peak_flops_per_gpu * in.utilisation;
    if (!std::isfinite(in.flops))
      throw FieldError("time", "is too long: the work of " + std::to_string(in.gpus) +
                                   " accelerators over it is past a double's range (about 1e308 FLOPs)");
  } else {
    if (!r.mfu && !r.tflops_per_gpu) throw FieldError("mfu", "missing utilisation; give the MFU or an achieved rate");
    in.flops = work == CostWork::kFlops ? *r.flops : 6 * *r.params * *r.tokens;
    if (!std::isfinite(in.flops))
      throw FieldError("tokens", "6 x params x tokens is past a double's range (about 1e308 FLOPs)");
  }
  cost::resolve_energy(r.energy, cat, cluster.accelerator, cluster.node, &in);
  const cost::WhatIfLevers levers = cost::resolve_levers(r.energy, cat);
  d.cost = cost::report_run_cost(in, cost::whatif_options(levers, cat, cluster.accelerator, in));
  return d;
}

CostDocument recost_document(const SourceDocument& source, const cost::EnergyRequest& energy,
                             const catalog::Catalog& cat) {
  require_kind(source, {"cost", "plan"});
  CostDocument d;
  if (source.kind == "cost") {
    d = decode<CostDocument>(source);
  } else {
    if (!source.json.contains("cost")) throw InputError(source.source + ": cost: missing");
    // An infeasible plan (no layout fits) has no run to cost: say so, as `plan` did, not that the key is malformed.
    if (source.json.at("cost").is_null())
      throw InfeasibleError(source.source +
                            ": no layout of this plan fits, so it has no run to cost; "
                            "re-plan with more GPUs or another accelerator");
    d.cost = decode<cost::CostReport>(source, source.json.at("cost"));
    d.inputs.gpu = d.cost.accelerator;
    d.inputs.gpus = d.cost.inputs.gpus;
    // The run is costed on the plan's cluster: a cost section that names another (a document edited by hand) is
    // refused rather than costed on a machine the plan never laid out.
    if (source.json.contains("cluster") && source.json.at("cluster").is_object()) {
      const Json& cluster = source.json.at("cluster");
      if (cluster.contains("gpus") && cluster.at("gpus").is_number() &&
          cluster.at("gpus").get<double>() != static_cast<double>(d.cost.inputs.gpus))
        throw InputError(source.source + ": cost.inputs.gpus " + std::to_string(d.cost.inputs.gpus) +
                         " contradicts cluster.gpus " + cluster.at("gpus").dump() +
                         "; the plan's run is on its cluster (plan again, or give cost the run without --from)");
      if (cluster.contains("accelerator") && cluster.at("accelerator").is_object() &&
          cluster.at("accelerator").contains("name") && cluster.at("accelerator").at("name").is_string() &&
          cluster.at("accelerator").at("name").get<std::string>() != d.cost.accelerator)
        throw InputError(source.source + ": cost.inputs.accelerator '" + d.cost.accelerator +
                         "' contradicts cluster.accelerator.name '" +
                         cluster.at("accelerator").at("name").get<std::string>() +
                         "'; the plan's run is on its cluster (plan again, or give cost the run without --from)");
    }
    // The plan's node, where its cluster section names one.
    for (const char* section : {"cluster", "inputs"}) {
      const Json* part = source.json.contains(section) ? &source.json.at(section) : nullptr;
      if (!d.inputs.node && part && part->is_object() && part->contains("node") && part->at("node").is_string())
        d.inputs.node = part->at("node").get<std::string>();
    }
  }
  d.inputs.from = source.source;
  // The run's inputs as recorded, before the command line's energy options: a fault names the document's key.
  check_document_section(source, "cost.inputs", [&] { d.cost.inputs.validate(); },
                         {{"cfe_fraction", "cfe"}, {"utilisation", "mfu"}});
  d.cost = cost::recost(d.cost, energy, cat);
  return d;
}

}  // namespace isoflop::doc
