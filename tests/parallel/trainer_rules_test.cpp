// Tests for lib/parallel/trainer_rules: the runnability matrix (each rule of data/trainers.yaml probed on each
// trainer, the expected verdicts taken from the trainers' sources as quoted in reference/launch_configs.md),
// structural checks and the stage split.
#include "parallel/trainer_rules.hpp"

#include <doctest/doctest.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "parallel/fixtures.hpp"
#include "parallel/stages.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

constexpr std::array<const char*, 4> kTrainers = {"megatron", "deepspeed", "nemo", "fsdp"};

// A 64-GPU A100 cluster of 8-GPU nodes and a 48-layer dense model (64 heads, h 8192, seq 4096, batch 512).
struct Probe {
  const char* what;
  bool moe;
  Layout layout;
  long long seq;
  std::array<const char*, 4> expected;  // the violated rule per trainer (megatron, deepspeed, nemo, fsdp); "" = runs
  bool tied = false;                    // the output layer shares the input embedding's weights
};

Layout layout(int tp, int pp, int dp, int zero, int vpp = 1, int ep = 1, int cp = 1, bool sp = false) {
  return test::make_layout(tp, pp, dp, zero, vpp, ep, cp, sp);
}

Layout uneven(Layout l, int first, int last) {
  l.first_stage_layers = first;
  l.last_stage_layers = last;
  return l;
}

const std::vector<Probe> kProbes = {
    // Megatron offers DDP, the distributed optimizer (ZeRO-1) and torch FSDP2 (ZeRO-3); DeepSpeed ZeRO 0-3;
    // FSDP NO_SHARD, SHARD_GRAD_OP and FULL_SHARD.
    {"ZeRO-2, no pipeline", false, layout(8, 1, 8, 2), 4096, {"zero_stages", "", "zero_stages", ""}},
    {"ZeRO-1, no pipeline", false, layout(8, 1, 8, 1), 4096, {"", "", "", "zero_stages"}},
    // DeepSpeed's pipeline engine: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism; Megatron's
    // FSDP2 asserts PP 1; FSDP has no pipeline schedule.
    {"ZeRO-3 with PP 2",
     false,
     layout(8, 2, 4, 3),
     4096,
     {"zero_with_pipeline", "zero_with_pipeline", "zero_with_pipeline", "pipeline"}},
    {"ZeRO-2 with PP 2",
     false,
     layout(8, 2, 4, 2),
     4096,
     {"zero_stages", "zero_with_pipeline", "zero_stages", "pipeline"}},
    {"ZeRO-1 with PP 4", false, layout(8, 4, 2, 1), 4096, {"", "", "", "zero_stages"}},
    {"ZeRO-0 with PP 4", false, layout(8, 4, 2, 0), 4096, {"", "", "", "pipeline"}},
    // Megatron's FSDP2 asserts EP 1; DeepSpeed: "MoE not supported with Stage 3" (any MoE model).
    // Megatron-Core's custom FSDP (NeMo's fsdp="megatron") composes with expert parallelism.
    {"MoE, ZeRO-3, EP 2",
     true,
     layout(8, 1, 8, 3, 1, 2),
     4096,
     {"zero_with_experts", "zero_with_experts", "", "expert_parallel"}},
    {"MoE, ZeRO-3, EP 1", true, layout(8, 1, 8, 3), 4096, {"", "zero_with_experts", "", ""}},
    {"MoE, ZeRO-1, EP 2", true, layout(8, 1, 8, 1, 1, 2), 4096, {"", "", "", "zero_stages"}},
    {"MoE, ZeRO-0, EP 2", true, layout(8, 1, 8, 0, 1, 2), 4096, {"", "", "", "expert_parallel"}},
    // Megatron-LM's --use-torch-fsdp2 asserts --untie-embeddings-and-output-weights; the others shard a tied weight.
    {"ZeRO-3, tied embeddings", false, layout(8, 1, 8, 3), 4096, {"zero3_tied_embeddings", "", "", ""}, true},
    {"ZeRO-1, tied embeddings", false, layout(8, 1, 8, 1), 4096, {"", "", "", "zero_stages"}, true},
    {"TP 8 with sequence parallelism", false, layout(8, 1, 8, 0, 1, 1, 1, true), 4096, {"", "", "", ""}},
    {"TP 16 across two nodes",
     false,
     layout(16, 1, 4, 0),
     4096,
     {"tp_within_node", "tp_within_node", "tp_within_node", "tp_within_node"}},
    // 48 layers on PP 4 with 11 on the first and last stages: 13 on each middle stage.
    {"uneven stages 11/13/13/11", false, uneven(layout(8, 4, 2, 0), 11, 11), 4096, {"", "", "", "pipeline"}},
    // Interleaving: Megatron needs PP > 1 (with its default p2p overlap); DeepSpeed has only 1F1B.
    {"interleaved, VPP 2 on PP 4", false, layout(8, 4, 2, 0, 2), 4096, {"", "interleaving", "", "pipeline"}},
    // Megatron: seq_length % (2 · CP) == 0.
    {"CP 2, sequence 4096", false, layout(8, 1, 4, 0, 1, 1, 2), 4096, {"", "context_parallel", "", "context_parallel"}},
    {"CP 2, sequence 4098",
     false,
     layout(8, 1, 4, 0, 1, 1, 2),
     4098,
     {"context_parallel", "context_parallel", "context_parallel", "context_parallel"}},
};

struct Fixture {
  catalog::Catalog cat = catalog::load_catalog();
  ClusterSpec cluster;
  Fixture() {
    cluster.accelerator = cat.accelerator("a100-sxm4-80gb");
    cluster.gpus = 64;
    cluster.gpus_per_node = 8;
    cluster.intra_node_bandwidth_bytes_per_s = 300e9;
    cluster.inter_node_bandwidth_bytes_per_s = 25e9;
  }
  JobSpec job(bool moe, long long seq, bool tied = false) const {
    JobSpec j;
    j.architecture.tied_embeddings = tied;
    j.architecture.layers = 48;
    j.architecture.d_model = 8192;
    j.architecture.heads = 64;
    j.architecture.vocab = 51200;
    j.architecture.seq = seq;
    if (moe) j.architecture.moe.experts = 8;
    j.seq = seq;
    j.global_batch = 512;
    return j;
  }
};

}  // namespace

TEST_CASE("runnability matrix: each rule probed on each trainer") {
  Fixture f;
  std::set<std::string> bitten;
  for (const Probe& p : kProbes) {
    const JobSpec job = f.job(p.moe, p.seq, p.tied);
    INFO(p.what);
    REQUIRE(!structural_violation(p.layout, job, f.cluster));
    for (size_t i = 0; i < kTrainers.size(); ++i) {
      const auto v = trainer_violation(f.cat.trainer(kTrainers[i]), p.layout, job, f.cluster);
      INFO(kTrainers[i] << ": " << (v ? v->reason : "runs"));
      CHECK((v ? v->rule : std::string()) == p.expected[i]);
      if (v) bitten.insert(v->rule);
    }
  }
  // Rules no published trainer breaks bite when the data says so: Megatron-LM before core_v0.9 split the
  // layers evenly (launch_configs.md), a trainer without TP or SP refuses them.
  const JobSpec job = f.job(false, 4096);
  catalog::TrainerRules old = f.cat.trainer("megatron");
  old.uneven_stages = false;
  old.tensor_parallel = false;
  old.sequence_parallel = false;
  auto rule = [&](const Layout& l) {
    const auto v = trainer_violation(old, l, job, f.cluster);
    return v ? v->rule : std::string();
  };
  CHECK(rule(uneven(layout(1, 4, 16, 1), 11, 11)) == "uneven_stages");
  CHECK(rule(uneven(layout(1, 4, 16, 1), 12, 12)) == "");  // 12 everywhere is even
  // The reason names the stages there are: two stages have no middle one.
  const auto four = trainer_violation(old, uneven(layout(1, 4, 16, 1), 11, 11), job, f.cluster);
  REQUIRE(four);
  CHECK(four->reason.find("got first 11, middle 13, last 11") != std::string::npos);
  const auto two = trainer_violation(old, uneven(layout(1, 2, 32, 1), 23, 25), job, f.cluster);
  REQUIRE(two);
  CHECK(two->reason.find("got first 23, last 25") != std::string::npos);
  CHECK(rule(layout(8, 1, 8, 0)) == "tensor_parallel");
  old.tensor_parallel = true;
  CHECK(rule(layout(8, 1, 8, 0, 1, 1, 1, true)) == "sequence_parallel");
  for (const char* r : {"uneven_stages", "tensor_parallel", "sequence_parallel"}) bitten.insert(r);
  for (const auto id : catalog::kTrainerRuleIds) CHECK_MESSAGE(bitten.count(std::string(id)) == 1, id);
  // The user may ask for TP across nodes.
  CHECK(!trainer_violation(f.cat.trainer("megatron"), layout(16, 1, 4, 0), job, f.cluster, RuleContext{true}));
}

TEST_CASE("every trainer in the catalog lists every rule with a source and the version it was read in") {
  Fixture f;
  REQUIRE(f.cat.trainers.size() >= kTrainers.size());
  for (const auto& t : f.cat.trainers) {
    INFO(t.name);
    CHECK(t.loaded());
    CHECK(!t.version.empty());
    CHECK(t.rule_sources.size() == catalog::kTrainerRuleIds.size());
    for (const auto id : catalog::kTrainerRuleIds) CHECK(!t.rule_source(id).empty());
    CHECK(!t.defaults.source.empty());
  }
  // Megatron reduces bf16 gradients in fp32 (arguments.py); DeepSpeed in the training type.
  CHECK(f.cat.trainer("megatron").defaults.grad_reduce == catalog::GradReduce::kFp32);
  CHECK(f.cat.trainer("deepspeed").defaults.grad_reduce == catalog::GradReduce::kBf16);
}

TEST_CASE("a catalog overlay that drops a rule or misspells one is refused") {
  catalog::Catalog cat;
  // A trainer whose only rule is the ZeRO stages `stages`.
  const auto with_stages = [](const std::string& stages) {
    return "trainers:\n  - name: mine\n    version: v1\n    source: here\n    rules:\n"
           "      zero_stages: {stages: " + stages + ", source: s}\n";
  };
  CHECK_THROWS_WITH_AS(catalog::merge_catalog_text(with_stages("[0, 1]"), "mine.yaml", &cat),
                       doctest::Contains("missing rule"), CatalogError);
  CHECK_THROWS_WITH_AS(catalog::merge_catalog_text(with_stages("[0, 4]"), "mine.yaml", &cat), doctest::Contains("0..3"),
                       CatalogError);
}

TEST_CASE("structural checks name their rule") {
  Fixture f;
  const JobSpec job = f.job(false, 4096);
  auto rule = [&](const Layout& l) {
    const auto v = structural_violation(l, job, f.cluster);
    return v ? v->rule : std::string();
  };
  CHECK(rule(layout(8, 1, 8, 1)) == "");
  CHECK(rule(layout(8, 1, 4, 1)) == "gpus");
  CHECK(rule(layout(8, 5, 1, 1)) == "gpus");
  Layout odd_heads = layout(8, 1, 8, 1);
  JobSpec gqa = job;
  gqa.architecture.kv_heads = 4;  // 4 key/value heads cannot split 8 ways
  CHECK(structural_violation(odd_heads, gqa, f.cluster)->rule == "heads");
  CHECK(rule(uneven(layout(8, 4, 2, 1), 10, 11)) == "stages");  // 27 middle layers over 2 stages
  CHECK(rule(uneven(layout(8, 1, 8, 1), 10, 10)) == "stages");  // no pipeline
  CHECK(rule(layout(8, 1, 8, 1, 1, 1, 1, true)) == "");
  CHECK(rule(layout(1, 1, 64, 1, 1, 1, 1, true)) == "sequence_parallel");
  Layout batch = layout(1, 1, 64, 1);
  batch.micro_batch = 16;  // 512 sequences are not 16 · 64
  CHECK(rule(batch) == "batch");
  CHECK(rule(layout(8, 4, 2, 1, 5)) == "stages");  // 48 layers are not divisible by PP·VPP = 20
}

TEST_CASE("stage split: even, Megatron's first/last counts, and the search's balanced choice") {
  Layout l;
  l.pp = 16;
  const StageLayers even = pipeline_stage_layers(128, l);
  CHECK(even.first == 8);
  CHECK(even.middle == 8);
  CHECK(even.last == 8);
  // Llama 3 405B (Dubey et al. 2024 §3.3.2): 126 layers on 16 stages, one layer fewer on the first and last.
  const EdgeLayers llama = balanced_edge_layers(126, 16, 1);
  CHECK(llama.first == 7);
  CHECK(llama.last == 7);
  l.first_stage_layers = llama.first;
  l.last_stage_layers = llama.last;
  const StageLayers s = pipeline_stage_layers(126, l);
  CHECK(s.middle == 8);
  CHECK(stage_layers_consistent(126, l));
  // BLOOM 176B: 70 layers on 12 stages.
  const EdgeLayers bloom = balanced_edge_layers(70, 12, 1);
  CHECK(bloom.first + bloom.last + 10 * 6 == 70);
  CHECK(bloom.last <= bloom.first);
  // Divisible layers need no uneven stages; with VPP each stage is a multiple of the virtual stages.
  CHECK(balanced_edge_layers(105, 35, 1).first == 0);
  const EdgeLayers v2 = balanced_edge_layers(126, 16, 2);
  Layout l2;
  l2.pp = 16;
  l2.vpp = 2;
  l2.first_stage_layers = v2.first;
  l2.last_stage_layers = v2.last;
  CHECK(v2.first % 2 == 0);
  CHECK(stage_layers_consistent(126, l2));
  // Only the first stage pinned: the last splits like the middle ones (Megatron-Core's rule).
  Layout first_only;
  first_only.pp = 4;
  first_only.first_stage_layers = 9;
  const StageLayers f = pipeline_stage_layers(48, first_only);
  CHECK(f.middle == 13);
  CHECK(f.last == 13);
}

TEST_CASE("as_written narrows a trainer's rules to what isoflop's file for it says, and its messages name the file") {
  Fixture f;
  const JobSpec job = f.job(false, 4096);
  const Layout uneven_stages = uneven(layout(1, 4, 16, 1), 11, 11);  // 48 layers: 11 + 13 + 13 + 11
  const Layout fsdp2 = layout(8, 1, 8, 3);
  for (const char* name : {"deepspeed", "nemo"}) {
    INFO(name);
    const catalog::TrainerRules& own = f.cat.trainer(name);
    const catalog::TrainerRules written = as_written(own);
    CHECK(!trainer_violation(own, uneven_stages, job, f.cluster));  // the trainers split unevenly themselves
    const auto v = trainer_violation(written, uneven_stages, job, f.cluster);
    REQUIRE(v);
    CHECK(v->rule == "uneven_stages");
    CHECK(v->reason.find(std::string("the ") + written.written_as + " isoflop writes for " + name) == 0);
    CHECK(written.rule_source("uneven_stages").find("isoflop's") == 0);
    CHECK(rules_holder(own, "uneven_stages") == name);
  }
  // A rule the file says as the trainer does is the trainer's: ZeRO-2 with pipeline stages is DeepSpeed's own
  // refusal, named as its.
  const auto zero = trainer_violation(as_written(f.cat.trainer("deepspeed")), layout(1, 4, 16, 2), job, f.cluster);
  REQUIRE(zero);
  CHECK(zero->rule == "zero_with_pipeline");
  CHECK(zero->reason.rfind("deepspeed runs ZeRO stage at most 1", 0) == 0);
  // An overlay whose trainer splits evenly already has its stages' rule left as it is (the gradients' precision is
  // still narrowed): its messages and sources stay its own.
  catalog::TrainerRules even = f.cat.trainer("deepspeed");
  even.uneven_stages = false;
  even.rule_sources.assign(catalog::kTrainerRuleIds.size(), "overlay");
  const catalog::TrainerRules even_written = as_written(even);
  CHECK(std::find(even_written.narrowed_rules.begin(), even_written.narrowed_rules.end(), "uneven_stages") ==
        even_written.narrowed_rules.end());
  CHECK(even_written.rule_source("uneven_stages") == "overlay");
  const auto own_words = trainer_violation(even_written, uneven_stages, job, f.cluster);
  REQUIRE(own_words);
  CHECK(own_words->reason.rfind("deepspeed has no layer counts", 0) == 0);
  // NeMo 2 runs Megatron-Core's FSDP (ZeRO-3); the nemo.yaml written shards at most the optimizer state.
  CHECK(!trainer_violation(f.cat.trainer("nemo"), fsdp2, job, f.cluster));
  const auto v = trainer_violation(as_written(f.cat.trainer("nemo")), fsdp2, job, f.cluster);
  REQUIRE(v);
  CHECK(v->rule == "zero_stages");
  CHECK(v->reason == "the nemo.yaml isoflop writes for nemo offers no ZeRO-3 (its stages: 0, 1)");
  // The gradients' precision: Megatron-LM's line states either; nemo.yaml and isoflop's ds_config.json state none,
  // so only the trainer's default (fp32, bf16) launches as planned.
  using catalog::GradReduce;
  for (const GradReduce g : {GradReduce::kFp32, GradReduce::kBf16})
    CHECK(!grad_reduce_refusal(as_written(f.cat.trainer("megatron")), g));
  CHECK(!grad_reduce_refusal(as_written(f.cat.trainer("nemo")), GradReduce::kFp32));
  CHECK(grad_reduce_refusal(as_written(f.cat.trainer("nemo")), GradReduce::kBf16) ==
        "the nemo.yaml isoflop writes for nemo states no gradient precision, so nemo reduces gradients in fp32, its "
        "default; accepted: fp32");
  CHECK(!grad_reduce_refusal(as_written(f.cat.trainer("deepspeed")), GradReduce::kBf16));
  CHECK(grad_reduce_refusal(as_written(f.cat.trainer("deepspeed")), GradReduce::kFp32)
            .value_or("")
            .find("the ds_config.json isoflop writes for deepspeed states no gradient precision") == 0);
  CHECK(!grad_reduce_refusal(f.cat.trainer("nemo"), GradReduce::kBf16));  // the trainer itself: not narrowed
  // Megatron-LM's own file says all its rules do: its rules are as they are.
  CHECK(as_written(f.cat.trainer("megatron")) == f.cat.trainer("megatron"));
  CHECK(!trainer_violation(as_written(f.cat.trainer("megatron")), uneven_stages, job, f.cluster));
}
