// Shared by the parallel tests: a cluster of catalog nodes, a layout from its degrees and a catalog model's job.
#pragma once

#include <string>

#include "catalog/catalog.hpp"
#include "parallel/layout.hpp"
#include "parallel/search.hpp"

namespace isoflop::test {

// `gpus` accelerators in nodes of the catalog's `node`, with the node's bandwidths per GPU.
inline parallel::ClusterSpec catalog_cluster(const catalog::Catalog& cat, int gpus,
                                             const std::string& gpu = "a100-sxm4-80gb",
                                             const std::string& node = "dgx-a100") {
  const catalog::Node& n = cat.node(node);
  parallel::ClusterSpec c;
  c.accelerator = cat.accelerator(gpu);
  c.gpus = gpus;
  c.gpus_per_node = n.gpus_per_node;
  c.intra_node_bandwidth_bytes_per_s = n.intra_node_bandwidth_bytes_per_s;
  c.inter_node_bandwidth_bytes_per_s = n.inter_node_bandwidth_bytes_per_s / n.gpus_per_node;
  return c;
}

// A layout by its degrees; the rest at their defaults.
inline parallel::Layout make_layout(int tp, int pp, int dp, int zero, int vpp = 1, int ep = 1, int cp = 1,
                                    bool sequence_parallel = false) {
  return {.tp = tp, .pp = pp, .dp = dp, .ep = ep, .vpp = vpp, .zero_stage = zero,
          .sequence_parallel = sequence_parallel, .cp = cp};
}

// A catalog model's job under Megatron-LM's optimizer (fp32 main gradients: 18 bytes per parameter before sharding).
inline parallel::JobSpec megatron_job(const std::string& model, long long seq, long long global_batch) {
  parallel::JobSpec job;
  job.architecture = catalog::load_catalog().model(model).architecture;
  job.seq = seq;
  job.global_batch = global_batch;
  job.optimizer = parallel::Optimizer::kMegatronAdam;
  return job;
}

// A row of a table of jobs: a catalog model on `gpus` accelerators at a global batch of `batch` sequences.
struct JobRow {
  const char* model;
  int gpus;
  long long batch;
};

// A catalog model's job (its own sequence length) on `gpus` accelerators, with `trainer`'s rules in the options.
struct CatalogJob {
  catalog::Catalog cat = catalog::load_catalog();
  parallel::JobSpec job;
  parallel::ClusterSpec cluster;
  parallel::SearchOptions options;

  CatalogJob(const std::string& model, int gpus, long long global_batch, const std::string& trainer = "megatron",
             const std::string& gpu = "a100-sxm4-80gb", const std::string& node = "dgx-a100") {
    job.architecture = cat.model(model).architecture;
    job.seq = job.architecture.seq;
    job.global_batch = global_batch;
    cluster = catalog_cluster(cat, gpus, gpu, node);
    options.trainer = cat.trainer(trainer);
  }
};

}  // namespace isoflop::test
