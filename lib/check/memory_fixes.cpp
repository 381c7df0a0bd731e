// Candidate changes to a proposal that lower memory per GPU, each verified by planning the changed proposal.
#include "check/memory_fixes.hpp"

#include <algorithm>
#include <functional>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace isoflop::check {
namespace {

constexpr int kMaxDoublings = 6;  // up to 64× the GPUs or the pipeline: beyond that a change is a new proposal

struct Candidate {
  ProposalChange change;
  std::function<void(Proposal&)> apply;
};

// Whether the proposal with `c` applied passes; a change the proposal cannot take (a pin the job refuses, an
// unknown accelerator for its node) is no fix.
bool verified(const Facts& facts, const Candidate& c, std::optional<double> min_headroom_gib) {
  Proposal changed = *facts.proposal;
  c.apply(changed);
  try {
    const Facts again = assess(*facts.catalog, changed);
    const auto use = memory_use(again);
    return use && memory_passes(*use, min_headroom_gib);
  } catch (const Error&) {
    return false;
  }
}

std::string n(long long v) { return std::to_string(v); }

// One field, the smallest step first: the first value of each lever that fits is the fix for that lever.
std::vector<std::vector<Candidate>> single_field_levers(const Facts& f) {
  const Proposal& p = *f.proposal;
  const parallel::LayoutPins& pins = p.layout;
  std::vector<std::vector<Candidate>> levers;
  if (pins.zero_stage) {  // unpinned, the search already tried every stage the trainer offers
    auto& l = levers.emplace_back();
    for (int s = *pins.zero_stage + 1; s <= 3; ++s)
      l.push_back({{{{"layout.zero", n(s)}}}, [s](Proposal& q) { q.layout.zero_stage = s; }});
  }
  if (pins.recompute) {
    auto& l = levers.emplace_back();
    for (const auto r : {model::Recompute::kSelective, model::Recompute::kFull})
      if (static_cast<int>(r) > static_cast<int>(*pins.recompute))
        l.push_back({{{{"layout.recompute", std::string(model::kRecomputeNames.name(r))}}},
                     [r](Proposal& q) { q.layout.recompute = r; }});
  }
  if (pins.sequence_parallel && !*pins.sequence_parallel && pins.tp.value_or(1) > 1)
    levers.push_back({{{{{"layout.sequence_parallel", "true"}}}, [](Proposal& q) { q.layout.sequence_parallel = true; }}});
  if (pins.micro_batch && *pins.micro_batch > 1)
    levers.push_back({{{{{"layout.micro_batch", "1"}}}, [](Proposal& q) { q.layout.micro_batch = 1; }}});
  if (!pins.dp && f.cluster) {  // more GPUs: the search spreads the model wider (a pinned DP needs two fields)
    auto& l = levers.emplace_back();
    const bool by_nodes = !p.cluster.gpus && p.cluster.nodes;
    const long long count = by_nodes ? *p.cluster.nodes : f.cluster->gpus;
    std::vector<long long> counts;
    for (int k = 1; k <= kMaxDoublings; ++k) counts.push_back(count << k);
    // Where layouts were valid but none fit, the search's own fewest GPUs that fit (from the memory's share, in
    // whole nodes) lies between two doublings: 176 A100s for MT-NLG's batch where doubling 64 offered 256.
    const bool memory_bound = f.plan && f.plan->layouts.infeasible && f.plan->layouts.evaluated > 0;
    for (const parallel::SuggestedChange& c :
         memory_bound ? f.plan->layouts.infeasible->changes : std::vector<parallel::SuggestedChange>{}) {
      if (c.field != "gpus" || !c.number) continue;
      const long long v = static_cast<long long>(*c.number);
      const long long per_node = f.cluster->gpus_per_node;
      if (by_nodes && v % per_node != 0) continue;
      const long long suggested = by_nodes ? v / per_node : v;
      if (suggested > count) counts.push_back(suggested);
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (const long long more : counts)
      l.push_back({{{{by_nodes ? "cluster.nodes" : "cluster.gpus", n(more)}}}, [more, by_nodes](Proposal& q) {
                     if (by_nodes)
                       q.cluster.nodes = more;
                     else
                       q.cluster.gpus = more;
                   }});
  }
  // No layout valid at all (the batch shares no factor with the GPUs that TP·PP leaves for DP): the search's
  // nearest shapes that run, in the proposal's fields.
  if (f.plan && f.plan->layouts.infeasible && f.plan->layouts.evaluated == 0 && f.cluster) {
    for (const parallel::SuggestedChange& c : f.plan->layouts.infeasible->changes) {
      if (!c.number) continue;
      const long long v = *c.number;
      if (c.field == "global_batch") {
        levers.push_back({{{{{"global_batch", n(v)}}}, [v](Proposal& q) { q.global_batch = v; }}});
      } else if (c.field == "gpus" && !pins.dp) {
        const bool by_nodes = !p.cluster.gpus && p.cluster.nodes;
        const long long per_node = f.cluster->gpus_per_node;
        if (by_nodes && v % per_node != 0) continue;
        const long long count = by_nodes ? v / per_node : v;
        levers.push_back({{{{{by_nodes ? "cluster.nodes" : "cluster.gpus", n(count)}}}, [count, by_nodes](Proposal& q) {
                             if (by_nodes)
                               q.cluster.nodes = count;
                             else
                               q.cluster.gpus = count;
                           }}});
      }
    }
  }
  if (f.cluster && p.cluster.gpu && !p.cluster.node) {  // an accelerator with more memory, the smallest first
    std::vector<const catalog::Accelerator*> larger;
    for (const auto& a : f.catalog->accelerators)
      if (a.memory_bytes > f.cluster->accelerator.memory_bytes) larger.push_back(&a);
    std::stable_sort(larger.begin(), larger.end(),
                     [](const auto* a, const auto* b) { return a->memory_bytes < b->memory_bytes; });
    auto& l = levers.emplace_back();
    for (const auto* a : larger)
      l.push_back({{{{"cluster.gpu", a->name}}}, [name = a->name](Proposal& q) { q.cluster.gpu = name; }});
  }
  return levers;
}

// Two fields of a pinned layout that move together so TP·PP·CP·DP stays the GPUs (or grows with them).
std::vector<std::vector<Candidate>> paired_levers(const Facts& f) {
  const Proposal& p = *f.proposal;
  const parallel::LayoutPins& pins = p.layout;
  std::vector<std::vector<Candidate>> levers;
  if (!pins.dp || !f.cluster) return levers;
  const int dp = *pins.dp;
  auto& pipeline = levers.emplace_back();  // deeper pipeline, fewer replicas
  for (int k = 1, m = 2; k <= kMaxDoublings && dp % m == 0; ++k, m *= 2) {
    const int pp = pins.pp.value_or(1) * m, d = dp / m;
    pipeline.push_back({{{{"layout.pp", n(pp)}, {"layout.dp", n(d)}}}, [pp, d](Proposal& q) {
                          q.layout.pp = pp;
                          q.layout.dp = d;
                        }});
  }
  auto& tensor = levers.emplace_back();  // wider TP within a node, fewer replicas
  for (int m = 2; dp % m == 0 && pins.tp.value_or(1) * m <= f.cluster->gpus_per_node; m *= 2) {
    const int tp = pins.tp.value_or(1) * m, d = dp / m;
    tensor.push_back({{{{"layout.tp", n(tp)}, {"layout.dp", n(d)}}}, [tp, d](Proposal& q) {
                        q.layout.tp = tp;
                        q.layout.dp = d;
                      }});
  }
  if (p.cluster.gpus) {  // more GPUs as more replicas: helps only where ZeRO shards over DP
    auto& wider = levers.emplace_back();
    for (int k = 1; k <= kMaxDoublings; ++k) {
      const long long gpus = *p.cluster.gpus << k;
      const int d = dp << k;
      wider.push_back({{{{"cluster.gpus", n(gpus)}, {"layout.dp", n(d)}}}, [gpus, d](Proposal& q) {
                         q.cluster.gpus = gpus;
                         q.layout.dp = d;
                       }});
    }
  }
  return levers;
}

}  // namespace

double MemoryUse::headroom_gib() const { return (usable_bytes - used_bytes) / kGiB; }

std::optional<MemoryUse> memory_use(const Facts& f) {
  if (!f.plan || !f.cluster) return std::nullopt;
  MemoryUse m;
  m.device_bytes = f.cluster->accelerator.memory_bytes;
  m.usable_bytes = f.plan->layouts.usable_memory_bytes > 0 ? f.plan->layouts.usable_memory_bytes : m.device_bytes;
  const auto& search = f.plan->layouts;
  m.fits = search.feasible();
  m.used_bytes =
      m.fits ? search.layouts.front().memory.total_bytes() : search.infeasible->needed_memory_bytes.value_or(0);
  return m;
}

bool memory_passes(const MemoryUse& use, std::optional<double> min_headroom_gib) {
  return use.fits && use.headroom_gib() >= min_headroom_gib.value_or(0.0);
}

std::string ProposalChange::text() const {
  std::string out;
  for (const auto& [field, value] : fields) out += (out.empty() ? "" : " and ") + field + ": " + value;
  return out;
}

std::vector<ProposalChange> verified_memory_fixes(const Facts& facts, std::optional<double> min_headroom_gib) {
  std::vector<ProposalChange> out;
  if (!facts.proposal || facts.proposal->plan) return out;
  for (const auto& levers : {single_field_levers(facts), paired_levers(facts)})
    for (const auto& lever : levers)
      for (const auto& candidate : lever)
        if (verified(facts, candidate, min_headroom_gib)) {
          out.push_back(candidate.change);
          break;  // the smallest step of this lever that fits
        }
  return out;
}

std::string changes_text(const std::vector<ProposalChange>& changes) {
  std::string out;
  for (const auto& c : changes) out += (out.empty() ? "" : ", or ") + c.text();
  return out;
}

}  // namespace isoflop::check
