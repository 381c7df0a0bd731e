// The memory rule's fixes are changes to the proposal in its own field names, and each one, applied to the
// proposal, makes the rule pass; the wording says which layout does not fit and by how much; the runnability
// rule searches again under the trainer the policy names.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "check/evaluate.hpp"
#include "check/fixtures.hpp"
#include "doc/document.hpp"
#include "doc/proposal_input.hpp"

namespace {

using isoflop::check::Outcome;
namespace doc = isoflop::doc;

using namespace isoflop::test;

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + separator.size())
    out.push_back(text.substr(start, at - start));
  out.push_back(text.substr(start));
  return out;
}

// The proposal with one fix ("layout.pp: 8 and layout.dp: 8") written into its fields, as a JSON proposal.
std::string applied(const std::string& yaml, const std::string& fix) {
  doc::Json j = doc::parse_data("p.yaml", yaml);
  for (const std::string& change : split(fix, " and ")) {
    const size_t colon = change.find(": ");
    REQUIRE(colon != std::string::npos);
    const std::string path = change.substr(0, colon), value = change.substr(colon + 2);
    const size_t dot = path.find('.');
    doc::Json& field = dot == std::string::npos ? j[path] : j[path.substr(0, dot)][path.substr(dot + 1)];
    if (value.find_first_not_of("0123456789") == std::string::npos) field = std::stoll(value);
    else if (value == "true" || value == "false") field = value == "true";
    else field = value;
  }
  return j.dump(2);
}

// share/examples/proposals/llama2-70b-no-fit.yaml: Llama 2 70B on 512 40 GB A100s, TP 8, no pipeline, no ZeRO.
const std::string kNoFit =
    "name: no-fit\narch: llama2-70b\ntokens: 2T\nglobal_batch: 1024\ncluster:\n  gpu: a100-sxm4-40gb\n  gpus: 512\n"
    "layout:\n  tp: 8\n  pp: 1\n  dp: 64\n  micro_batch: 1\n  zero: 0\n  recompute: none\nregion: us\n";

}  // namespace

TEST_CASE("every memory fix is spelled as the proposal spells it and makes the rule pass once applied") {
  const auto v = verdict(kNoFit, "memory_headroom_gib: {min: 4}");
  REQUIRE(v.outcome == Outcome::kFail);
  // 70B × 18 bytes of model state over TP 8 alone is ~147 GiB per GPU: far over a 40 GB A100.
  CHECK(*v.value < -100);
  CHECK(v.reason.rfind("this layout does not fit: it needs ", 0) == 0);
  CHECK(v.reason.find(" GiB of the 35.4 usable per a100-sxm4-40gb (its 37.3 GiB less 5 % kept free)") !=
        std::string::npos);
  const auto fixes = split(v.fix, ", or ");
  CHECK(fixes.front() == "layout.zero: 3");  // the one field that fits: ZeRO-3 shards weights over DP 64 too
  CHECK(v.fix.find("zero_stage") == std::string::npos);
  // With TP and PP pinned and ZeRO 0 memory per GPU does not depend on DP: more GPUs alone is no fix, and
  // full recompute still leaves the model states over the device.
  CHECK(v.fix.find("cluster.gpus: ") == std::string::npos);
  CHECK(v.fix.find("layout.recompute") == std::string::npos);
  for (const std::string& fix : fixes) {
    INFO(fix);
    const auto again = verdict(applied(kNoFit, fix), "memory_headroom_gib: {min: 4}", "fixed.json");
    CHECK(again.outcome == Outcome::kPass);
    CHECK(*again.value >= 4);
    CHECK(again.fix.empty());
  }
}

TEST_CASE("more GPUs as a fix is the fewest whole nodes tried that fit: not the next doubling nor a quarter step") {
  // MT-NLG 530B's batch on 64 A100s: doubling offered 256 and the search's quarter steps from the memory's share
  // 176; the fewest whole nodes at which a layout fits is 144 (TP 4 x PP 36 with full recompute). Applied, 144
  // passes, while the two counts of whole nodes below it do not: 136 splits no micro-batch of 1920 sequences and
  // 128 needs 74.9 GiB of the 70.8 usable.
  const std::string big =
      "arch: mt-nlg-530b\ntokens: 270B\nglobal_batch: 1920\ncluster: {gpu: a100-sxm4-80gb, gpus: 64}\n";
  const auto v = verdict(big, "memory_headroom_gib: {min: 0}");
  REQUIRE(v.outcome == Outcome::kFail);
  const auto fixes = split(v.fix, ", or ");
  CHECK(fixes.front() == "cluster.gpus: 144");
  CHECK(verdict(applied(big, "cluster.gpus: 144"), "memory_headroom_gib: {min: 0}", "fixed.json").outcome ==
        Outcome::kPass);
  for (const char* fewer : {"cluster.gpus: 136", "cluster.gpus: 128"})
    CHECK(verdict(applied(big, fewer), "memory_headroom_gib: {min: 0}", "fewer.json").outcome != Outcome::kPass);
}

TEST_CASE("memory wording: one device figure in pass and fail, this layout or no layout, no fix at all") {
  const std::string fits = "arch: chinchilla-70b\ntokens: 1.4T\nglobal_batch: 1536\ncluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n"
                           "layout: {tp: 8, pp: 4, dp: 32, micro_batch: 1, zero: 1, recompute: selective}\n";
  const auto pass = verdict(fits, "memory_headroom_gib: {min: 4}");
  CHECK(pass.outcome == Outcome::kPass);
  // 80 GB = 74.5 GiB, of which the planner uses 95 % (MemoryOptions::headroom_fraction keeps 5 % free): 70.8.
  CHECK(pass.reason.find(": it uses ") != std::string::npos);
  CHECK(pass.reason.find(" GiB of the 70.8 usable per a100-sxm4-80gb (its 74.5 GiB less 5 % kept free)") !=
        std::string::npos);
  // 40 GB = 37.25 GiB, 35.4 usable: the headroom is that less what the layout uses, in pass and in fail alike,
  // so that 0 is where the planner stops calling a layout a fit.
  const auto fail = verdict(kNoFit, "memory_headroom_gib: {min: 4}");
  const double used_gib = std::stod(fail.reason.substr(std::string("this layout does not fit: it needs ").size()));
  CHECK(*fail.value == doctest::Approx(0.95 * 40e9 / (1024.0 * 1024 * 1024) - used_gib).epsilon(0.01));
  // Unpinned: the search's smallest layout, "no layout fits"; a 70B model on 8 40 GB GPUs: no single change.
  const std::string tiny = "arch: llama2-70b\ntokens: 2T\ncluster: {gpu: a100-sxm4-40gb, gpus: 8, node: dgx-a100-40gb}\n";
  const auto none = verdict(tiny, "memory_headroom_gib: {min: 4}");
  CHECK(none.reason.rfind("no layout fits: the smallest needs ", 0) == 0);
  if (none.fix.empty()) CHECK(none.reason.find("; no single change fits") != std::string::npos);
}

TEST_CASE("a pinned TP·PP·DP that is not the GPUs is reported as that") {
  const std::string odd = "arch: llama2-70b\ntokens: 2T\nglobal_batch: 960\ncluster: {gpu: h100-sxm5-80gb, gpus: 1024}\n"
                          "layout: {tp: 8, pp: 4, dp: 30}\n";
  const auto mem = verdict(odd, "memory_headroom_gib: {min: 4}");
  CHECK(mem.outcome == Outcome::kFail);
  CHECK(mem.reason == "no valid layout: tp 8 × pp 4 × dp 30 = 960 ≠ gpus 1024");
}

TEST_CASE("layout_runnable under another trainer searches that trainer's layouts for an unpinned proposal") {
  const std::string open = "arch: llama2-70b\ntokens: 2T\nglobal_batch: 1024\ncluster: {gpu: h100-sxm5-80gb, gpus: 512}\n";
  const auto megatron = verdict(open, "layout_runnable: {trainer: megatron}");
  CHECK(megatron.outcome == Outcome::kPass);
  const auto deepspeed = verdict(open, "layout_runnable: {trainer: deepspeed}");
  CHECK(deepspeed.outcome == Outcome::kPass);
  CHECK(deepspeed.reason.find("vpp 1,") != std::string::npos);  // DeepSpeed's pipeline has no virtual stages
  // FSDP runs no pipeline: with PP pinned to 4 no layout exists for it, and the verdict says why.
  const auto fsdp = verdict(open + "layout: {pp: 4}\n", "layout_runnable: {trainer: fsdp}");
  CHECK(fsdp.outcome == Outcome::kFail);
  CHECK(fsdp.reason.find("pipeline") != std::string::npos);
}

TEST_CASE("a proposal that leaves knobs open is judged on the layout the search chose and names it") {
  // TP, PP and DP pinned, VPP open: the search interleaves, and every rule judges that layout; pinning VPP 1 is
  // another layout with other numbers, which the verdicts then report.
  const std::string open =
      "arch: chinchilla-70b\ntokens: 1.4T\nglobal_batch: 1536\n"
      "cluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n"
      "layout: {tp: 8, pp: 4, dp: 32, micro_batch: 1, zero: 1, recompute: selective}\n";
  const auto chosen = verdict(open, "layout_runnable: {trainer: megatron}");
  CHECK(chosen.outcome == Outcome::kPass);
  CHECK(chosen.reason.find("(tp 8, pp 4, dp 32, vpp 4, micro_batch 1, zero 1, recompute selective, sequence_parallel "
                           "on; vpp and sequence_parallel chosen by the search)") != std::string::npos);
  const std::string pinned = open.substr(0, open.size() - 2) + ", vpp: 1}\n";
  const auto stated = verdict(pinned, "layout_runnable: {trainer: megatron}");
  CHECK(stated.reason.find("(tp 8, pp 4, dp 32, vpp 1, micro_batch 1, zero 1, recompute selective, sequence_parallel "
                           "on; sequence_parallel chosen by the search)") != std::string::npos);
  const auto mfu_chosen = verdict(open, "mfu: {min: 0.3}"), mfu_pinned = verdict(pinned, "mfu: {min: 0.3}");
  REQUIRE(mfu_chosen.value);
  REQUIRE(mfu_pinned.value);
  CHECK(*mfu_chosen.value > *mfu_pinned.value);  // the interleaved schedule's smaller bubble
}

TEST_CASE("the proposal's global batch is judged as stated: 1024 sequences on 200 GPUs run no layout") {
  // DP must divide 1024 (a power of two), so TP·PP is a multiple of 25 that 8-way TP and 80 layers cannot give.
  // The batch in tokens would round to 1000 sequences, which runs; the launch would run 1024, which does not.
  const std::string stated =
      "arch: llama2-70b\ntokens: 2T\nglobal_batch: 1024\ncluster: {gpu: h100-sxm5-80gb, gpus: 200}\n";
  const auto runnable = verdict(stated, "layout_runnable: {trainer: megatron}");
  CHECK(runnable.outcome == Outcome::kFail);
  CHECK(runnable.reason.find("no valid layout of 1024 sequences on 200 GPUs") != std::string::npos);
  const auto mem = verdict(stated, "memory_headroom_gib: {min: 4}");
  CHECK(mem.outcome == Outcome::kFail);
  CHECK(!mem.value);  // no layout, so no memory to report
  CHECK(mem.reason.rfind("no valid layout of 1024 sequences on 200 GPUs: ", 0) == 0);
  // The fixes: the nearest GPU count and batch that run, each verified by planning the changed proposal.
  const auto fixes = split(mem.fix, ", or ");
  REQUIRE(fixes.size() == 2);
  CHECK(fixes[0] == "cluster.gpus: 192");
  CHECK(fixes[1].rfind("global_batch: ", 0) == 0);
  for (const std::string& fix : fixes) {
    INFO(fix);
    CHECK(verdict(applied(stated, fix), "memory_headroom_gib: {min: 4}", "fixed.json").outcome == Outcome::kPass);
    CHECK(verdict(applied(stated, fix), "layout_runnable: {trainer: megatron}", "fixed.json").outcome ==
          Outcome::kPass);
  }
}
