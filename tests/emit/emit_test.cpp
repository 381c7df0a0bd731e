// lib/emit: the launch spec's arithmetic against published launch scripts, and each target's checks.
#include "emit/emit.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "emit/argv.hpp"
#include "emit/shell.hpp"
#include "emit/targets.hpp"
#include "parallel/cluster.hpp"

namespace isoflop::emit {
namespace {

// The GPT-3 175B example of the Megatron-LM README (NVIDIA/Megatron-LM examples/pretrain_gpt3_175B.sh): 96
// layers, hidden 12288, 96 heads, seq 2048, TP 8, PP 16 on 1,024 A100s (DP 8), micro-batch 1, global 1536,
// 300B tokens.
plan::PlanResult gpt3_plan() {
  plan::PlanResult p;
  auto& a = p.job.architecture;
  a.name = "gpt3-175b";
  a.layers = 96;
  a.d_model = 12288;
  a.heads = 96;
  a.vocab = 51200;
  a.seq = 2048;
  p.job.seq = 2048;
  p.job.global_batch = 1536;
  p.cluster.gpus = 1024;
  p.cluster.gpus_per_node = 8;
  p.allocation.params = 1.75e11;
  p.allocation.tokens = 3.0e11;
  parallel::RankedLayout r;
  r.layout.tp = 8;
  r.layout.pp = 16;
  r.layout.dp = 8;
  r.layout.micro_batch = 1;
  r.layout.zero_stage = 1;
  r.layout.sequence_parallel = true;
  r.time.step_time_s = 30.0;
  r.time.mfu = 0.45;
  r.memory.weights_bytes = 40.0 * (1 << 30);
  p.layouts.layouts.push_back(r);
  return p;
}

LaunchSpec spec_of(const plan::PlanResult& p) { return make_launch_spec(p, launch_data(), "fnv1a64:0", "0.1.0"); }

const catalog::Catalog& test_catalog() {
  static const catalog::Catalog c = catalog::load_catalog();
  return c;
}

// Emit options with the trainers' rules of data/trainers.yaml.
EmitOptions options(const std::string& version = "") {
  EmitOptions o;
  o.target_version = version;
  o.catalog = &test_catalog();
  return o;
}

const catalog::TrainerRules& rules(const char* trainer) { return test_catalog().trainer(trainer); }

}  // namespace

TEST_CASE("the training length and batch match the GPT-3 175B launch script of the Megatron-LM README") {
  const LaunchSpec s = spec_of(gpt3_plan());
  CHECK(s.train_samples == 146484375);  // --train-samples 146484375 = 300B / 2048
  CHECK(s.grad_accum == 192);           // 1536 / (1 × DP 8)
  CHECK(s.nodes == 128);
  CHECK(s.schedule.decay_samples == s.train_samples);  // the cosine ends at the planned end
  CHECK(s.schedule.warmup_samples % s.global_batch == 0);
  // MT-NLG's 1B warm-up tokens, in whole iterations of 1536 × 2048 tokens: round(317.9) = 318.
  CHECK(s.schedule.warmup_iters == 318);
  CHECK(s.schedule.peak_lr == doctest::Approx(6.0e-5));  // the 175B anchor (Megatron-LM's GPT-3 example)
  CHECK(s.schedule.min_lr == doctest::Approx(6.0e-6));   // decays 10x (Chinchilla App. D.1)
}

TEST_CASE("a plan's tokens: at most a training run's 1e16, so the sample counts stay whole 64-bit numbers") {
  plan::PlanResult p = gpt3_plan();
  p.allocation.tokens = 1e16;
  CHECK(spec_of(p).train_samples == 4882812500000LL);  // 1e16 / 2048
  for (const double tokens : {1.0000001e16, 9.3e22, std::numeric_limits<double>::infinity()}) {
    p.allocation.tokens = tokens;
    CHECK_THROWS_WITH_AS(spec_of(p), doctest::Contains("tokens are more than the 1e16 a training run may have"),
                         FieldError);
  }
  p.allocation.tokens = 2048.0 * 1535;  // one sample short of a global batch of 1536
  CHECK_THROWS_WITH_AS(spec_of(p), "plan tokens: fewer tokens than one global batch", FieldError);
}

TEST_CASE("the peak learning rate falls with model size between the published anchors and is clamped") {
  const LaunchData& d = launch_data();
  CHECK(peak_learning_rate(d, 1e6) == doctest::Approx(2.0e-4));
  CHECK(peak_learning_rate(d, 5.3e11) == doctest::Approx(5.0e-5));
  CHECK(peak_learning_rate(d, 1e13) == doctest::Approx(5.0e-5));
  double last = 1;
  for (double n = 1e8; n < 5e11; n *= 2) {
    const double lr = peak_learning_rate(d, n);
    CHECK(lr < last);
    last = lr;
  }
}

TEST_CASE("every file starts with a comment naming isoflop, the plan and the predictions") {
  const auto files = emit_files(Target::kAll, spec_of(gpt3_plan()), options());
  REQUIRE(files.size() == 4);
  for (const auto& f : files) {
    CHECK(f.content.find("isoflop 0.1.0") != std::string::npos);
    CHECK(f.content.find("fnv1a64:0") != std::string::npos);
    CHECK(f.content.find("MFU 45.0%") != std::string::npos);
    CHECK(f.content.find("step 30.000 s") != std::string::npos);
  }
  CHECK(files[0].content.find("Megatron-LM core_v0.13.0") != std::string::npos);
  CHECK(emit_files(Target::kAll, spec_of(gpt3_plan()), options())[3].content == files[3].content);  // deterministic
}

TEST_CASE("Megatron: the arguments parse at the target release, and a flag it lacks names the release that has it") {
  plan::PlanResult p = gpt3_plan();
  p.layouts.layouts[0].layout.first_stage_layers = 4;
  p.layouts.layouts[0].layout.last_stage_layers = 4;  // 88 layers left for 14 stages: not divisible
  CHECK_THROWS_WITH_AS(emit_files(Target::kMegatron, spec_of(p), options()),
                       doctest::Contains("rule 'stages': first 4 and last 4 stage layers leave 88 of 96 layers"),
                       FieldError);
  p.layouts.layouts[0].layout.last_stage_layers = 8;  // 84 for 14 stages
  CHECK(emit_files(Target::kMegatron, spec_of(p), options()).size() == 1);
  EmitOptions old = options("core_v0.8.0");
  CHECK_THROWS_WITH_AS(emit_files(Target::kMegatron, spec_of(p), old),
                       doctest::Contains("--decoder-first-pipeline-num-layers is not an option of Megatron-LM "
                                         "core_v0.8.0 (core_v0.13.0 has it)"),
                       FieldError);
  old.target_version = "core_v0.5.0";
  CHECK_THROWS_AS(emit_files(Target::kMegatron, spec_of(p), old), FieldError);
}

TEST_CASE("Megatron: uneven stages with interleaving count the virtual stages per rank, as validate_args wants") {
  // PP 8 × VPP 2 with 12 layers on each edge: the six middle stages hold 12 each, every count divisible by 2. The
  // search takes such layouts (a 16,384-GPU plan did); core_v0.13.0 refuses --num-layers-per-virtual-pipeline-stage
  // with uneven stages and asks for --num-virtual-stages-per-pipeline-rank.
  plan::PlanResult p = gpt3_plan();
  auto& l = p.layouts.layouts[0].layout;
  l.pp = 8;
  l.dp = 16;
  l.vpp = 2;
  l.first_stage_layers = 12;
  l.last_stage_layers = 12;
  const std::string script = emit_files(Target::kMegatron, spec_of(p), options())[0].content;
  CHECK(script.find("  --num-virtual-stages-per-pipeline-rank 2\n") != std::string::npos);
  CHECK(script.find("--num-layers-per-virtual-pipeline-stage") == std::string::npos);
  const LaunchData& d = launch_data();
  CHECK(check_megatron(script, d, "core_v0.13.0", test_catalog().trainer("megatron")).empty());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = script;
    REQUIRE(s.find(from) != std::string::npos);
    s.replace(s.find(from), from.size(), to);
    return check_megatron(s, d, "core_v0.13.0", test_catalog().trainer("megatron"));
  };
  CHECK(with("--num-virtual-stages-per-pipeline-rank 2", "--num-layers-per-virtual-pipeline-stage 6") ==
        std::vector<std::string>{"uneven first or last pipeline stages take num-virtual-stages-per-pipeline-rank, not "
                                 "num-layers-per-virtual-pipeline-stage (core_v0.13.0)"});
  CHECK(with("--num-virtual-stages-per-pipeline-rank 2",
             "--num-virtual-stages-per-pipeline-rank 2 "
             "--num-layers-per-virtual-pipeline-stage 6")
            .size() == 2);  // both spellings, and the per-stage one with uneven stages
  // 12 on each edge divide by VPP 2 but not by 5; 13 is no split of the middle stages at all.
  CHECK(with("--num-virtual-stages-per-pipeline-rank 2", "--num-virtual-stages-per-pipeline-rank 5")
            .at(0)
            .find("divisible by it (TransformerConfig") != std::string::npos);
  CHECK(with("--decoder-first-pipeline-num-layers 12", "--decoder-first-pipeline-num-layers 13").size() >= 1);
  const auto one_stage = with("--pipeline-model-parallel-size 8", "--pipeline-model-parallel-size 1");
  CHECK(std::count(one_stage.begin(), one_stage.end(),
                   "num-virtual-stages-per-pipeline-rank needs PP > 1 (PP > 2 with no-overlap-p2p-communication)") ==
        1);
  // Megatron-DeepSpeed's launch line has no uneven stages: refused as the plan's layout (exit 2), never an
  // internal error.
  l.vpp = 1;
  CHECK_THROWS_WITH_AS(emit_files(Target::kDeepSpeed, spec_of(p), options()),
                       doctest::Contains("stage layers have no Megatron-DeepSpeed spelling"), FieldError);
}

TEST_CASE("Megatron: validate_args' rules on a hand-written script") {
  const LaunchData& d = launch_data();
  const std::string ok =
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\nARGS=(--num-layers 96 --hidden-size 12288 --num-attention-heads 96\n"
      "  --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 1536\n"
      "  --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --train-samples 146484375 --lr 6e-5\n"
      "  --min-lr 6e-6)\ntorchrun --nnodes 128 --nproc-per-node 8 pretrain_gpt.py \"${ARGS[@]}\" --bf16\n";
  CHECK(check_megatron(ok, d, "core_v0.13.0", test_catalog().trainer("megatron")).empty());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = ok;
    s.replace(s.find(from), from.size(), to);
    return check_megatron(s, d, "core_v0.13.0", test_catalog().trainer("megatron"));
  };
  CHECK(with("--global-batch-size 1536", "--global-batch-size 1540").at(0).find("global batch") != std::string::npos);
  CHECK(with("--num-layers 96", "--num-layers 95").at(0).find("num-layers") != std::string::npos);
  CHECK(with("export CUDA_DEVICE_MAX_CONNECTIONS=1", "true").at(0).find("CUDA_DEVICE_MAX_CONNECTIONS") != std::string::npos);
  CHECK(with("--min-lr 6e-6", "--min-lr 6e-4").at(0) == "min-lr must not exceed lr");
  // hidden-size % heads is asserted only where kv_channels is derived from them (arguments.py).
  CHECK(with("--hidden-size 12288", "--hidden-size 12280").at(0).find("hidden-size must be divisible") == 0);
  CHECK(with("--hidden-size 12288", "--hidden-size 12280 --kv-channels 128").empty());
  // torchrun's counts in the --opt=N form count the same.
  CHECK(with("--nnodes 128", "--nnodes=128").empty());
  // The rule says the values it read: 3 nodes of 8 are 24 GPUs, which TP 8 x PP 16 does not divide.
  CHECK(with("--nnodes 128", "--nnodes=3").at(0) ==
        "world size must be divisible by TP x PP x CP (here world 24, tensor-model-parallel-size 8, "
        "pipeline-model-parallel-size 16)");
  // Interleaving: 96 / 16 = 6 layers per stage, in virtual stages of 2 (fine) or 4 (not).
  CHECK(with("--bf16", "--bf16 --num-layers-per-virtual-pipeline-stage 2").empty());
  CHECK(with("--bf16", "--bf16 --num-layers-per-virtual-pipeline-stage 4").at(0).find("virtual") != std::string::npos);
  // With PP 2 only when p2p communication overlaps (the default; validate_args, core_v0.8.0).
  const std::string pp2 = "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 2";
  CHECK(with("--pipeline-model-parallel-size 16", pp2).empty());
  CHECK(with("--pipeline-model-parallel-size 16", pp2 + " --no-overlap-p2p-communication").size() == 1);
  CHECK(with("--lr 6e-5", "--lr 6e-5 --lr-decay-style cosin").at(0).find("accepted: constant, linear, cosine") !=
        std::string::npos);
  CHECK(with("--bf16", "--bf16 --num-layer 3").at(0).find("--num-layer is not an option") != std::string::npos);
  CHECK(check_megatron("echo hello\n", d, "core_v0.13.0", test_catalog().trainer("megatron")).at(0) ==
        "no command runs pretrain_gpt.py");
  // Node counts past a 64-bit integer, or whose world size passes one, are refused, not an internal error.
  CHECK(with("--nnodes 128", "--nnodes 99999999999999999999")
            .at(0)
            .rfind("world size must be divisible by TP x PP x CP", 0) == 0);
  CHECK(with("--nnodes 128 --nproc-per-node 8", "--nnodes 9999999999 --nproc-per-node 9999999999")
            .at(0)
            .rfind("world size must be divisible by TP x PP x CP", 0) == 0);
}

TEST_CASE("Megatron: a value attached with '=' or in the next word, as argparse finds it") {
  // argparse's negative-number pattern: -6 and -.5 are values, -6e-05 and -5. are option-like words.
  for (const char* value : {"-6", "-0.00006", "-.5", "-", "- 1"}) CHECK_MESSAGE(!argparse_option_like(value), value);
  for (const char* option : {"-6e-05", "-5.", "-x", "--lr", "-1_0"})
    CHECK_MESSAGE(argparse_option_like(option), option);
  CHECK(split_attached("lr=3e-4") == std::pair<std::string, std::optional<std::string>>{"lr", "3e-4"});
  CHECK(split_attached("lr") == std::pair<std::string, std::optional<std::string>>{"lr", std::nullopt});
  const LaunchData& d = launch_data();
  auto parse = [&](std::vector<std::string> words) {
    return parse_arguments(words, d.megatron_flags, "Megatron-LM", "core_v0.13.0");
  };
  const auto attached = parse({"--lr=6e-05", "--tensor-model-parallel-size=8", "--bf16"});
  CHECK(attached.problems.empty());
  CHECK(attached.number("lr") == 6e-05);
  CHECK(attached.number("tensor-model-parallel-size") == 8);
  CHECK(parse({"--lr", "-0.00006"}).number("lr") == -0.00006);
  CHECK(parse({"--lr", "-6e-05"}).problems.at(0) == "--lr expects 1 value(s)");
  CHECK(parse({"--bf16=1"}).problems == std::vector<std::string>{"--bf16=1: --bf16 takes no value"});
  // A launcher's counts in either spelling, the last one winning, and none from the program's own arguments.
  const std::vector<std::string> torchrun = {"torchrun",   "--nnodes",        "4",        "--nproc-per-node=8",
                                             "--nnodes=2", "pretrain_gpt.py", "--nnodes", "9"};
  const size_t program = program_index(torchrun, "pretrain_gpt.py");
  CHECK(program == 5);
  CHECK(option_value(torchrun, {"nnodes"}, program)->value == "2");
  const auto per_node = option_value(torchrun, {"nproc-per-node", "nproc_per_node"}, program);
  REQUIRE(per_node);
  CHECK(per_node->name == "nproc-per-node");
  CHECK(per_node->value == "8");
  CHECK(!option_value(torchrun, {"master-port"}, program));
}

TEST_CASE("Megatron: values are converted as argparse's type= does") {
  // What Python 3.11's int() and float() say of each word.
  const std::vector<std::pair<const char*, bool>> ints = {
      {"8", true},   {" 8 ", true}, {"+8", true},   {"-8", true},     {"1_000", true}, {"1__0", false},
      {"_1", false}, {"1_", false}, {"8.0", false}, {"eight", false}, {"", false},     {"0x10", false}};
  for (const auto& [word, read] : ints) CHECK_MESSAGE(argparse_accepts(word, ArgparseType::kInt) == read, word);
  const std::vector<std::pair<const char*, bool>> floats = {
      {"3e-4", true},  {"3E-4", true},   {".5", true},        {"5.", true},    {"1_0.5", true},   {"1._5", false},
      {"1e1_0", true}, {"inf", true},    {"-Infinity", true}, {"NaN", true},   {"nan(1)", false}, {"e5", false},
      {"1e", false},   {"0x1p3", false}, {"abc", false},      {" 2.5 ", true}, {"1.5e+3", true},  {"", false}};
  for (const auto& [word, read] : floats) CHECK_MESSAGE(argparse_accepts(word, ArgparseType::kFloat) == read, word);
  CHECK(argparse_accepts("anything", ArgparseType::kString));

  const LaunchData& d = launch_data();
  REQUIRE(d.megatron_flag("tensor-model-parallel-size") != nullptr);
  CHECK(d.megatron_flag("tensor-model-parallel-size")->type == ArgparseType::kInt);
  CHECK(d.megatron_flag("lr")->type == ArgparseType::kFloat);
  CHECK(d.megatron_flag("split")->type == ArgparseType::kString);
  auto problems = [&](std::vector<std::string> words) {
    return parse_arguments(words, d.megatron_flags, "Megatron-LM", "core_v0.13.0").problems;
  };
  CHECK(problems({"--tensor-model-parallel-size", "eight"}) ==
        std::vector<std::string>{"--tensor-model-parallel-size eight: not an int; accepted: a whole number"});
  CHECK(problems({"--micro-batch-size", "4.5"}) ==
        std::vector<std::string>{"--micro-batch-size 4.5: not an int; accepted: a whole number"});
  CHECK(problems({"--lr", "abc"}) ==
        std::vector<std::string>{"--lr abc: not a float; accepted: a number such as 3e-4"});
  CHECK(problems({"--lr", "6E-5", "--min-lr", "1_0e-6", "--tensor-model-parallel-size", "+8"}).empty());
  // The rules read values as argparse does: 4_095 is 4095, and an int choice matches 01.
  const auto parsed = parse_arguments({"--global-batch-size", "4_095", "--num-layers", "105 "}, d.megatron_flags,
                                      "Megatron-LM", "core_v0.13.0");
  CHECK(parsed.number("global-batch-size") == 4095);
  CHECK(parsed.number("num-layers") == 105);
  CHECK(problems({"--empty-unused-memory-level", "01"}).empty());
  CHECK(problems({"--empty-unused-memory-level", "3"}).size() == 1);
  // A value the shell expands is known only when the script runs.
  CHECK(problems({"--tensor-model-parallel-size", "$TP", "--lr", "${LR:-abc}"}).empty());
  // Megatron-DeepSpeed's list carries types too.
  CHECK(
      parse_arguments({"--zero-stage", "one"}, d.megatron_deepspeed_flags, "Megatron-DeepSpeed", "").problems.size() ==
      1);
}

TEST_CASE("DeepSpeed: the batch identity holds by construction and ZeRO-2 with pipeline stages is refused") {
  const auto files = emit_files(Target::kDeepSpeed, spec_of(gpt3_plan()), options());
  const auto j = nlohmann::json::parse(files[0].content);
  CHECK(j["train_batch_size"] == 1536);
  CHECK(j["train_batch_size"].get<long long>() == j["train_micro_batch_size_per_gpu"].get<long long>() *
                                                      j["gradient_accumulation_steps"].get<long long>() * 8);
  CHECK(j["scheduler"]["params"]["total_num_steps"].get<long long>() * 1536 >= 146484375);
  plan::PlanResult p = gpt3_plan();
  p.layouts.layouts[0].layout.zero_stage = 2;
  // Megatron's plan (it offers no ZeRO-2) edited to ZeRO-2: refused under DeepSpeed's rule, not Megatron's.
  CHECK_THROWS_WITH_AS(emit_files(Target::kDeepSpeed, spec_of(p), options()),
                       doctest::Contains("deepspeed refuses the plan's layout (TP 8, PP 16, VPP 1, CP 1, DP 8, EP 1, "
                                         "ZeRO-2, micro-batch 1): rule 'zero_with_pipeline': deepspeed runs ZeRO "
                                         "stage at most 1 with pipeline parallelism, got ZeRO-2 with PP 16"),
                       FieldError);
  const auto& ds = rules("deepspeed");
  std::string edited = files[0].content;
  edited.replace(edited.find("\"train_batch_size\": 1536"), 24, "\"train_batch_size\": 1535");
  const auto problems = check_deepspeed(edited, launch_data(), ds);  // the identity, then the search's batch rule
  CHECK(problems == std::vector<std::string>{
                        "train_batch_size 1535 != train_micro_batch_size_per_gpu 1 x gradient_accumulation_steps 192 x "
                        "DP 8 = 1536",
                        "rule 'batch': global batch 1535 is not divisible by micro-batch·DP = 8"});
  CHECK(check_deepspeed("{\"train_batch_size\": 8}", launch_data(), ds).empty());  // DeepSpeed derives the rest
  CHECK(check_deepspeed("{}", launch_data(), ds).size() == 1);
  CHECK(check_deepspeed("{", launch_data(), ds) ==
        std::vector<std::string>{"not JSON: parse error at line 1, column 2: syntax error while parsing object key - "
                                 "unexpected end of input; expected string literal"});
  // What DeepSpeed would read silently or not at all: a key twice, a number past a double, an isoflop document.
  CHECK(check_deepspeed("{\"train_batch_size\": 8, \"train_batch_size\": 16}", launch_data(), ds) ==
        std::vector<std::string>{
            "not a ds_config: duplicate key 'train_batch_size' (a key may appear once in an object)"});
  CHECK(check_deepspeed("{\"train_batch_size\": 1e400}", launch_data(), ds) ==
        std::vector<std::string>{"not JSON: number overflow parsing '1e400'"});
  CHECK(check_deepspeed("{\"schema\": \"isoflop/plan/v2\"}", launch_data(), ds).at(0).find("an isoflop document") == 0);
}

TEST_CASE("DeepSpeed: a key it does not read is said, with the key meant, at the top level and in its sections") {
  const auto& ds = rules("deepspeed");
  const std::string batch = "\"train_batch_size\": 8, ";
  const auto checked = [&](const std::string& body) {
    return check_deepspeed("{" + batch + body + "}", launch_data(), ds);
  };
  // Ignored at the top level: the run would be ZeRO-0.
  CHECK(checked("\"zero_optimisation\": {\"stage\": 3}") ==
        std::vector<std::string>{"'zero_optimisation' is not a key DeepSpeed v0.19.5 reads: it ignores it (did you "
                                 "mean 'zero_optimization'?), so that setting keeps its default"});
  // A key far from all it reads ("comment", two edits from "comet") is only ignored: a warning, not a problem; so
  // is bfloat16 beside bf16 (read only without it), whose keys are then not checked.
  const std::string ignored =
      "{" + batch + "\"comment\": \"x\", \"bf16\": {\"enabled\": true}, \"bfloat16\": {\"enabld\": 1}}";
  CHECK(check_deepspeed(ignored, launch_data(), ds).empty());
  CHECK(
      deepspeed_warnings(ignored, launch_data()) ==
      std::vector<std::string>{"'comment' is not a key DeepSpeed v0.19.5 reads: it ignores it (did you mean 'comet'?)",
                               "'bfloat16' is ignored: DeepSpeed v0.19.5 reads it only where 'bf16' is absent"});
  // Refused within a section DeepSpeed validates, nested ones too; a value "auto" is dropped before it validates.
  // "auto" is dropped only in a section DeepSpeed builds from the dict itself, not in a nested one (offload_param).
  CHECK(checked("\"zero_optimization\": {\"stage\": 1, \"overlap_com\": true, \"offload_param\": {\"pin_memry\": "
                "\"auto\"}, \"reduce_bucket_sise\": \"auto\"}") ==
        std::vector<std::string>{
            "zero_optimization.overlap_com is not a key of DeepSpeed v0.19.5's zero_optimization, which refuses the "
            "config at start: extra inputs are not permitted (did you mean 'overlap_comm'?)",
            "zero_optimization.offload_param.pin_memry is not a key of DeepSpeed v0.19.5's "
            "zero_optimization.offload_param, which refuses the config at start: extra inputs are not permitted (did "
            "you mean 'pin_memory'?)"});
  // Names and aliases both pass (populate_by_name), as do isoflop's own section and the bf16 alias bfloat16.
  CHECK(checked("\"zero_optimization\": {\"stage\": 3, \"stage3_max_live_parameters\": 1e9, \"max_live_parameters\": "
                "1e9}, \"bfloat16\": {\"enabled\": true}, \"isoflop\": {\"data_parallel_size\": 1}")
            .empty());
  // A key cut short names the one it begins, among those the file leaves out: a problem, not a warning.
  CHECK(check_deepspeed("{\"train_batch_size\": 64, \"train_micro_batch_size\": 4, \"gradient_clip\": 1.0}",
                        launch_data(), ds) ==
        std::vector<std::string>{
            "'train_micro_batch_size' is not a key DeepSpeed v0.19.5 reads: it ignores it (did you mean "
            "'train_micro_batch_size_per_gpu'?), so that setting keeps its default",
            "'gradient_clip' is not a key DeepSpeed v0.19.5 reads: it ignores it (did you mean 'gradient_clipping'?), "
            "so that setting keeps its default"});
  // "auto" precision switches are dropped before DeepSpeed validates (not a type error, not enabled); bfloat16
  // stands for bf16 where bf16 is absent.
  CHECK(checked("\"bf16\": {\"enabled\": \"auto\"}, \"fp16\": {\"enabled\": \"auto\"}").empty());
  CHECK(checked("\"bfloat16\": {\"enabled\": true}, \"fp16\": {\"enabled\": true}") ==
        std::vector<std::string>{"bf16 and fp16 cannot both be enabled"});
  // pydantic reads 1 and "true" as enabled, and bf16: null falls back to bfloat16.
  CHECK(checked("\"bf16\": {\"enabled\": true}, \"fp16\": {\"enabled\": 1}") ==
        std::vector<std::string>{"bf16 and fp16 cannot both be enabled"});
  CHECK(checked("\"bf16\": null, \"bfloat16\": {\"enabled\": \"true\"}, \"fp16\": {\"enabled\": true}") ==
        std::vector<std::string>{"bf16 and fp16 cannot both be enabled"});
  // The deprecated boolean form of zero_optimization is not a section to look into.
  CHECK(checked("\"zero_optimization\": false").empty());
}

TEST_CASE("NeMo: a misspelt section is one line with the key meant, and a file without a model section is read") {
  const LaunchData& d = launch_data();
  const auto checked = [&](const std::string& text) { return check_nemo(text, d, "v2.4.0", rules("nemo")); };
  const auto problems = checked(
      "trainer:\n  devices: 8\n  num_nodes: 1\nmodel:\n  micro_batch_size: 1\n  global_batch_size: 8\n  optimm:\n"
      "    lr: 1.0e-4\n    sched:\n      name: CosineAnnealing\n      min_lr: 1.0e-5\n");
  CHECK(problems == std::vector<std::string>{"model.optimm is not a key of NeMo v2.4.0's megatron_gpt_config.yaml "
                                             "(did you mean 'optim'?) (nor are the 4 keys under it)"});
  // Only the trainer: the counts and the rules read the model's keys as left out (yaml-cpp threw here before).
  CHECK(checked("trainer:\n  devices: 2\n  num_nodes: 1\n").empty());  // 8 = 4 a micro-batch x DP 2
  CHECK(checked("model: 5\ntrainer:\n  devices: 8\n").size() == 1);
  // Given as --config-name, a file without the defaults list that loads megatron_gpt_config runs alone, and one
  // with _self_ first is overridden by NeMo's: warnings (the keys themselves may be right).
  CHECK(nemo_warnings("trainer:\n  devices: 2\n").at(0).find("no defaults list loads megatron_gpt_config") == 0);
  CHECK(nemo_warnings("defaults: [_self_, megatron_gpt_config]\ntrainer:\n  devices: 2\n")
            .at(0)
            .find("_self_ comes before megatron_gpt_config") == 0);
  CHECK(nemo_warnings("defaults: [megatron_gpt_config, _self_]\ntrainer:\n  devices: 2\n").empty());
  CHECK(nemo_warnings(emit_files(Target::kNemo, spec_of(gpt3_plan()), options())[0].content).empty());
  // A key that is not a name (a list as a key) is said at its line; yaml-cpp's conversion threw here before.
  CHECK(checked("model:\n  ? [a]\n  : 1\ntrainer:\n  devices: 2\n").at(0) ==
        "line 2: model has a key that is not a name (a list, a mapping or null); NeMo's config keys are names");
}

TEST_CASE("NeMo: every key is a key path of megatron_gpt_config.yaml, and the layout divides") {
  const auto files = emit_files(Target::kNemo, spec_of(gpt3_plan()), options());
  const std::string& y = files[0].content;
  const LaunchData& d = launch_data();
  auto check_nemo = [&](const std::string& text) { return emit::check_nemo(text, d, "v2.4.0", rules("nemo")); };
  CHECK(check_nemo(y).empty());
  CHECK(y.find("    sched:\n      name: CosineAnnealing\n      warmup_steps: 318\n") != std::string::npos);
  CHECK(check_nemo(y + "model2:\n  x: 1\n") ==
        std::vector<std::string>{"model2 is not a key of NeMo v2.4.0's megatron_gpt_config.yaml (did you mean "
                                 "'model'?) (nor is the key under it)"});
  std::string bad = y;
  bad.replace(bad.find("global_batch_size: 1536"), 23, "global_batch_size: 1537");
  CHECK(check_nemo(bad).at(0) == "rule 'batch': global batch 1537 is not divisible by micro-batch·DP = 8");
  // Counts below one, fractions and counts past a billion: refused with their line, and no rule runs on them.
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = y;
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
    return check_nemo(text);
  };
  const auto zero_devices = edited("devices: 8", "devices: 0");
  REQUIRE(zero_devices.size() == 1);
  CHECK(zero_devices[0].find(": trainer.devices 0 is out of range; accepted: 1 to 1000000000") != std::string::npos);
  CHECK(zero_devices[0].rfind("line ", 0) == 0);
  CHECK(edited("num_layers: 96", "num_layers: -104") ==
        std::vector<std::string>{"line " +
                                 std::to_string(std::count(y.begin(), y.begin() + y.find("num_layers: 96"), '\n') + 1) +
                                 ": model.num_layers -104 is out of range; accepted: 1 to 1000000000"});
  CHECK(edited("micro_batch_size: 1", "micro_batch_size: 1.5")
            .at(0)
            .find("model.micro_batch_size is not a whole number") != std::string::npos);
  // Quoted, a number is a string to OmegaConf, on which NeMo's batch arithmetic fails.
  for (const char* quoted : {"micro_batch_size: \"1\"", "micro_batch_size: '1'"})
    CHECK(edited("micro_batch_size: 1", quoted)
              .at(0)
              .find("model.micro_batch_size is quoted: a string to OmegaConf, not a number") != std::string::npos);
  CHECK(edited("num_nodes: ", "num_nodes: 99999999999 #").at(0).find("trainer.num_nodes 99999999999 is out of range") !=
        std::string::npos);
  CHECK(edited("virtual_pipeline_model_parallel_size: ", "virtual_pipeline_model_parallel_size: 0 #")
            .at(0)
            .find("accepted: null or 1 to 1000000000") != std::string::npos);
  // OmegaConf interpolations, as NeMo's own configs write them, are resolved when NeMo runs; max_steps -1 is
  // Lightning's "no limit".
  CHECK(edited("max_position_embeddings: 2048", "max_position_embeddings: ${.encoder_seq_length}").empty());
  // A node count known only when NeMo runs leaves the rules one node (the world-size rules speak of that).
  for (const auto& problem : edited("num_nodes: 128", "num_nodes: ${oc.env:NODES}")) {
    CHECK(problem.find("num_nodes") == std::string::npos);
    CHECK(problem.find("wrong type") == std::string::npos);
  }
  CHECK(edited("max_steps: ", "max_steps: -1 #").empty());
}

TEST_CASE("DeepSpeed --check: the optimizer is one DeepSpeed builds, its own in any case or torch.optim's by name") {
  const LaunchData& d = launch_data();
  const std::string base =
      R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
                               "isoflop": {"data_parallel_size": 8}, "optimizer": {"type": "TYPE"}})";
  auto problems = [&](const std::string& type) {
    std::string text = base;
    text.replace(text.find("TYPE"), 4, type);
    return check_config(Target::kDeepSpeed, text, d, options());
  };
  for (const char* type : {"Adam", "adamw", "ADAMW", "Lamb", "OneBitAdam", "SGD", "RMSprop"})
    CHECK_MESSAGE(problems(type).empty(), type);
  for (const char* type : {"Adamm", "sgd", "Optimizer", ""}) {  // torch.optim names match exactly
    const auto p = problems(type);
    REQUIRE_MESSAGE(p.size() == 1, type);
    CHECK(p[0].find("optimizer.type") == 0);
    CHECK(p[0].find("accepted: DeepSpeed's adagrad, adam, adamw") != std::string::npos);
  }
}

TEST_CASE("DeepSpeed --check: the scheduler is one of DeepSpeed's schedules or torch.optim.lr_scheduler's by name") {
  const LaunchData& d = launch_data();
  const std::string base =
      R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
                               "isoflop": {"data_parallel_size": 8}, "scheduler": {"type": "TYPE"}})";
  auto problems = [&](const std::string& type) {
    std::string text = base;
    text.replace(text.find("TYPE"), 4, type);
    return check_config(Target::kDeepSpeed, text, d, options());
  };
  for (const char* type : {"WarmupLR", "LRRangeTest", "CosineAnnealingLR", "LambdaLR"})
    CHECK_MESSAGE(problems(type).empty(), type);
  // DeepSpeed's own schedules are constructed with scheduler.params as keyword arguments (lr_schedules.py): a
  // required one left out, or one the constructor lacks, is a TypeError at start-up.
  CHECK(problems("WarmupDecayLR") ==
        std::vector<std::string>{"scheduler.params.total_num_steps is missing: WarmupDecayLR requires it"});
  CHECK(problems("OneCycle").size() == 2);
  auto with_params = [&](const std::string& type, const std::string& params) {
    std::string text = base;
    text.replace(text.find(R"("TYPE"})"), 7, "\"" + type + "\", \"params\": " + params + "}");
    return check_config(Target::kDeepSpeed, text, d, options());
  };
  CHECK(with_params("WarmupDecayLR", R"({"total_num_steps": 100, "warmup_max_lr": 3e-4, "warmup_num_steps": 10})")
            .empty());
  // WarmupCosineLR's ratios left in a WarmupDecayLR: both named, with what the schedule takes.
  const auto swapped =
      with_params("WarmupDecayLR", R"({"total_num_steps": 100, "warmup_min_ratio": 0, "cos_min_ratio": 0.1})");
  REQUIRE(swapped.size() == 2);
  CHECK(swapped[0].rfind("scheduler.params.warmup_min_ratio: WarmupDecayLR takes no such argument (did you mean "
                         "'warmup_min_lr'?); accepted: total_num_steps, warmup_min_lr",
                         0) == 0);
  CHECK(swapped[1].rfind("scheduler.params.cos_min_ratio: WarmupDecayLR takes no such argument", 0) == 0);
  // torch.optim.lr_scheduler's classes are not checked for their arguments.
  CHECK(with_params("CosineAnnealingLR", R"({"T_max": 100})").empty());
  // engine.py asserts "DeepSpeed does not recognize LR scheduler" for any other name (exact case).
  for (const char* type : {"CosineAnnealing", "warmuplr", ""}) {
    const auto p = problems(type);
    REQUIRE_MESSAGE(p.size() == 1, type);
    CHECK(p[0].rfind("scheduler.type", 0) == 0);
    CHECK(p[0].find("accepted: DeepSpeed's LRRangeTest, OneCycle, WarmupLR") != std::string::npos);
  }
  CHECK(problems("CosineAnnealing")[0].find("(did you mean 'CosineAnnealingLR'?)") != std::string::npos);
  // gradient_clipping is compared with 0.0 in the step: a string fails there.
  std::string clipped = base;
  clipped.replace(clipped.find("TYPE"), 4, "WarmupLR");
  clipped.insert(1, R"("gradient_clipping": "1.0", )");
  CHECK(check_config(Target::kDeepSpeed, clipped, d, options()) ==
        std::vector<std::string>{"gradient_clipping \"1.0\": accepted: a number, 0 for no clipping (the engine "
                                 "compares it with 0.0)"});
  // Without a scheduler section DeepSpeed runs none: nothing to check.
  CHECK(check_config(Target::kDeepSpeed,
                     R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
                         "isoflop": {"data_parallel_size": 8}})",
                     d, options())
            .empty());
}

TEST_CASE("DeepSpeed --check: the launch line's layout is held to DeepSpeed's rules, the very ones of the search") {
  plan::PlanResult p = gpt3_plan();
  const std::string text = emit_files(Target::kDeepSpeed, spec_of(p), options())[0].content;
  CHECK(check_deepspeed(text, launch_data(), rules("deepspeed")).empty());
  // An interleaved schedule (what a Megatron plan with VPP 2 would ask for): DeepSpeed has none.
  std::string interleaved = text;
  interleaved.replace(interleaved.find("--zero-stage 1"), 14, "--zero-stage 1 --num-layers-per-virtual-pipeline-stage 3");
  CHECK(check_deepspeed(interleaved, launch_data(), rules("deepspeed")) ==
        std::vector<std::string>{"rule 'interleaving': deepspeed has no interleaved schedule (VPP must be 1)"});
  std::string zero2 = text;
  zero2.replace(zero2.find("\"stage\": 1"), 10, "\"stage\": 2");
  CHECK(check_deepspeed(zero2, launch_data(), rules("deepspeed")).at(0).find("rule 'zero_with_pipeline'") == 0);
  std::string unknown = text;
  unknown.replace(unknown.find("--zero-stage 1"), 14, "--zero-stage 1 --no-such-flag");
  CHECK(check_deepspeed(unknown, launch_data(), rules("deepspeed")).at(0) ==
        "isoflop.launch: --no-such-flag is not an option of Megatron-DeepSpeed");
}

TEST_CASE("Megatron-DeepSpeed: a flag its parser lacks is an internal error naming it, never a written line") {
  LaunchData without = launch_data();
  without.megatron_deepspeed_flags.erase("zero-stage");
  LaunchSpec s = spec_of(gpt3_plan());
  s.data = &without;
  CHECK_THROWS_WITH_AS(megatron_deepspeed_arguments(s, "core_v0.13.0", "ds_config.json"),
                       doctest::Contains("--zero-stage is not an option of Megatron-DeepSpeed"), std::logic_error);
}

TEST_CASE("NeMo releases are data: the header names the one written, a key it lacks names the releases with it") {
  const LaunchData& d = launch_data();
  REQUIRE(d.nemo_versions.size() >= 3);
  plan::PlanResult p = gpt3_plan();
  CHECK(emit_files(Target::kNemo, spec_of(p), options("v1.22.0"))[0].content.find("target NeMo v1.22.0 (") !=
        std::string::npos);
  CHECK(emit_files(Target::kNemo, spec_of(p), options())[0].content.find("target NeMo " + d.default_nemo_version()) !=
        std::string::npos);
  CHECK_THROWS_WITH_AS(emit_files(Target::kNemo, spec_of(p), options("v9.9")),
                       doctest::Contains("'v9.9' is not one of v1.22.0|v1.23.0|v2.4.0 (NeMo)"), FieldError);
  // NeMo v1.22.0's model reads no MoE keys (num_moe_experts appears in megatron_gpt_model.py at v1.23.0).
  auto& a = p.job.architecture;
  a.moe.experts = 8;
  a.moe.top_k = 2;
  p.layouts.layouts[0].layout.ep = 8;
  try {
    emit_files(Target::kNemo, spec_of(p), options("v1.22.0"));
    FAIL("an MoE model has no NeMo v1.22.0 keys");
  } catch (const FieldError& e) {
    CHECK(e.field() == "target_version");
    CHECK(e.message() == "model.num_moe_experts is not a key of NeMo v1.22.0's megatron_gpt_config.yaml "
                         "(v1.23.0, v2.4.0 has it)");
  }
  const std::string moe = emit_files(Target::kNemo, spec_of(p), options("v1.23.0"))[0].content;
  CHECK(check_nemo(moe, d, "v1.23.0", rules("nemo")).empty());
  CHECK(check_nemo(moe, d, "v1.22.0", rules("nemo")).size() == 3);  // experts, top-k, expert parallel size
}

TEST_CASE("emit all names a release of each trainer with a comma, and each target takes only its own") {
  const plan::PlanResult p = gpt3_plan();
  const auto files = emit_files(Target::kAll, spec_of(p), options("core_v0.8.0,v1.23.0"));
  REQUIRE(files.size() == 4);
  CHECK(files[0].content.find("Megatron-LM core_v0.8.0 (pretrain_gpt.py)") != std::string::npos);
  CHECK(files[2].content.find("target NeMo v1.23.0 (") != std::string::npos);
  // One release names its trainer's; the other trainer gets its newest.
  const auto one = emit_files(Target::kAll, spec_of(p), options("v1.23.0"));
  CHECK(one[0].content.find("Megatron-LM " + launch_data().default_megatron_version()) != std::string::npos);
  auto refused = [&](Target t, const char* asked) {
    try {
      emit_files(t, spec_of(p), options(asked));
    } catch (const FieldError& e) {
      CHECK(e.field() == "target_version");
      return e.message();
    }
    return std::string("accepted");
  };
  CHECK(refused(Target::kAll, "core_v0.8.0,core_v0.13.0") ==
        "'core_v0.8.0,core_v0.13.0' names two Megatron-LM releases; accepted: at most one of each");
  CHECK(refused(Target::kAll, "core_v0.8.0,").find("'' is not one of") == 0);
  CHECK(refused(Target::kMegatron, "core_v0.8.0,v1.23.0") ==
        "'v1.23.0' is not one of core_v0.8.0|core_v0.13.0 (Megatron-LM)");
  CHECK(refused(Target::kNemo, "core_v0.8.0").find("(NeMo)") != std::string::npos);
}

TEST_CASE("NeMo --check: the layout the file states is held to NeMo's rules") {
  const std::string y = emit_files(Target::kNemo, spec_of(gpt3_plan()), options())[0].content;
  std::string wide = y;  // TP 16 on nodes of 8 GPUs
  wide.replace(wide.find("tensor_model_parallel_size: 8"), 29, "tensor_model_parallel_size: 16");
  wide.replace(wide.find("pipeline_model_parallel_size: 16"), 32, "pipeline_model_parallel_size: 8");
  CHECK(check_nemo(wide, launch_data(), "v2.4.0", rules("nemo")).at(0).find("rule 'tp_within_node'") == 0);
  std::string odd = y;
  odd.replace(odd.find("num_nodes: 128"), 14, "num_nodes: 127");
  CHECK(check_nemo(odd, launch_data(), "v2.4.0", rules("nemo")).at(0).find("rule 'gpus'") == 0);
  // A batch key left out is megatron_gpt_config.yaml's (micro-batch 4, global batch 8), as NeMo runs it: leaving
  // the micro-batch out judges the same as stating its 4.
  const std::string cluster = "trainer:\n  devices: 8\n  num_nodes: 16\nmodel:\n  global_batch_size: 960\n";
  const auto left_out = check_nemo(cluster, launch_data(), "v2.4.0", rules("nemo"));
  CHECK(left_out == check_nemo(cluster + "  micro_batch_size: 4\n", launch_data(), "v2.4.0", rules("nemo")));
  REQUIRE(left_out.size() == 1);
  CHECK(left_out[0] == "rule 'batch': global batch 960 is not divisible by micro-batch·DP = 512");
  CHECK(check_nemo(cluster + "  micro_batch_size: 1\n", launch_data(), "v2.4.0", rules("nemo")).size() == 1);
  CHECK(check_nemo("trainer:\n  devices: 8\n  num_nodes: 16\nmodel:\n  global_batch_size: 1024\n", launch_data(),
                   "v2.4.0", rules("nemo"))
            .empty());
  // Sequence parallelism with TP 1: NeMo logs a warning and switches it off (megatron_base_model.py), so the file
  // runs; with TP 2 it is on.
  const std::string one =
      "trainer:\n  devices: 8\n  num_nodes: 1\nmodel:\n  global_batch_size: 64\n"
      "  micro_batch_size: 1\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n";
  CHECK(check_nemo(one, launch_data(), "v2.4.0", rules("nemo")).empty());
}

TEST_CASE("Megatron --check: the configs' rules of the release, and the layout held to Megatron-LM's rules") {
  // 128 nodes of 8: TP 8 x PP 16 leaves DP 8; 1536 sequences of micro-batch 1 are 192 micro-batches a step.
  const LaunchData& d = launch_data();
  const std::string ok =
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\nARGS=(--num-layers 96 --hidden-size 12288 --num-attention-heads 96\n"
      "  --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 1536\n"
      "  --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --train-samples 146484375 --lr 6e-5\n"
      "  --min-lr 6e-6 --sequence-parallel)\ntorchrun --nnodes 128 --nproc-per-node 8 pretrain_gpt.py \"${ARGS[@]}\" "
      "--bf16\n";
  const auto& megatron = test_catalog().trainer("megatron");
  CHECK(check_megatron(ok, d, "core_v0.13.0", megatron).empty());
  auto with = [&](const std::string& added, const std::string& version = "core_v0.13.0") {
    std::string s = ok;
    s.replace(s.find("--bf16"), 6, "--bf16 " + added);
    return check_megatron(s, d, version, megatron);
  };
  // TransformerConfig: full recompute names its method and its layers (both releases).
  CHECK(with("--recompute-granularity full").at(0).rfind("recompute-granularity full needs", 0) == 0);
  CHECK(with("--recompute-granularity full --recompute-method uniform").size() == 1);
  CHECK(with("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1").empty());
  CHECK(with("--recompute-granularity full --recompute-method block --recompute-num-layers 1", "core_v0.8.0").empty());
  // MoE: biases are refused from core_v0.13.0 only, top-1 routing wants the softmax first there, and EP with TP
  // wants sequence parallelism in both (ModelParallelConfig).
  const std::string moe = "--num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 2";
  const auto biased = with(moe);
  REQUIRE(biased.size() == 1);
  CHECK(biased[0].find("no biases with MoE") != std::string::npos);
  CHECK(with(moe, "core_v0.8.0").empty());
  CHECK(with(moe + " --disable-bias-linear").empty());
  const std::string top1 = "--num-experts 8 --moe-router-topk 1 --disable-bias-linear";
  CHECK(with(top1).at(0).rfind("moe-router-topk 1 with a softmax router needs moe-router-pre-softmax", 0) == 0);
  CHECK(with(top1 + " --moe-router-pre-softmax").empty());
  CHECK(with(top1 + " --moe-router-load-balancing-type sinkhorn").empty());
  CHECK(with(top1, "core_v0.8.0").empty());
  std::string no_sp = ok;
  no_sp.replace(no_sp.find(" --sequence-parallel"), 20, "");
  no_sp.replace(no_sp.find("--bf16"), 6, "--bf16 " + moe + " --disable-bias-linear");
  CHECK(check_megatron(no_sp, d, "core_v0.13.0", megatron).at(0).rfind("expert-model-parallel-size > 1 with", 0) == 0);
  // The layout search's rules once the script's own hold: the interleaved schedule wants micro-batches a multiple
  // of PP (1544 / 8 = 193 of them on PP 16: schedules.py raises), whatever the release.
  std::string interleaved = ok;
  interleaved.replace(interleaved.find("--global-batch-size 1536"), 24, "--global-batch-size 1544");
  interleaved.replace(interleaved.find("--bf16"), 6, "--bf16 --num-layers-per-virtual-pipeline-stage 2");
  const auto micro = check_megatron(interleaved, d, "core_v0.13.0", megatron);
  REQUIRE(micro.size() == 1);
  CHECK(micro[0].rfind("rule 'interleaving': ", 0) == 0);
  CHECK(micro[0].find("micro-batches 193 divisible by PP 16") != std::string::npos);
  // With a micro-batch group per virtual stage (core_v0.13.0) the schedule holds M mod N to 0 or at least PP:
  // 193 mod 17 = 6 < 16 is refused, 193 mod 32 = 1 too, and 192 micro-batches in groups of 24 run.
  auto grouped = [&](const std::string& global, const std::string& group) {
    std::string s = interleaved;
    s.replace(s.find("--global-batch-size 1544"), 24, "--global-batch-size " + global);
    s.replace(s.find("--bf16"), 6, "--bf16 --microbatch-group-size-per-virtual-pipeline-stage " + group);
    return check_megatron(s, d, "core_v0.13.0", megatron);
  };
  CHECK(grouped("1544", "17").at(0).rfind("microbatch-group-size-per-virtual-pipeline-stage must lie", 0) == 0);
  CHECK(grouped("1544", "32").size() == 1);
  CHECK(grouped("1536", "24").empty());
  CHECK(grouped("1536", "8").size() == 1);  // fewer than PP
}

TEST_CASE("Megatron --check: FSDP2 as validate_args asserts it (core_v0.13.0)") {
  const LaunchData& d = launch_data();
  const std::string ok =
      "ARGS=(--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096\n"
      "  --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 512 "
      "--untie-embeddings-and-output-weights\n"
      "  --use-torch-fsdp2 --ckpt-format torch_dist --no-gradient-accumulation-fusion --train-samples 1000000 --lr "
      "3e-4\n"
      "  --min-lr 3e-5)\ntorchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py \"${ARGS[@]}\" --bf16\n";
  const auto& megatron = test_catalog().trainer("megatron");
  CHECK(check_megatron(ok, d, "core_v0.13.0", megatron).empty());
  auto without = [&](const std::string& removed, const std::string& added = "") {
    std::string s = ok;
    s.replace(s.find(removed), removed.size(), added);
    return check_megatron(s, d, "core_v0.13.0", megatron);
  };
  // Gradient-accumulation fusion is on unless switched off; the checkpoint format is torch_dist or torch_dcp.
  CHECK(without(" --no-gradient-accumulation-fusion").at(0).rfind("use-torch-fsdp2 needs no-gradient", 0) == 0);
  CHECK(
      without("--ckpt-format torch_dist", "--ckpt-format torch").at(0).rfind("use-torch-fsdp2 needs no-gradient", 0) ==
      0);
  CHECK(without("--ckpt-format torch_dist", "--ckpt-format torch_dcp").empty());
  // Tied embeddings: the layout search's rule names it.
  CHECK(without(" --untie-embeddings-and-output-weights").size() >= 1);
}

TEST_CASE("--check: the target is read from the file's form, and another form is an input error naming both") {
  const auto files = emit_files(Target::kAll, spec_of(gpt3_plan()), options());
  for (const auto& f : files) {
    const CheckReport r = check_file(f.name, std::nullopt, f.content, options());
    CHECK(r.target == f.target);
    CHECK(r.inferred);
    CHECK(r.problems.empty());
  }
  CHECK_THROWS_WITH_AS(check_file("megatron.sh", Target::kDeepSpeed, files[0].content, options()),
                       "megatron.sh: target deepspeed reads a ds_config JSON object (deepspeed); found a shell script "
                       "running pretrain_gpt.py (megatron)",
                       InputError);
  CHECK_THROWS_AS(check_file("x", std::nullopt, "just words\n", options()), FieldError);
  CHECK(check_file("job.sbatch", Target::kMegatron, files[3].content, options()).problems.empty());
}

TEST_CASE("SLURM: the job name is refused unless plain, and the time limit covers the run with its margin") {
  const LaunchSpec s = spec_of(gpt3_plan());
  for (const char* hostile : {"a b", "x$(reboot)", "it's", "a\nb", "a\"b", "", "semi;colon"}) {
    EmitOptions o = options();
    o.job_name = hostile;
    CHECK_THROWS_AS(emit_files(Target::kSlurm, s, o), FieldError);
  }
  const std::string script = emit_files(Target::kSlurm, s, options())[0].content;
  CHECK(check_slurm(script).empty());
  // The plan's run time: 95,368 iterations (146,484,375 / 1536, rounded up) × 30 s = 2,861,040 s; + 10% =
  // 52,452.4 minutes, rounded up: 36 days 10:13.
  CHECK(script.find("#SBATCH --time=36-10:13:00\n") != std::string::npos);
  CHECK(script.find("--rdzv-id \"$SLURM_JOB_ID\"") != std::string::npos);
  std::string bad = script;
  bad.replace(bad.find("--time=36-10:13:00"), 18, "--time=forever");
  CHECK(check_slurm(bad).at(0) ==
        "#SBATCH --time must be one of sbatch's forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
  // Every form sbatch(1) takes for --time passes; what it does not take is refused.
  for (const char* accepted :
       {"90", "90:30", "48:00:00", "2-12", "2-12:30", "36-10:13:00", "UNLIMITED", "Infinite", "unlimited", "-1"}) {
    std::string other = script;
    other.replace(other.find("--time=36-10:13:00"), 18, std::string("--time=") + accepted);
    INFO(accepted);
    CHECK(check_slurm(other).empty());
  }
  // A value longer than any real one is refused before it is matched (std::regex recurses once a character).
  for (const std::string& refused : {std::string("48h"), std::string("1:2:3:4"), std::string("-5"), std::string("2-"),
                                     std::string("1.5"), std::string(200000, '9')}) {
    std::string other = script;
    other.replace(other.find("--time=36-10:13:00"), 18, "--time=" + refused);
    INFO(refused.substr(0, 20));
    CHECK(!check_slurm(other).empty());
  }
  // torchrun told of more GPUs or nodes than the allocation has; sbatch takes the last of two directives.
  std::string fewer_gpus = script;
  fewer_gpus.replace(fewer_gpus.find("--gpus-per-node=8"), 17, "--gpus-per-node=7");
  CHECK(check_slurm(fewer_gpus) ==
        std::vector<std::string>{"torchrun --nproc-per-node 8 disagrees with #SBATCH --gpus-per-node=7"});
  std::string twice = script;
  twice.replace(twice.find("#SBATCH --gpus-per-node=8\n"), 0, "#SBATCH --gpus-per-node=4\n");
  CHECK(check_slurm(twice).empty());
  std::string last_fewer = script;
  last_fewer.replace(last_fewer.find("#SBATCH --gpus-per-node=8\n"), 26,
                     "#SBATCH --gpus-per-node=8\n#SBATCH --gpus-per-node=4\n");
  CHECK(check_slurm(last_fewer) ==
        std::vector<std::string>{"torchrun --nproc-per-node 8 disagrees with #SBATCH --gpus-per-node=4"});
  std::string equals_form = script;  // --nproc-per-node=4 is the same option
  equals_form.replace(equals_form.find("--nproc-per-node 8"), 18, "--nproc-per-node=4");
  CHECK(check_slurm(equals_form) ==
        std::vector<std::string>{"torchrun --nproc-per-node 4 disagrees with #SBATCH --gpus-per-node=8"});
  std::string literal_nodes = script;
  literal_nodes.replace(literal_nodes.find("--nnodes \"$SLURM_JOB_NUM_NODES\""), 31, "--nnodes 64");
  CHECK(check_slurm(literal_nodes) ==
        std::vector<std::string>{"torchrun --nnodes 64 disagrees with #SBATCH --nodes=128"});
  // The GPUs a node in sbatch's older spelling count the same, with or without a GPU type.
  for (const char* gres : {"--gres=gpu:8", "--gres=gpu:a100:8"}) {
    std::string older = script;
    older.replace(older.find("--gpus-per-node=8"), 17, gres);
    CHECK_MESSAGE(check_slurm(older).empty(), gres);
  }
  std::string older_fewer = script;
  older_fewer.replace(older_fewer.find("--gpus-per-node=8"), 17, "--gres=gpu:4");
  CHECK(check_slurm(older_fewer) ==
        std::vector<std::string>{"torchrun --nproc-per-node 8 disagrees with #SBATCH --gpus-per-node=4"});
  // torchrun's rendezvous options in the --opt=value form are the same options.
  std::string attached = script;
  attached.replace(attached.find("--rdzv-backend c10d"), 19, "--rdzv-backend=c10d");
  CHECK(check_slurm(attached).empty());
  // One task a node: each task would start its own torchrun and a process per GPU.
  std::string tasks = script;
  tasks.replace(tasks.find("--ntasks-per-node=1"), 19, "--ntasks-per-node=8");
  CHECK(check_slurm(tasks).at(0).find("#SBATCH --ntasks-per-node=8 starts that many torchruns a node") == 0);
  // A job name is sbatch's choice to make: a script without one is not refused.
  std::string unnamed = script;
  unnamed.erase(unnamed.find("#SBATCH --job-name="),
                unnamed.find('\n', unnamed.find("#SBATCH --job-name=")) + 1 - unnamed.find("#SBATCH --job-name="));
  CHECK(check_slurm(unnamed).empty());
}

TEST_CASE(
    "a plan with bf16 gradients: Megatron-LM is told so, NeMo and DeepSpeed (whose files state no precision) run their "
    "own") {
  plan::PlanResult p = gpt3_plan();
  const std::string plain = emit_files(Target::kMegatron, spec_of(p), options())[0].content;
  CHECK(plain.find("--grad-reduce-in-bf16") == std::string::npos);
  p.search.time.grad_reduce = parallel::GradReduce::kBf16;
  const LaunchSpec s = spec_of(p);
  CHECK(emit_files(Target::kMegatron, s, options())[0].content.find("  --grad-reduce-in-bf16\n") != std::string::npos);
  // NeMo reduces in fp32 (the memory is counted again where the plan has its accelerator's); DeepSpeed in bf16,
  // its own default, and Megatron-LM's flag is not on its line.
  const auto& cat = test_catalog();
  CHECK(under_rules(s, cat.trainer("megatron"), cat.trainer("megatron")).search.time.grad_reduce ==
        parallel::GradReduce::kBf16);
  CHECK(under_rules(s, cat.trainer("nemo"), cat.trainer("megatron")).search.time.grad_reduce ==
        parallel::GradReduce::kFp32);  // its own default, resolved
  CHECK(under_rules(s, cat.trainer("deepspeed"), cat.trainer("megatron")).search.time.grad_reduce ==
        parallel::GradReduce::kBf16);  // its own default: nothing to change
  CHECK(emit_files(Target::kNemo, s, options())[0].content.find("grad_reduce") == std::string::npos);
  for (const auto& f : emit_files(Target::kDeepSpeed, s, options()))
    CHECK(f.content.find("grad-reduce-in-bf16") == std::string::npos);
  // core_v0.8.0 has no such flag: the release that has it is named.
  CHECK_THROWS_WITH_AS(emit_files(Target::kMegatron, s, options("core_v0.8.0")),
                       doctest::Contains("--grad-reduce-in-bf16 is not an option of Megatron-LM core_v0.8.0"),
                       FieldError);
}

TEST_CASE("a plan on part of one node launches a process per GPU it has, on one node, in every file") {
  plan::PlanResult p = gpt3_plan();
  p.cluster.gpus = 4;
  auto& l = p.layouts.layouts.front().layout;
  l.tp = 4;
  l.pp = 1;
  l.dp = 1;
  p.job.global_batch = 16;
  const LaunchSpec s = spec_of(p);
  CHECK(s.nodes == 1);
  CHECK(s.gpus_per_node == 4);
  const std::string sbatch = emit_files(Target::kSlurm, s, options())[0].content;
  CHECK(sbatch.find("#SBATCH --nodes=1\n") != std::string::npos);
  CHECK(sbatch.find("#SBATCH --gpus-per-node=4\n") != std::string::npos);
  CHECK(sbatch.find("#SBATCH --exclusive") == std::string::npos);  // the node's other 4 GPUs stay the scheduler's
  CHECK(check_slurm(sbatch).empty());
  CHECK(emit_files(Target::kSlurm, spec_of(gpt3_plan()), options())[0].content.find("#SBATCH --exclusive\n") !=
        std::string::npos);
  const std::string nemo = emit_files(Target::kNemo, s, options())[0].content;
  CHECK(nemo.find("  devices: 4\n") != std::string::npos);
  CHECK(nemo.find("  num_nodes: 1\n") != std::string::npos);
  const std::string megatron = emit_files(Target::kMegatron, s, options())[0].content;
  CHECK(megatron.find("--nproc-per-node 4") != std::string::npos);
  // Past one node the GPUs must fill whole nodes, as before.
  p.cluster.gpus = 12;
  l.dp = 3;
  p.job.global_batch = 12;
  CHECK_THROWS_WITH_AS(spec_of(p), "plan cluster: 12 GPUs do not fill whole nodes of 8", FieldError);
}

TEST_CASE("shell words: quoting reads back as the same word") {
  for (const std::string w : {"plain", "a b", "it's", "$HOME", "x\ny", "\"q\""}) {
    const ScriptWords words = read_script_words("cmd " + shell_quote(w) + "\n");
    REQUIRE(words.commands.size() == 1);
    CHECK(words.commands[0].at(1) == w);
  }
  const ScriptWords a = read_script_words("A=(\n  --x 1 # note\n  --y \"two words\"\n)\nrun p.py \"${A[@]}\" --z\n");
  CHECK(program_arguments(a, "p.py") == std::vector<std::string>{"--x", "1", "--y", "two words", "--z"});
  CHECK(literal_integer("${NNODES:-420}") == 420);
  CHECK(!literal_integer("$SLURM_JOB_NUM_NODES"));
  CHECK(literal_integer("000") == 0);
  CHECK(literal_integer("0000000000000000000000042") == 42);
  CHECK(literal_integer("99999999999999999999") == kLargestLiteral);  // past a long long: no stoll error
  CHECK(world_size(kLargestLiteral, kLargestLiteral) == std::numeric_limits<int>::max());
}

TEST_CASE("options by name: the table's option strings become names, and a name round-trips to its word") {
  for (const std::string name : {"num-layers", "num_nodes", "nproc-per-node"}) {
    CHECK(option_name(long_option(name)) == name);
    CHECK(long_option(name) == "--" + name);  // argparse's long form, as the trainers spell it
  }
  CHECK(!option_name("-x"));
  CHECK(!option_name("value"));
  CHECK(!option_name("-"));
  const LaunchData& d = launch_data();
  REQUIRE(d.megatron_flag("num-layers") != nullptr);
  CHECK(d.megatron_flag("num-layers")->nargs == 1);
  CHECK(d.megatron_flag(long_option("num-layers")) == nullptr);  // keyed by name, never by word
  CHECK(d.megatron_deepspeed_flags.count("zero-stage") == 1);
  // An unknown option is reported as the script spells it.
  const auto parsed = parse_arguments({long_option("num-layer"), "3"}, d.megatron_flags, "Megatron-LM", "");
  REQUIRE(parsed.problems.size() == 1);
  CHECK(parsed.problems[0].rfind(long_option("num-layer") + " is not an option of Megatron-LM", 0) == 0);
}

TEST_CASE("the overlaps a file states are the ones the plan's step time assumed") {
  const auto has = [](const std::string& text, const char* what) { return text.find(what) != std::string::npos; };
  const auto ds_overlap = [](const std::vector<EmittedFile>& files) {
    for (const auto& f : files)
      if (f.name == "ds_config.json")
        return nlohmann::json::parse(f.content).at("zero_optimization").at("overlap_comm").get<bool>();
    FAIL("no ds_config.json");
    return false;
  };
  plan::PlanResult p = gpt3_plan();  // ZeRO-1 under Megatron-LM, whose defaults overlap both
  std::string megatron = emit_files(Target::kMegatron, spec_of(p), options())[0].content;
  CHECK(has(megatron, "--overlap-grad-reduce"));
  CHECK(has(megatron, "--overlap-param-gather"));
  CHECK(!ds_overlap(emit_files(Target::kDeepSpeed, spec_of(p), options())));  // DeepSpeed's default: off
  p.search.time.overlap_grad_reduce = false;
  megatron = emit_files(Target::kMegatron, spec_of(p), options())[0].content;
  CHECK(!has(megatron, "--overlap-grad-reduce"));
  CHECK(!has(megatron, "--overlap-param-gather"));  // validate_args: it needs --overlap-grad-reduce
  p.search.time.overlap_grad_reduce = true;
  CHECK(ds_overlap(emit_files(Target::kDeepSpeed, spec_of(p), options())));
  // DDP (ZeRO-0) overlaps the gradients' reduction too; there is no parameter gather to overlap.
  p = gpt3_plan();
  p.layouts.layouts.front().layout.zero_stage = 0;
  megatron = emit_files(Target::kMegatron, spec_of(p), options())[0].content;
  CHECK(has(megatron, "--overlap-grad-reduce"));
  CHECK(!has(megatron, "--overlap-param-gather"));
  CHECK(!has(megatron, "--use-distributed-optimizer"));
}

TEST_CASE("slurm runs an FSDP plan with Megatron-LM, its header names what runs, and --check refuses the manifest") {
  // FSDP has no launch line isoflop writes: job.sbatch runs Megatron-LM under its rules (a layout it refuses is
  // re-ranked, as for any target; cli tests run that on a real cluster).
  plan::PlanResult p = gpt3_plan();
  p.job.trainer = parallel::Trainer::kFsdp;
  const auto fsdp = emit_files(Target::kSlurm, spec_of(p), options());
  REQUIRE(fsdp.size() == 1);
  CHECK(fsdp[0].content.find("trainer megatron (Megatron-LM ") != std::string::npos);
  CHECK(fsdp[0].content.find("\"$MEGATRON_LM/pretrain_gpt.py\"") != std::string::npos);
  // A DeepSpeed plan's script runs Megatron-DeepSpeed and says so.
  p = gpt3_plan();
  p.job.trainer = parallel::Trainer::kDeepSpeed;
  const auto ds = emit_files(Target::kSlurm, spec_of(p), options());
  CHECK(ds[0].content.find("trainer deepspeed (Megatron-DeepSpeed, DeepSpeed ") != std::string::npos);
  CHECK(ds[0].content.find("(Megatron-LM ") == std::string::npos);
  // emit's manifest is not a launch file of any form.
  const std::string manifest = R"({"isoflop_version": "0.1.0", "plan": "fnv1a64:0", "files": []})";
  CHECK_THROWS_WITH_AS(check_file("manifest.json", std::nullopt, manifest, options()),
                       doctest::Contains("manifest.json: emit's manifest (the files written and their hashes), not "
                                         "a launch file"),
                       InputError);
}

TEST_CASE(
    "DeepSpeed --check: a batch key left out is derived as DeepSpeed derives it, and what does not divide is said") {
  const auto problems = [](const std::string& text) {
    return check_config(Target::kDeepSpeed, text, launch_data(), options());
  };
  // train_batch_size and the micro-batch: DeepSpeed works out the accumulation for its world size.
  CHECK(problems(R"({"train_batch_size": 1024, "train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": true}})")
            .empty());
  CHECK(problems(R"({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 8})").empty());
  CHECK(problems(R"({"train_batch_size": 1024})").empty());
  CHECK(problems(R"({"train_batch_size": 1022, "train_micro_batch_size_per_gpu": 4})").at(0) ==
        "train_batch_size 1022 is not divisible by train_micro_batch_size_per_gpu 4");
  // With isoflop's stated DP the accumulation must come out whole.
  CHECK(problems(
            R"({"train_batch_size": 1024, "train_micro_batch_size_per_gpu": 4, "isoflop": {"data_parallel_size": 48}})")
            .at(0) == "train_batch_size 1024 is not divisible by train_micro_batch_size_per_gpu x DP = 192");
  CHECK(problems(R"({"bf16": {"enabled": true}})") ==
        std::vector<std::string>{"train_batch_size or train_micro_batch_size_per_gpu is missing (DeepSpeed derives the "
                                 "rest from either)"});
  CHECK(problems(R"({"train_batch_size": 1024, "gradient_accumulation_steps": 0})") ==
        std::vector<std::string>{"gradient_accumulation_steps must be a positive integer"});
  // Counts past any launch are refused before they are multiplied (2^32 × 2^32 would wrap to 0).
  CHECK(problems(R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 4294967296,
                     "gradient_accumulation_steps": 4294967296})") ==
        std::vector<std::string>{"train_micro_batch_size_per_gpu must be at most 1000000",
                                 "gradient_accumulation_steps must be at most 1000000"});
}

TEST_CASE("shell words: a script's variables and arrays are expanded where the launch names them") {
  const ScriptWords w = read_script_words(
      "GPUS_PER_NODE=8\nexport NNODES=${NNODES:-2}\nPORT=6000\nARGS=(--nproc_per_node $GPUS_PER_NODE --nnodes "
      "\"${NNODES}\")\ntorchrun \"${ARGS[@]}\" --master_port=$PORT ${UNSET:-7} $UNSET \"${ALSO:?set it}\" "
      "pretrain_gpt.py\n");
  CHECK(w.variables.at("GPUS_PER_NODE") == "8");
  // Unset before, it may come from the environment: kept as written, and its default read where a number is needed.
  CHECK(w.variables.at("NNODES") == "${NNODES:-2}");
  CHECK(literal_integer(w.variables.at("NNODES")) == 2);
  REQUIRE(w.commands.size() == 4);
  CHECK(w.commands[3] == std::vector<std::string>{"torchrun", "--nproc_per_node", "8", "--nnodes", "${NNODES:-2}",
                                                  "--master_port=6000", "${UNSET:-7}", "$UNSET", "${ALSO:?set it}",
                                                  "pretrain_gpt.py"});
  // The Megatron-LM check then sees the world size the script sets: 16 GPUs, TP 2 x PP 2, so DP 4; a global batch
  // of 510 does not divide into micro-batches of 4 over DP 4, 512 does.
  const std::string script =
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\nGPUS_PER_NODE=8\nNNODES=2\n"
      "torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py --num-layers 24 --hidden-size 2048 "
      "--num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 4 "
      "--global-batch-size BATCH --lr 3e-4 --train-iters 1000 --tensor-model-parallel-size 2 "
      "--pipeline-model-parallel-size 2 --bf16\n";
  const auto checked = [&](const char* batch) {
    std::string s = script;
    s.replace(s.find("BATCH"), 5, batch);
    return check_file("vars.sh", Target::kMegatron, s, options()).problems;
  };
  // A script that doubles a variable or an array line after line stays bounded (it would otherwise take 2^60).
  std::string bomb = "A=x\nB=(1)\n";
  for (int k = 0; k < 60; ++k) bomb += "A=$A$A\nB=(\"${B[@]}\" \"${B[@]}\")\n";
  const ScriptWords bounded = read_script_words(bomb);
  CHECK(bounded.variables.at("A").size() <= 2 * 4096);
  CHECK(bounded.arrays.at("B").size() <= 65536);
  // ... and so does one that copies a large array into line after line: all the words together.
  std::string copies = "A=" + std::string(4000, 'y') + "\nB=($A $A $A $A $A $A $A $A)\n";
  for (int k = 0; k < 2000; ++k) copies += "x \"${B[@]}\" \"${B[@]}\"\n";
  size_t characters = 0;
  for (const auto& c : read_script_words(copies).commands)
    for (const auto& word : c) characters += word.size();
  CHECK(characters <= copies.size() + (1 << 20) + 4096);
  // A name the script does not set keeps its default unread (sbatch sets SLURM_NNODES for the job), and one set in
  // a branch of an if is not known after it: neither reads as a number the check could hold the launch to.
  const ScriptWords unknown = read_script_words(
      "NNODES=${SLURM_NNODES:-1}\nif [ -n \"$BIG\" ]; then\n  GPN=8\nelse\n  GPN=1\nfi\ntorchrun --nnodes $NNODES "
      "--nproc-per-node $GPN x.py\n");
  CHECK(unknown.commands.back() ==
        std::vector<std::string>{"torchrun", "--nnodes", "${SLURM_NNODES:-1}", "--nproc-per-node", "$GPN", "x.py"});
  CHECK(!literal_integer("${SLURM_NNODES:-1}"));
  CHECK(literal_integer("${NNODES:-4}") == 4);
  CHECK(checked("512").empty());
  const auto refused = checked("510");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0] ==
        "global batch must be divisible by micro-batch x DP, DP = world / (TP x PP x CP) (here global-batch-size 510, "
        "micro-batch-size 4, world 16, tensor-model-parallel-size 2, pipeline-model-parallel-size 2)");
}

TEST_CASE("shell words: an unquoted expansion splits into words, a quoted one does not, single quotes keep it") {
  const ScriptWords w = read_script_words(
      "X=\"a b\"\nEMPTY=\nARR=(\"1 2\" 3)\n"
      "cmd $X \"$X\" '$X' \\$X $EMPTY \"$EMPTY\" ${ARR[@]} \"${ARR[@]}\" \"${ARR[*]}\" $ARR ${UNSET:-c d} "
      "--n $(nvidia-smi -L | wc -l) `hostname` end\n");
  REQUIRE(w.commands.size() == 3);  // the array's assignment is not a command
  CHECK(w.commands[2] == std::vector<std::string>{"cmd",        "a",
                                                  "b",          "a b",
                                                  "$X",         "$X",
                                                  "",           "1",
                                                  "2",          "3",
                                                  "1 2",        "3",
                                                  "1 2 3",      "1",
                                                  "2",          "${UNSET:-c d}",
                                                  "--n",        "$(nvidia-smi -L | wc -l)",
                                                  "`hostname`", "end"});
  // As bash reads them: a line continued within quotes, an empty array or the script's own arguments quoted (no
  // word), ${A} of an array (its first item), += onto an array or a string, $'…', and redirections (dropped).
  const ScriptWords more = read_script_words(
      "X=\"a \\\nb\"\nE=()\nA=(1 2)\nA+=(3 \"4 5\")\nY=p\nY+=q\n"
      "cmd $X \"${E[@]}\" \"$@\" ${A} \"${A[@]}\" $Y $'c d' 2>&1 > /dev/null >> log.txt &> x end\n");
  CHECK(more.commands.back() ==
        std::vector<std::string>{"cmd", "a", "b", "1", "1", "2", "3", "4 5", "pq", "c d", "end"});
  // Optional additions in a branch or after && are not read (the array stays as it was; a variable set there is
  // unknown), and a redirection's target is one word however it is built: none of it reaches the command.
  const ScriptWords optional = read_script_words(
      "A=(1 2)\nif [ -n \"$Y\" ]; then A+=(opt); fi\n[ -n \"$Y\" ] && A+=(bogus)\n[ -n \"$Y\" ] && Z=5\n"
      "cmd \"${A[@]}\" $Z x > logs/train_$(date +%Y%m%d_%H%M).log 2>&1 y > >(tee -a train.log) z >|log w\n");
  CHECK(optional.commands.back() == std::vector<std::string>{"cmd", "1", "2", "$Z", "x", "y", "z", "w"});
  // Megatron-LM's own examples pass torchrun's options and the model's as strings, unquoted: the words the
  // launcher and pretrain_gpt.py see are the string's, so the world size and the batch are checked.
  const std::string script =
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\nGPUS_PER_NODE=8\nNNODES=2\n"
      "DISTRIBUTED_ARGS=\"\n    --nproc_per_node $GPUS_PER_NODE \\\n    --nnodes $NNODES \\\n    --master_port "
      "6000\n\"\n"
      "GPT_ARGS=\"\n    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048\n"
      "    --max-position-embeddings 2048 --micro-batch-size 4 --global-batch-size BATCH --lr 3e-4\n"
      "    --train-iters 1000 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --bf16\n\"\n"
      "EXTRA=()\ntorchrun $DISTRIBUTED_ARGS pretrain_gpt.py $GPT_ARGS \"${EXTRA[@]}\" \"$@\" 2>&1 | tee log.txt\n";
  const auto checked = [&](const char* batch) {
    std::string s = script;
    s.replace(s.find("BATCH"), 5, batch);
    return check_file("strings.sh", Target::kMegatron, s, options()).problems;
  };
  CHECK(checked("512").empty());
  const auto refused = checked("510");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].find("(here global-batch-size 510, micro-batch-size 4, world 16,") != std::string::npos);
  // Quoted, the string is one word: torchrun would read it as one (unknown) option, and so does the check.
  std::string quoted = script;
  quoted.replace(quoted.find("BATCH"), 5, "512");
  quoted.replace(quoted.find("pretrain_gpt.py $GPT_ARGS"), 25, "pretrain_gpt.py \"$GPT_ARGS\"");
  CHECK(!check_file("quoted.sh", Target::kMegatron, quoted, options()).problems.empty());
}

TEST_CASE("layout options given with a plan rank its layouts again, and the spec runs the first with its prediction") {
  // GPT-3 175B's plan on 1024 A100s, its layout the search's best (the hand-built plan's cluster has no bandwidths).
  plan::PlanResult p = gpt3_plan();
  parallel::ClusterRequest cluster;
  cluster.gpu = "a100-sxm4-80gb";
  cluster.gpus = 1024;
  p.cluster = parallel::resolve_cluster(test_catalog(), cluster).spec;
  p.search.trainer = parallel::as_written(test_catalog().trainer("megatron"));
  p.search.pins.zero_stage = 1;
  parallel::apply_gradient_precision(p.job, p.search);  // as the planner readies its job
  const auto found = parallel::search_layouts(p.job, p.cluster, p.search);
  REQUIRE(found.feasible());
  p.layouts.layouts = {found.layouts.front()};
  const LaunchSpec plan = spec_of(p);
  // The plan's own layout pinned: nothing changes, nothing is said.
  parallel::LayoutRequest same;
  same.pins = {{"tp", std::to_string(plan.layout.tp)}, {"pp", std::to_string(plan.layout.pp)}};
  const LaunchSpec kept = with_layout_request(plan, same, test_catalog(), 0.25);
  CHECK(kept.layout == plan.layout);
  CHECK(kept.relayout.empty());
  CHECK(kept.predicted.run_time_s == doctest::Approx(plan.predicted.run_time_s).epsilon(1e-9));
  // Another TP: the search's best under the pin, the batch split again, the run time scaled by the step ratio.
  parallel::LayoutRequest other;
  other.pins = {{"tp", plan.layout.tp == 2 ? "4" : "2"}};
  const LaunchSpec moved = with_layout_request(plan, other, test_catalog(), 0.25);
  CHECK(moved.layout.tp == (plan.layout.tp == 2 ? 4 : 2));
  CHECK(moved.layout.gpus() == plan.gpus);
  CHECK(moved.grad_accum * moved.layout.micro_batch * moved.layout.dp == moved.global_batch);
  CHECK(moved.predicted.run_time_s ==
        doctest::Approx(plan.predicted.run_time_s * moved.predicted.step_time_s / plan.predicted.step_time_s));
  CHECK(moved.relayout.find("instead of the plan's TP " + std::to_string(plan.layout.tp)) != std::string::npos);
  CHECK(moved.relayout.find("; run ") != std::string::npos);  // the run's days move with the step
  // A pin no layout fits: the search's reason, as infeasible.
  parallel::LayoutRequest none;
  none.pins = {{"tp", "1"}, {"pp", "2"}, {"zero_stage", "0"}};  // 87B parameters a GPU
  CHECK_THROWS_AS(with_layout_request(plan, none, test_catalog(), 0.25), InfeasibleError);
  // A first layout under the plan's MFU floor is refused, named in full.
  const std::string named = "the layout the options give first (TP " + std::to_string(moved.layout.tp) + ", PP " +
                            std::to_string(moved.layout.pp);
  CHECK_THROWS_WITH_AS(with_layout_request(plan, other, test_catalog(), 0.99), doctest::Contains(named.c_str()),
                       InfeasibleError);
}

TEST_CASE("Megatron-LM's batch ramp-up: three whole numbers, a ramp that reaches the batch, every step divisible") {
  // 16 GPUs, TP 2 x PP 2: DP 4, micro-batches of 4, so every batch of the ramp must be a multiple of 16.
  const std::string script =
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\ntorchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --num-layers 24 "
      "--hidden-size 2048 --num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 "
      "--micro-batch-size 4 --global-batch-size 1536 --lr 3e-4 --train-samples 1000000 "
      "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --bf16 RAMP\n";
  const auto checked = [&](const char* ramp) {
    std::string s = script;
    s.replace(s.find("RAMP"), 4, ramp);
    return check_file("ramp.sh", Target::kMegatron, s, options()).problems;
  };
  CHECK(checked("--rampup-batch-size 16 16 5859375").empty());  // Megatron-LM's GPT-3 example, on 16 GPUs
  const auto uneven = checked("--rampup-batch-size 10 16 5859375");
  REQUIRE(uneven.size() == 2);  // 1536 - 10 is not a multiple of 16, nor is 10
  CHECK(uneven[0] ==
        "rampup-batch-size: global batch minus the start must be positive and divisible by the "
        "increment (here rampup-batch-size 10 16 5859375, global-batch-size 1536)");
  CHECK(uneven[1].find("rampup-batch-size: the start and the increment must be divisible by micro-batch x DP") == 0);
  CHECK(checked("--rampup-batch-size 16 16").at(0).find("rampup-batch-size takes three positive whole numbers") == 0);
  CHECK(checked("--rampup-batch-size 16 0 100").at(0).find("rampup-batch-size takes three positive whole") == 0);
  // Without --global-batch-size Megatron takes micro-batch x DP (16 here): a ramp from 8 by 8 reaches it, its
  // first batch rounded down with --decrease-batch-size-if-needed.
  std::string defaulted = script;
  defaulted.replace(defaulted.find("--global-batch-size 1536 "), 25, "");
  defaulted.replace(defaulted.find("RAMP"), 4, "--rampup-batch-size 8 8 1000 --decrease-batch-size-if-needed");
  CHECK(check_file("ramp.sh", Target::kMegatron, defaulted, options()).problems.empty());
  // Ramp-up samples 0 pass the calculator's assert but divide by zero in its first update.
  CHECK(checked("--rampup-batch-size 16 16 0").at(0).find("rampup-batch-size takes three positive whole") == 0);
  CHECK(checked("--rampup-batch-size 1536 16 100")
            .at(0)
            .find("rampup-batch-size: global batch minus the start must be positive") == 0);
  std::string iterations = script;
  iterations.replace(iterations.find("--train-samples 1000000"), 23, "--train-iters 1000");
  iterations.replace(iterations.find("RAMP"), 4, "--rampup-batch-size 16 16 5859375");
  CHECK(check_file("ramp.sh", Target::kMegatron, iterations, options()).problems ==
        std::vector<std::string>{"rampup-batch-size needs sample-based training (train-samples), not train-iters (here "
                                 "train-iters 1000)"});
}

TEST_CASE("SLURM CPUs per task: the catalog node's host cores in proportion to the GPUs used, never more than it has") {
  LaunchSpec s = spec_of(gpt3_plan());
  s.gpus_per_node = 8;
  CHECK(cpus_per_task(s) == 8 * s.data->cpus_per_gpu);  // no catalog host: defaults.yaml's cores per GPU
  s.host_cpu_cores = 112;                               // a DGX H100
  s.host_gpus = 8;
  CHECK(cpus_per_task(s) == 112);
  s.gpus_per_node = 4;  // half the node's GPUs: half its cores
  CHECK(cpus_per_task(s) == 56);
  s.gpus_per_node = 16;  // more GPUs per node than the catalog's: still only the cores the host has
  CHECK(cpus_per_task(s) == 112);
  s.host_cpu_cores = 48;  // a DGX-2: 48 cores for 16 V100s
  s.host_gpus = 16;
  CHECK(cpus_per_task(s) == 48);
}

}  // namespace isoflop::emit
