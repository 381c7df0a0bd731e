// isoflop layout: ranked TP/PP/DP/EP layouts of a model on a cluster, with memory and step time.
#include <spdlog/spdlog.h>

#include "app/arch_input.hpp"
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/layout_json.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "parallel/cluster.hpp"
#include "parallel/search.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "layout",
    "isoflop layout --arch NAME|FILE (--gpu NAME | --node NAME) (--gpus N | --nodes K) --global-batch B [options]",
    "Searches tensor (TP), pipeline (PP), data (DP) and expert (EP) parallel degrees, virtual pipeline stages,\n"
    "the micro-batch, the ZeRO stage, activation recompute and sequence parallelism for a model on a cluster.\n"
    "Each layout's per-GPU memory follows ZeRO (Rajbhandari et al. 2020) and Korthikanti et al. 2022; its step\n"
    "time follows a model calibrated on Narayanan et al. 2021 and Korthikanti et al. 2022. Pins (--tp 8) fix a\n"
    "knob; families that cannot fit are listed with the reason. Nothing fitting exits 1 with what would fit.",
    {"isoflop layout --arch mt-nlg-530b --gpu a100-sxm4-80gb --gpus 3360 --global-batch 1920",
     "isoflop layout --arch mt-nlg-530b --gpu a100-sxm4-80gb --gpus 2240 --global-batch 1920 --tp 8 --pp 35",
     "isoflop layout --arch gpt3-175b --node dgx-h100 --nodes 64 --global-batch 1536 --top 10 -o json",
     "isoflop layout --arch my-model.yaml --gpu a100-sxm4-80gb --gpus 64 --global-batch 512 --zero 3"}};

}  // namespace

int run_layout(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("arch", po::value<std::string>()->value_name("NAME|FILE"), "catalog model or architecture YAML file")
      ("global-batch", po::value<std::string>()->value_name("B"), "global batch in sequences")
      ("seq", po::value<std::string>()->value_name("S"), "sequence length (default: the model's)");
  add_cluster_options(options);
  add_layout_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto arch_name = get_string(vm, "arch");
  if (!arch_name) throw InputError("layout: missing --arch NAME|FILE");
  const auto global_batch = get_integer(vm, "global-batch");
  if (!global_batch) throw InputError("layout: missing --global-batch B (sequences per iteration)");

  const catalog::Catalog cat = load_catalog(parsed->common);
  parallel::JobSpec job;
  job.architecture = resolve_architecture(cat, *arch_name);
  job.seq = get_integer(vm, "seq").value_or(job.architecture.seq);
  job.global_batch = *global_batch;
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, cluster_request(vm));
  const parallel::SearchOptions search = search_options(vm);
  spdlog::debug("{}", cluster.note);
  const parallel::SearchResult result = parallel::search_layouts(job, cluster.spec, search);

  Json doc = {{"schema", "isoflop/layout/v1"},
              {"inputs",
               {{"arch", *arch_name},
                {"gpu", cluster.spec.accelerator.name},
                {"node", cluster.spec.node_name},
                {"gpus", cluster.spec.gpus},
                {"gpus_per_node", cluster.spec.gpus_per_node},
                {"global_batch", job.global_batch},
                {"seq", job.seq}}},
              {"cluster_note", cluster.note}};
  doc.update(search_json(result));
  auto table = [&] {
    std::string out = "Layouts for " + *arch_name + " on " + std::to_string(cluster.spec.gpus) + " x " +
                      cluster.spec.accelerator.name + " (" + cluster.note + "), global batch " +
                      std::to_string(job.global_batch) + " x " + std::to_string(job.seq) + " tokens\n\n";
    return out + layouts_table(result);
  };
  write_result(parsed->common, doc, table, &doc["layouts"]);
  return 0;
}

}  // namespace isoflop::app
