// A training proposal: what a team intends to run (model, tokens, cluster, layout, schedule, region), as read
// from its YAML or JSON file, or a plan document taken as it is. Plain data; lib/doc/proposal_input reads it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "parallel/cluster.hpp"
#include "parallel/layout.hpp"
#include "plan/plan.hpp"

namespace isoflop::check {

// Where each field of an input file stands: "layout.tp" → line 12 (1-based). Empty for JSON input, whose
// fields are reported at line 1.
using LineMarks = std::map<std::string, int>;

// The line of `path`, else of its nearest enclosing field, else 1.
int line_of(const LineMarks& marks, const std::string& path);

struct Proposal {
  std::string source;                      // the file it came from ("share/examples/proposals/x.yaml")
  std::string name;                        // metadata name, or the file name
  std::string owner;                       // free metadata
  std::optional<model::Architecture> architecture;  // a catalog model, a file or a full shape
  std::optional<double> params;            // or a parameter count, shaped after `family`
  std::string family = "chinchilla-70b";   // reference family for shaping a parameter count
  double tokens = 0;                       // training tokens (repeats included)
  std::optional<double> unique_tokens;     // distinct tokens available
  std::optional<long long> seq;            // sequence length (default: the architecture's)
  std::optional<long long> global_batch;   // sequences per iteration
  parallel::ClusterRequest cluster;
  parallel::LayoutPins layout;             // the degrees and levers the proposal chooses
  std::string trainer = "megatron";
  std::optional<double> days;              // stated schedule
  std::optional<double> flops;             // stated training FLOPs
  std::optional<std::string> region;       // grid region
  std::optional<std::string> pue;          // preset or value
  std::optional<double> price_per_gpu_hour_usd;
  // A plan document given as the proposal: evaluated as it is, not planned again.
  std::optional<plan::PlanResult> plan;
  LineMarks marks;
};

// A proposal file as read: its proposal, or the input error that stopped it ("file:line: field: …").
struct ReadProposal {
  std::string source;
  std::optional<Proposal> proposal;
  std::string error;
};

}  // namespace isoflop::check
