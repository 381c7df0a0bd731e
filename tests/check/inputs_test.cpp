// Reading proposals and policies: the line of every field, plan documents as proposals, and the errors that
// name file:line, the field and what is accepted.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "check/ci_output.hpp"
#include "check/rules.hpp"
#include "check/evaluate.hpp"
#include "check/fixtures.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "doc/proposal_input.hpp"

namespace {

namespace check = isoflop::check;
namespace doc = isoflop::doc;

using namespace isoflop::test;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const isoflop::InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kProposal =
    "# a comment\nname: p\narch: chinchilla-70b\ntokens: 1.4T\ncluster:\n  gpu: a100-sxm4-80gb\n  gpus: 1024\n"
    "layout:\n  tp: 8\n  pp: 4\n  dp: 32\n";

}  // namespace

TEST_CASE("a YAML proposal keeps the line of every field") {
  const auto p = doc::parse_proposal(cat(), "p.yaml", kProposal);
  CHECK(p.tokens == 1.4e12);
  CHECK(*p.layout.tp == 8);
  CHECK(check::line_of(p.marks, "arch") == 3);
  CHECK(check::line_of(p.marks, "cluster.gpus") == 7);
  CHECK(check::line_of(p.marks, "layout.dp") == 11);
  CHECK(check::line_of(p.marks, "layout.zero") == 8);  // not given: the enclosing mapping's line
  CHECK(check::line_of(p.marks, "days") == 1);
}

TEST_CASE("a JSON proposal reads the same, and a plan document is a proposal") {
  const auto y = doc::parse_proposal(cat(), "p.yaml", kProposal);
  const auto j = doc::parse_proposal(
      cat(), "p.json",
      R"({"name": "p", "arch": "chinchilla-70b", "tokens": 1.4e12, "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024},
          "layout": {"tp": 8, "pp": 4, "dp": 32}})");
  CHECK(j.tokens == y.tokens);
  CHECK(j.layout == y.layout);
  CHECK(j.architecture == y.architecture);
  // A JSON proposal's fields have their lines too (multi-line JSON, as a script or `jq` writes it).
  const auto lined = doc::parse_proposal(
      cat(), "p.json", "{\n  \"arch\": \"chinchilla-70b\",\n  \"tokens\": 1.4e12,\n  \"cluster\": {\n"
                       "    \"gpu\": \"a100-sxm4-80gb\",\n    \"gpus\": 1024\n  }\n}\n");
  CHECK(check::line_of(lined.marks, "tokens") == 3);
  CHECK(check::line_of(lined.marks, "cluster.gpus") == 6);
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.json", "{\n  \"arch\": \"chinchilla-70b\",\n  \"tokenz\": 1}\n"); })
            .rfind("p.json:3: tokenz: unknown field", 0) == 0);
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.json", R"({"schema": "isoflop/loss/v2"})"); })
            .find("expected isoflop/plan/v2") != std::string::npos);
}

TEST_CASE("bad proposals and policies name file:line, the field and what is accepted") {
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.yaml", kProposal + "  zeroo: 1\n"); }) ==
        "p.yaml:12: layout.zeroo: unknown field (did you mean 'zero'?); accepted: tp, pp, dp, ep, cp, vpp, "
        "micro_batch, zero, recompute, sequence_parallel, trainer");
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.yaml", kProposal + "  tp: 4\n"); }) ==
        "p.yaml:12: duplicate key 'tp' (first at line 9)");
  // Pins are bounded as --tp, --pp … are; past an int one would have wrapped to a small degree.
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.yaml", kProposal + "  ep: 4294967297\n"); }) ==
        "p.yaml:12: layout.ep: must be at most 1000000");
  CHECK(error_of([] {
          doc::parse_proposal(
              cat(), "p.json",
              "{\"arch\": \"chinchilla-70b\", \"tokens\": \"1.4T\", \"cluster\": {\"gpu\": "
              "\"a100-sxm4-80gb\", \"gpus\": 1024},\n \"layout\": {\"micro_batch\": 18446744073709551615}}\n");
        }) == "p.json:2: layout.micro_batch: must be at most 1000000");
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.yaml", "arch: chinchilla-70b\ntokens: 1T\n"); }) ==
        "p.yaml:1: cluster: missing (gpu and gpus or nodes)");
  // A trainer the catalog lacks is named at its own line, not the file's first.
  CHECK(error_of([] {
          doc::parse_proposal(cat(), "p.yaml",
                              "arch: chinchilla-70b\ntokens: 1.4T\ncluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n"
                              "layout:\n  trainer: jax\n");
        }).rfind("p.yaml:5: layout.trainer: unknown trainer 'jax'", 0) == 0);
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  day: {max: 9}\n"); }) ==
        "q.yaml:2: rules.day: unknown rule (did you mean 'days'?); accepted: " + isoflop::join(check::rule_names()));
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  days: 9\n"); }) ==
        "q.yaml:2: rules.days: must be a mapping of severity, max");
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  gpu_hours: {max: -1}\n"); }) ==
        "q.yaml:2: rules.gpu_hours.max: '-1' must not be negative");
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  regions: {allow: us}\n"); }) ==
        "q.yaml:2: rules.regions.allow: must be a list of names");
  // A duplicate key in JSON names both lines, as in YAML; an empty file says it is empty.
  CHECK(error_of([] {
          doc::parse_proposal(cat(), "p.json", "{\n  \"arch\": \"chinchilla-70b\",\n  \"tokens\": 1,\n  \"tokens\": 2\n}\n");
        }) == "p.json:4: duplicate key 'tokens' (first at line 3)");
  CHECK(error_of([] {
          doc::parse_policy(cat(), "q.json", "{\"rules\": {\"days\": {\"max\": 9},\n  \"days\": {}}}\n");
        }) == "q.json:2: duplicate key 'days' (first at line 1)");
  CHECK(error_of([] { doc::parse_proposal(cat(), "p.yaml", ""); }) ==
        "p.yaml: the file is empty; a proposal is a mapping naming arch or params, tokens and cluster");
  CHECK(error_of([] { doc::parse_policy(cat(), "q.json", "  \n# nothing yet\n"); }) ==
        "q.json: the file is empty; a policy is a mapping with rules");
  // A memory floor may be negative (a policy that tolerates a known overshoot); caps may not.
  CHECK(doc::parse_policy(cat(), "q.yaml", "rules:\n  memory_headroom_gib: {min: -2}\n").rules[0].numbers.at("min") ==
        -2);
  // Thresholds no proposal could meet, or that mean something else: an MFU of 5 (a fraction is at most 1), a
  // top-k of 0, a number past a double, a region the catalog does not have.
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  mfu: {min: 5}\n"); }) ==
        "q.yaml:2: rules.mfu.min: 5 is out of range; accepted: 0 to 1 (fraction)");
  CHECK(error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  moe_top_k: {max: 0}\n"); }) ==
        "q.yaml:2: rules.moe_top_k.max: 0 is out of range; accepted: at least 1 (experts)");
  CHECK(error_of([] {
          doc::parse_policy(cat(), "q.yaml", "rules:\n  moe_experts: {min: 0.5}\n");
        }).find("rules.moe_experts.min: 0.5 is out of range") != std::string::npos);
  CHECK(doc::parse_policy(cat(), "q.yaml", "rules:\n  mfu: {min: 0.35, max: 1}\n").rules[0].numbers.at("max") == 1);
  CHECK(error_of([] {
          doc::parse_policy(cat(), "q.yaml", "rules:\n  days: {max: 1e400}\n");
        }).rfind("q.yaml:2: rules.days.max: '1e400' ", 0) == 0);
  const std::string mars =
      error_of([] { doc::parse_policy(cat(), "q.yaml", "rules:\n  regions:\n    allow: [us, mars]\n"); });
  CHECK(mars.rfind("q.yaml:3: rules.regions.allow[1]: 'mars' is not a grid region of the catalog; accepted: ", 0) == 0);
  CHECK(mars.find("world") != std::string::npos);
  CHECK(doc::parse_policy(cat(), "q.yaml", "rules:\n  regions: {allow: [us, world]}\n").rules[0].allow ==
        std::vector<std::string>{"us", "world"});
}

TEST_CASE("verdicts point at the proposal line of the field they judge") {
  const auto unknown = doc::parse_proposal(cat(), "p.yaml", kProposal + "region: xx\n");
  const auto days = doc::parse_policy(cat(), "q.yaml", "rules:\n  days: {max: 90}\n");
  CHECK(error_of([&] { check::check_proposal(cat(), unknown, days); }).rfind("p.yaml:12: region: unknown grid region 'xx'", 0) == 0);
  const auto p = doc::parse_proposal(cat(), "p.yaml", kProposal + "region: fr\n");
  const auto policy = doc::parse_policy(cat(), "q.yaml",
                                        "rules:\n  loss_gap_vs_optimal: {max_percent: 1}\n  "
                                        "tokens_per_param: {min: 25}\n  regions: {allow: [us]}\n");
  const auto v = check::check_proposal(cat(), p, policy);
  CHECK(v.verdicts[0].line == 3);   // arch
  CHECK(v.verdicts[1].line == 4);   // tokens
  CHECK(v.verdicts[2].line == 12);  // region
  CHECK(v.verdicts[2].outcome == check::Outcome::kFail);
}

TEST_CASE("GitHub annotations escape what the workflow command syntax reserves") {
  check::CheckResult r;
  check::ProposalVerdicts p;
  p.source = "dir/a,b.yaml";
  check::Verdict v;
  v.rule = "days";
  v.outcome = check::Outcome::kFail;
  v.reason = "100% over\nthe cap";
  v.line = 7;
  p.verdicts = {v};
  r.proposals = {p};
  CHECK(check::render_github_annotations(r) ==
        "::error file=dir/a%2Cb.yaml,line=7,title=isoflop check%3A days::100%25 over%0Athe cap\n");
  r.proposals[0].verdicts[0].outcome = check::Outcome::kWarn;
  CHECK(check::render_github_annotations(r).rfind("::warning ", 0) == 0);
  r.strict = true;  // under --strict a warning fails the gate: an error annotation
  CHECK(check::render_github_annotations(r).rfind("::error ", 0) == 0);
}

TEST_CASE("read_proposals reads every file the patterns name, sorted within a pattern, in the patterns' order") {
  const std::string dir = ISOFLOP_SOURCE_DIR "/share/examples/proposals/";
  const auto ps = doc::read_proposals(cat(), {dir + "st-moe-32b.yaml", dir + "*-70b*.yaml"});
  REQUIRE(ps.size() == 3);
  REQUIRE(ps[0].proposal);
  REQUIRE(ps[1].proposal);
  REQUIRE(ps[2].proposal);
  CHECK(ps[0].proposal->name == "st-moe-32b");
  CHECK(ps[1].proposal->name == "chinchilla-70b");
  CHECK(ps[2].proposal->name == "llama2-70b-no-fit");
  CHECK(ps[1].proposal->tokens == 1.4e12);  // Hoffmann et al. 2022: Chinchilla 70B on 1.4T tokens
  CHECK_THROWS_AS(doc::read_proposals(cat(), {dir + "*.json"}), isoflop::InputError);  // a pattern matching nothing
}

TEST_CASE("check_proposals: a proposal in error is reported beside the others and fails the gate, strict or not") {
  const check::Policy policy = doc::parse_policy(cat(), "policy.yaml", "rules:\n  days: {max: 90}\n");
  const std::string dense =
      "name: dense\narch: chinchilla-70b\ntokens: 1.4T\ncluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n";
  std::vector<check::ReadProposal> read(3);
  read[0] = {"a.yaml", doc::parse_proposal(cat(), "a.yaml", dense), ""};
  read[1] = {"b.yaml", std::nullopt, "b.yaml:4: ownr: unknown field"};
  // Read, but its tokens are a count without its unit: in error when planned, at its line.
  read[2] = {
      "c.yaml",
      doc::parse_proposal(cat(), "c.yaml",
                          "name: c\narch: chinchilla-70b\ntokens: 1.4\ncluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n"),
      ""};
  for (const bool strict : {false, true}) {
    const auto r = check::check_proposals(cat(), read, policy, strict);
    REQUIRE(r.proposals.size() == 3);
    CHECK(r.proposals[0].error.empty());
    CHECK(r.proposals[0].verdicts.size() == 1);
    CHECK(r.proposals[1].error == "b.yaml:4: ownr: unknown field");
    CHECK(r.proposals[1].verdicts.empty());
    CHECK(r.proposals[2].error.rfind("c.yaml:3: tokens: 1.4 tokens are fewer than one sequence", 0) == 0);
    CHECK(r.errors == 2);
    CHECK(r.failed == 0);
    CHECK(!r.gate_passed());
    CHECK(check::summary_line(r) ==
          "3 proposals: 2 in error, 0 failed, 0 warned, 1 passed, 0 not applicable; gate failed");
  }
}
