// Benchmark: the full layout search for MT-NLG 530B on 4,480 A100s (all knobs open); prints layouts
// evaluated per second, and the exhaustive reference search's time. Run: build/tests/bench_layout_search
#include <chrono>
#include <cstdio>

#include "catalog/catalog.hpp"
#include "parallel/cluster.hpp"
#include "parallel/search.hpp"

int main() {
  using namespace isoflop;
  const catalog::Catalog cat = catalog::load_catalog();
  parallel::JobSpec job;
  job.architecture = cat.model("mt-nlg-530b").architecture;
  job.seq = 2048;
  job.global_batch = 1920;
  parallel::ClusterRequest request;
  request.gpu = "a100-sxm4-80gb";
  request.gpus = 4480;
  const parallel::ClusterSpec cluster = parallel::resolve_cluster(cat, request).spec;
  const parallel::SearchOptions options;
  const int repeats = 50;
  long long evaluated = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) evaluated += parallel::search_layouts(job, cluster, options).evaluated;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("layout search, 530B on 4480 A100: %.2f ms per search, %lld layouts each, %.3g layouts/s\n",
              1e3 * seconds / repeats, evaluated / repeats, evaluated / seconds);
  // The reference that estimates every layout's memory, for the pruning's share of the time.
  const auto reference_start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) parallel::search_layouts_exhaustive(job, cluster, options);
  const double reference_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - reference_start).count();
  std::printf("exhaustive reference: %.2f ms per search\n", 1e3 * reference_s / repeats);
  return 0;
}
