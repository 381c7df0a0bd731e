// The layout search: a walk over the table of dimensions (parallel/dimensions.hpp), outermost first, with
// memory checked before the step time. The TP × PP × DP family is the unit whose pruning is reported.
#include "parallel/search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <tuple>

#include "core/error.hpp"
#include "parallel/cluster.hpp"
#include "parallel/stages.hpp"
#include "parallel/walk.hpp"
#include "units/integer_limits.hpp"

namespace isoflop::parallel {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", bytes / kGiB);
  return buffer;
}

// The trainer's verdict on a layout reads neither the micro-batch nor recompute: within one step of the walk
// it depends on the ZeRO stage and sequence parallelism alone, so each of those 8 is checked once.
class TrainerVerdicts {
 public:
  void reset() { known_.fill(false); }
  // The verdict for `l`; `check(words)` runs the rules. A rejection known without words is asked again when the
  // caller needs them (`words`: the family's first rejection); no rejection has none to put.
  template <class Check>
  const std::optional<RuleViolation>& of(const Layout& l, Check&& check, Words words) {
    const size_t i = static_cast<size_t>(l.zero_stage) * 2 + (l.sequence_parallel ? 1 : 0);
    if (!known_[i] || (words == Words::kWith && verdicts_[i] && !worded_[i])) {
      verdicts_[i] = check(words);
      worded_[i] = words == Words::kWith;
    }
    known_[i] = true;
    return verdicts_[i];
  }

 private:
  std::array<bool, 8> known_{}, worded_{};
  std::array<std::optional<RuleViolation>, 8> verdicts_;
};

// Memory never falls as the micro-batch grows with the other knobs fixed: model states do not depend on it, and
// each stage keeps min(PP, m)·b = min(PP·b, B/DP) sequences of activations in flight (m = B/(b·DP)), the last
// stage's logits b. So a (ZeRO, recompute, SP) combination that did not fit at one micro-batch does not fit at
// a larger one, nor can it lower the smallest memory seen: its estimate is skipped. The bounds are kept per
// step of the walk, which enumerates the micro-batches in ascending order.
class MicroBatchBounds {
 public:
  void reset() { bytes_.fill(0); }
  // Whether `l` needs more than `above` (usable memory, smallest seen), with a margin for rounding: the bytes
  // at a smaller micro-batch are equal in exact arithmetic when min(PP·b, B/DP) is.
  bool exceeds(const Layout& l, double above) const { return bytes_[index(l)] > above * (1 + 1e-9); }
  void remember(const Layout& l, double bytes) { bytes_[index(l)] = bytes; }

 private:
  static size_t index(const Layout& l) {
    return (static_cast<size_t>(l.zero_stage) * 3 + static_cast<size_t>(l.recompute)) * 2 + (l.sequence_parallel ? 1 : 0);
  }
  std::array<double, 24> bytes_{};
};

// The stages' model states of a step of the walk, by ZeRO stage (the one inner knob they read).
class StatesMemo {
 public:
  void reset() { known_.fill(false); }
  const StageStates& of(const JobSpec& job, const ParameterSplit& split, const Layout& l, const MemoryOptions& options) {
    const size_t i = static_cast<size_t>(l.zero_stage);
    if (!known_[i]) states_[i] = stage_states(job, split, l, options);
    known_[i] = true;
    return states_[i];
  }

 private:
  std::array<bool, 4> known_{};
  std::array<StageStates, 4> states_;
};

// Values of the micro-batch the walk's step is at, by a small index of the inner knobs they read, each
// computed once: a micro-batch's activations by (recompute, SP), the GEMM part of the step-time bound by
// recompute (it reads neither the ZeRO stage nor sequence parallelism).
template <class Value, size_t N>
class MicroBatchMemo {
 public:
  void reset() { micro_batch_ = 0; }
  template <class Compute>
  const Value& of(const Layout& l, size_t i, Compute&& compute) {
    if (l.micro_batch != micro_batch_) {
      micro_batch_ = l.micro_batch;
      known_.fill(false);
    }
    if (!known_[i]) values_[i] = compute();
    known_[i] = true;
    return values_[i];
  }

 private:
  int micro_batch_ = 0;
  std::array<bool, N> known_{};
  std::array<Value, N> values_{};
};

// The step-time FLOPs per (micro-batch, recompute), computed once per search (for the micro-batches a search
// tries; a larger pinned one is computed each time rather than held in a table that large).
class FlopsMemo {
 public:
  explicit FlopsMemo(const JobSpec& job) : job_(job) {}
  const StepFlops& of(const Layout& l) {
    constexpr int kLargestKept = 256;
    if (l.micro_batch > kLargestKept) return scratch_ = step_flops(job_, l);
    const size_t i = static_cast<size_t>(l.micro_batch) * kRecomputeNames.entries.size() + static_cast<size_t>(l.recompute);
    if (i >= known_.size()) {
      known_.resize(i + 1, false);
      flops_.resize(i + 1);
    }
    if (!known_[i]) flops_[i] = step_flops(job_, l);
    known_[i] = true;
    return flops_[i];
  }

 private:
  const JobSpec& job_;
  std::vector<unsigned char> known_;  // not vector<bool>: one byte per entry reads faster in the walk
  std::vector<StepFlops> flops_;
  StepFlops scratch_;
};

// The k best layouts so far, ranked by the objective, then by the other one (as fast and less memory: sequence
// parallelism where TP's collectives are not overlapped), then in the order they were offered: the same k
// whether or not the layouts that could not enter them were skipped. A layout that differs from one kept only in
// sequence parallelism and is neither faster nor smaller (SP off at the same step, more activations) is not kept
// beside it: it would take a row of the k and say nothing new.
class TopLayouts {
 public:
  TopLayouts(size_t k, bool by_time) : k_(k), by_time_(by_time) { entries_.reserve(k); }

  void offer(const Layout& l, const MemoryBreakdown& mem, double bytes, const StepTime& time) {
    const Key key = by_time_ ? Key{time.step_time_s, bytes, offered_++} : Key{bytes, time.step_time_s, offered_++};
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.layout.layout.sequence_parallel == l.sequence_parallel || !sequence_parallel_twins(e.layout.layout, l))
        continue;
      if (e.layout.time.step_time_s <= time.step_time_s && e.bytes <= bytes) return;  // the kept twin is as good
      if (time.step_time_s <= e.layout.time.step_time_s && bytes <= e.bytes) {
        e = {key, bytes, {l, mem, time}};  // this one is: it takes the twin's place
        if (entries_.size() == k_) find_worst();
        return;
      }
    }
    if (entries_.size() < k_) {
      entries_.push_back({key, bytes, {l, mem, time}});
      if (entries_.size() == k_) find_worst();
      return;
    }
    if (key < entries_[worst_].key) {
      entries_[worst_] = {key, bytes, {l, mem, time}};
      find_worst();
    }
  }
  // Whether a layout whose objective is at least `lower_bound` cannot enter the k (with a margin for the
  // bound's rounding): k layouts are strictly better.
  bool excludes(double lower_bound) const {
    return entries_.size() == k_ && k_ > 0 && lower_bound * (1 - 1e-9) > std::get<0>(entries_[worst_].key);
  }
  bool empty() const { return entries_.empty(); }
  std::vector<RankedLayout> best_first() {
    std::sort(entries_.begin(), entries_.end());
    std::vector<RankedLayout> out;
    out.reserve(entries_.size());
    for (Entry& e : entries_) out.push_back(std::move(e.layout));
    return out;
  }

 private:
  using Key = std::tuple<double, double, size_t>;
  struct Entry {
    Key key;
    double bytes;  // the most loaded GPU's memory
    RankedLayout layout;
    bool operator<(const Entry& other) const { return key < other.key; }
  };
  static bool sequence_parallel_twins(Layout a, const Layout& b) {
    a.sequence_parallel = b.sequence_parallel;
    return a == b;
  }
  // The entry a better layout replaces, found again only when the k change (every fit asks `excludes`).
  void find_worst() { worst_ = static_cast<size_t>(std::max_element(entries_.begin(), entries_.end()) - entries_.begin()); }

  size_t k_;
  bool by_time_;
  size_t offered_ = 0;
  size_t worst_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace

namespace {

SearchResult search(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options, bool prune,
                    bool suggest);

// Whether some layout of `job` fits on `cluster` (a search that suggests nothing and throws nothing).
bool any_layout_fits(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options) {
  try {
    return search(job, cluster, options, true, false).feasible();
  } catch (const InputError&) {
    return false;
  }
}

constexpr int kShapeTries = 16;  // candidates tried each way: the search is milliseconds, the suggestions cheap

// When no layout is valid at all (the global batch shares no factor with the GPU count that TP·PP leaves for
// DP, say): the nearest GPU count in whole nodes and the nearest global batch at which some layout fits.
std::vector<SuggestedChange> shape_changes(const JobSpec& job, const ClusterSpec& cluster,
                                           const SearchOptions& options) {
  std::vector<SuggestedChange> out;
  // Whole nodes around the given count (and, on less than a node, the counts within one): what --gpus accepts.
  const long long per_node = cluster.gpus_per_node;
  std::vector<int> counts;
  // The most GPUs any layout occupies: TP up to its limit, a stage per layer, CP up to its limit, and one sequence
  // per data-parallel rank. Past it (512 sequences on a million GPUs) no nearby count runs: the nearest below it.
  const long long max_tp = options.max_tp.value_or(cluster.gpus_per_node);
  const double most = static_cast<double>(max_tp) * job.architecture.layers * std::max(1, options.max_cp) *
                      static_cast<double>(job.global_batch);
  const long long centre =
      most < static_cast<double>(cluster.gpus) ? static_cast<long long>(most) / per_node * per_node : cluster.gpus;
  for (int k = -kShapeTries; k <= kShapeTries; ++k) {
    const long long g = (centre / per_node + k) * per_node;
    if (g >= 1 && g != cluster.gpus && g <= std::numeric_limits<int>::max()) counts.push_back(static_cast<int>(g));
  }
  if (cluster.gpus < per_node)
    for (int g = 1; g < per_node; ++g)
      if (g != cluster.gpus) counts.push_back(g);
  std::sort(counts.begin(), counts.end(), [&](int x, int y) {
    const long long dx = std::llabs(x - centre), dy = std::llabs(y - centre);
    return dx != dy ? dx < dy : x < y;
  });
  for (const int g : counts) {
    ClusterSpec other = cluster;
    other.gpus = g;
    if (!any_layout_fits(job, other, options)) continue;
    out.push_back({"gpus", g, std::nullopt, "the nearest GPU count in whole nodes at which a layout fits"});
    break;
  }
  // Global batches that some DP (a divisor of the GPU count) divides, nearest first.
  std::vector<long long> batches;
  for (long long dp = 1; dp <= cluster.gpus; ++dp) {
    if (cluster.gpus % dp != 0) continue;
    const long long below = job.global_batch / dp * dp;
    // Within the batch the options accept (units::integer_limit), so the change can be given as written.
    const long long most = units::integer_limit("global_batch").value_or(std::numeric_limits<long long>::max());
    for (const long long b : {below, below + dp})
      if (b >= 1 && b <= most && b != job.global_batch) batches.push_back(b);
  }
  std::sort(batches.begin(), batches.end(), [&](long long x, long long y) {
    const long long dx = std::llabs(x - job.global_batch), dy = std::llabs(y - job.global_batch);
    return dx != dy ? dx < dy : x < y;
  });
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  for (size_t i = 0; i < batches.size() && i < static_cast<size_t>(kShapeTries); ++i) {
    JobSpec other = job;
    other.global_batch = batches[i];
    if (!any_layout_fits(other, cluster, options)) continue;
    out.push_back({"global_batch", batches[i], std::nullopt,
                   "the nearest global batch (sequences) at which a layout fits on these GPUs"});
    break;
  }
  return out;
}

// The memory changes suggest_changes estimates, tried: the GPU count in whole nodes from its estimate up (by
// quarters, to 64 times the cluster or 8 times the estimate, then every count from the estimate up to the first
// quarter that fit, or to the most) until a layout fits, or none is offered (with ZeRO-1 on
// one stage the weights and gradients do not shard over more GPUs); and, where the trainer reduces gradients in fp32
// and the user did not choose, bf16 gradients (2 bytes a parameter fewer) when a layout then fits and the launch
// file can say so.
void try_memory_changes(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options,
                        std::vector<SuggestedChange>& changes) {
  const auto gpus = std::find_if(changes.begin(), changes.end(), [](const auto& c) { return c.field == "gpus"; });
  if (gpus != changes.end() && gpus->number) {
    // Past one node whole nodes that the pinned degrees divide, as suggest_changes counts them.
    const long long pinned = options.pins.pinned_gpus(), per_node = cluster.gpus_per_node;
    const auto round_up = [](long long n, long long step) { return (n + step - 1) / step * step; };
    const long long most = std::min(kMaxClusterGpus, std::max(64LL * cluster.gpus, 8 * *gpus->number));
    std::optional<long long> fits;
    const auto step_at = [&](long long g) { return g > per_node ? std::lcm(per_node, pinned) : pinned; };
    const auto counts_fit = [&](long long g) {
      ClusterSpec more = cluster;
      more.gpus = static_cast<int>(g);
      return any_layout_fits(job, more, options);
    };
    const double estimate = static_cast<double>(*gpus->number);
    double count = estimate;
    for (int tries = 0; tries < kShapeTries + 8 && count <= most; ++tries, count *= 1.25) {
      long long g = round_up(static_cast<long long>(std::ceil(count)), pinned);
      if (g > per_node) g = round_up(g, step_at(g));  // past one node: whole nodes
      if (g > most) break;
      if (counts_fit(g)) {
        fits = g;
        break;
      }
    }
    // Which counts fit is not monotone (200 GPUs may split no pipeline that 192 does, 728 a batch that 688 does not),
    // so the quarter steps may pass fewer that fit, or all miss: the counts from the estimate up to the first that
    // fit (or to the most tried), ascending, in steps of the pinned degrees within a node and of whole nodes past
    // one, at most kScanTries of them past a node.
    constexpr long long kScanTries = 256;
    const long long end = fits ? *fits : most;
    long long g = round_up(static_cast<long long>(std::ceil(estimate)), pinned);
    std::optional<long long> fewest;
    for (; g < end && g <= per_node && !fewest; g += pinned)
      if (counts_fit(g)) fewest = g;
    const long long node_step = std::lcm(per_node, pinned);
    const long long from = round_up(std::max(g, per_node + 1), node_step);
    const long long stride = std::max(node_step, round_up((end - from) / kScanTries, node_step));
    for (g = from; g < end && !fewest; g += stride)
      if (counts_fit(g)) fewest = g;
    if (fewest) fits = fewest;
    if (fits) {
      gpus->number = *fits;
      gpus->note = "the fewest GPUs tried (whole nodes past one), from the memory's share up, at which a layout fits";
    } else {
      changes.erase(gpus);
    }
  }
  // Only where the trainer's launch file can say it (Megatron-LM's --grad-reduce-in-bf16; as_written).
  const TimeOptions time = with_trainer_defaults(options.time, options.trainer);
  if (!options.time.grad_reduce && time.grad_reduce == GradReduce::kFp32 &&
      !grad_reduce_refusal(options.trainer, GradReduce::kBf16)) {
    SearchOptions bf16 = options;
    bf16.time.grad_reduce = GradReduce::kBf16;
    JobSpec lighter = job;
    apply_gradient_precision(lighter, bf16);
    if (any_layout_fits(lighter, cluster, bf16))
      changes.insert(changes.begin(), {"grad_reduce", std::nullopt, std::string("bf16"),
                                       "gradients kept and reduced in bf16, not fp32: 2 bytes a parameter fewer"});
  }
}

// Under a trainer that splits the layers over pipeline stages evenly only, a depth with few divisors (103 is
// prime) runs on few pipeline degrees: the nearest multiple of kEvenStagesDepthMultiple at the same width (the
// nearer first, the deeper on a tie), where a layout fits. No option sets the depth alone, so the note says how
// to get it.
std::optional<SuggestedChange> even_depth_change(const JobSpec& job, const ClusterSpec& cluster,
                                                 const SearchOptions& options) {
  const auto& t = options.trainer;
  const auto& pins = options.pins;
  const int layers = job.architecture.layers;
  if (!t.loaded() || !t.pipeline || t.uneven_stages || pins.pp || pins.first_stage_layers || pins.last_stage_layers ||
      layers % kEvenStagesDepthMultiple == 0)
    return std::nullopt;
  const int below = layers / kEvenStagesDepthMultiple * kEvenStagesDepthMultiple;
  const int above = below + kEvenStagesDepthMultiple;
  std::vector<int> depths{above};
  if (below > 0) depths.insert(layers - below < above - layers ? depths.begin() : depths.end(), below);
  std::vector<int> divisors;  // the stage counts the depth divides over
  for (int d = 1; d <= layers; ++d)
    if (layers % d == 0) divisors.push_back(d);
  std::string stage_counts;  // "1 or 103", "1, 2, 3 or 6"
  for (size_t i = 0; i < divisors.size(); ++i)
    stage_counts += (i == 0 ? "" : i + 1 == divisors.size() ? " or " : ", ") + std::to_string(divisors[i]);
  for (const int depth : depths) {
    JobSpec other = job;
    other.architecture.layers = depth;
    if (!any_layout_fits(other, cluster, options)) continue;
    return SuggestedChange{"layers", depth, std::nullopt,
                           rules_holder(t, "uneven_stages") + " gives every pipeline stage the same layers, and " +
                               std::to_string(layers) + " split evenly over " + stage_counts + " stages only; " +
                               std::to_string(depth) +
                               " at the same width fit: edit the architecture's layers, or "
                               "for a planned model plan --trainer " +
                               t.name + ", which shapes such a depth"};
  }
  return std::nullopt;
}

// The search; `prune` false estimates every valid layout's memory (the reference the pruning is tested against).
SearchResult search(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options, bool prune,
                    bool suggest) {
  cluster.validate();
  job.validate();
  options.validate(job, cluster);
  const catalog::TrainerRules& trainer = options.trainer;
  const int max_tp = options.pins.tp ? *options.pins.tp : options.max_tp.value_or(cluster.gpus_per_node);
  // Context parallelism is tried only where the trainer runs it (or when pinned).
  const int max_cp = options.pins.cp ? *options.pins.cp : trainer.loaded() && !trainer.context_parallel ? 1 : options.max_cp;
  const SearchSpace space{job, cluster, trainer, options.pins, max_tp, max_cp, options.max_vpp, options.max_micro_batch};
  // TP beyond a node only when the user asked for it (a larger --max-tp or a pinned TP).
  const RuleContext context{max_tp > cluster.gpus_per_node};
  const TimeOptions time = with_trainer_defaults(options.time, trainer);

  SearchResult result;
  result.usable_memory_bytes = usable_memory_bytes(cluster.accelerator, options.memory);
  result.min_memory_bytes = INFINITY;
  Layout closest;
  std::optional<RuleViolation> rejected_fit;  // a trainer rule that rejected a layout that would fit

  const ParameterSplit split = split_parameters(job.architecture);  // the same for every layout

  Walker walker(space, options.pins);
  InnerStep inner;
  const size_t zero_at = inner.index("zero_stage"), recompute_at = inner.index("recompute"),
               sequence_parallel_at = inner.index("sequence_parallel");
  FlopsMemo flops(job);
  // Over one data-parallel rank without context parallelism every ZeRO stage shards over one GPU (the model shards
  // over DP × CP): the same memory and step as the lowest stage the trainer offers of the step's candidates, which
  // alone is ranked there (three identical rows otherwise).
  auto lowest_zero = [&] {
    for (const int zero : inner.values(zero_at))
      if (!trainer.loaded() ||
          std::find(trainer.zero_stages.begin(), trainer.zero_stages.end(), zero) != trainer.zero_stages.end())
        return zero;
    return -1;
  };
  const bool rank_by_time = options.objective == Objective::kTime;
  TopLayouts top(static_cast<size_t>(options.top_k), rank_by_time);
  const size_t family_end = family_dimensions();
  Layout layout;
  walker.walk(0, family_end, layout, [&](Layout& family_layout) {
    PrunedFamily family{family_layout.tp, family_layout.pp, family_layout.cp, "", "", INFINITY};
    bool any_valid = false, any_fit = false;
    std::optional<RuleViolation> first_violation, family_rejected_fit;
    TrainerVerdicts verdicts;
    MicroBatchBounds bounds;
    StatesMemo states;
    MicroBatchMemo<MicroBatchActivations, 6> activations;
    MicroBatchMemo<double, 3> gemm_bounds;
    const std::optional<RuleViolation> none;
    Layout rejected_fit_layout;  // the layout family_rejected_fit rejected
    bool rejected_fit_may_change = true;  // no family_rejected_fit yet, or only a missing ZeRO stage (see below)
    // A rejection's reason is put in words only for the family's first rejection.
    auto structurally_valid = [&](const Layout& l) {
      auto v = structural_violation(l, job, cluster, first_violation ? Words::kWithout : Words::kWith);
      if (v && !first_violation) first_violation = std::move(v);
      return !v;
    };
    walker.walk(family_end, inner.begin(), family_layout, [&](Layout& step_layout) {
      verdicts.reset();
      bounds.reset();
      states.reset();
      activations.reset();
      gemm_bounds.reset();
      auto verdict = [&](const Layout& l) -> const std::optional<RuleViolation>& {
        const Words words = first_violation ? Words::kWithout : Words::kWith;
        auto check = [&](Words w) { return trainer_violation(trainer, l, job, cluster, context, w); };
        return trainer.loaded() ? verdicts.of(l, check, words) : none;
      };
      auto gemm_bound_s = [&](const Layout& l, const StageLayers& stages) {
        return gemm_bounds.of(l, static_cast<size_t>(l.recompute),
                              [&] { return gemm_lower_bound_s(job, cluster, l, stages, flops.of(l)); });
      };
      // A micro-batch's layouts are only counted when none can change the result: a layout of the family already
      // fits (so a rejection's memory no longer matters), none has less memory than the same ZeRO stage,
      // recompute and SP at the step's first valid micro-batch (memory never falls as the micro-batch grows, see
      // MicroBatchBounds), and even the GEMMs of the fastest recompute mode cannot enter the k best.
      bool first_row = true;
      std::optional<StageLayers> step_stages;
      auto row = [&](Layout& l) {
        if (!structurally_valid(l)) return RowVisit::kSkip;
        const bool later_row = !first_row;
        first_row = false;
        if (!(later_row && prune && rank_by_time && any_fit)) return RowVisit::kVisit;
        if (!step_stages) step_stages = pipeline_stage_layers(job.architecture.layers, l);
        const Recompute first = l.recompute;
        double fastest_s = INFINITY;
        for (const int recompute : inner.values(recompute_at)) {
          l.recompute = static_cast<Recompute>(recompute);
          fastest_s = std::min(fastest_s, gemm_bound_s(l, *step_stages));
        }
        l.recompute = first;
        return top.excludes(fastest_s) ? RowVisit::kCount : RowVisit::kVisit;
      };
      // A counted micro-batch: each layout is valid or rejected as its (ZeRO stage, SP) is, for every recompute.
      auto count = [&](Layout& l) {
        const long long recomputes = static_cast<long long>(inner.values(recompute_at).size());
        const int lowest = l.dp == 1 && l.cp == 1 ? lowest_zero() : -1;  // as the visit below: one stage, one rank
        for (const int zero : inner.values(zero_at)) {
          if (lowest >= 0 && zero != lowest) continue;
          l.zero_stage = zero;
          for (const int sp : inner.values(sequence_parallel_at)) {
            l.sequence_parallel = sp != 0;
            if (const std::optional<RuleViolation>& rejected = verdict(l)) {
              if (!first_violation) first_violation = rejected;
              continue;
            }
            any_valid = true;
            result.evaluated += recomputes;
          }
        }
      };
      inner.walk(
          walker, step_layout, row,
          [&](const Layout& l) {
            if (l.dp == 1 && l.cp == 1 && l.zero_stage > 0) {
              const int lowest = lowest_zero();
              if (lowest >= 0 && l.zero_stage != lowest) return;
            }
            const std::optional<RuleViolation>& rejected = verdict(l);
            // The rule that prunes the family is the one that rejected a layout memory would have allowed. A missing
            // ZeRO stage says less than a rule about combining stages (ZeRO-3 with a pipeline). A rejected layout's
            // memory matters only while it may become that rule, and not once a layout of the family fits (the family
            // is not pruned then); its words are put together once the family is pruned.
            if (rejected && (!rejected_fit_may_change || (prune && any_fit))) {
              if (!first_violation) first_violation = rejected;
              return;
            }
            if (prune) {
              const double smallest = std::min(result.min_memory_bytes, family.min_memory_bytes);
              if (bounds.exceeds(l, std::max(result.usable_memory_bytes, std::isfinite(smallest) ? smallest : 0.0))) {
                // Too big at a smaller micro-batch: neither fits nor is the smallest; only the count changes.
                if (rejected) {
                  if (!first_violation) first_violation = rejected;
                  return;
                }
                any_valid = true;
                ++result.evaluated;
                return;
              }
            }
            const StageStates& model_states = states.of(job, split, l, options.memory);
            const MicroBatchActivations& acts =
                activations.of(l, static_cast<size_t>(l.recompute) * 2 + (l.sequence_parallel ? 1 : 0),
                               [&] { return micro_batch_activations(job, l); });
            const MemoryBreakdown mem = estimate_memory(job, l, model_states, acts);
            const double bytes = mem.total_bytes();
            const bool fits_memory = bytes <= result.usable_memory_bytes;
            if (prune) bounds.remember(l, fits_memory ? 0.0 : bytes);
            if (rejected) {
              if (fits_memory) {
                family_rejected_fit = RuleViolation{rejected->rule, {}};
                rejected_fit_layout = l;
                rejected_fit_may_change = rejected->rule == "zero_stages";
              }
              if (!first_violation) first_violation = rejected;
              return;
            }
            any_valid = true;
            ++result.evaluated;
            family.min_memory_bytes = std::min(family.min_memory_bytes, bytes);
            if (bytes < result.min_memory_bytes) {
              result.min_memory_bytes = bytes;
              closest = l;
            }
            if (!fits_memory) return;
            any_fit = true;
            const StepFlops& step_flops = flops.of(l);
            if (rank_by_time && prune &&
                top.excludes(gemm_bound_s(l, model_states.layers) + optimizer_step_s(cluster.accelerator, mem)))
              return;
            top.offer(l, mem, bytes, estimate_step_time(job, cluster, l, split, mem, step_flops, time));
          },
          count);
    });
    if (any_fit) return;
    if (family_rejected_fit) {
      family_rejected_fit = trainer_violation(trainer, rejected_fit_layout, job, cluster, context, Words::kWith);
      family.rule = family_rejected_fit->rule;
      family.reason = family_rejected_fit->reason;
      family.min_memory_bytes = any_valid ? family.min_memory_bytes : 0;
      if (!rejected_fit) rejected_fit = family_rejected_fit;
    } else if (!any_valid) {
      family.rule = first_violation ? first_violation->rule : "batch";
      family.reason = first_violation ? first_violation->reason : "no valid micro-batch for this DP";
      family.min_memory_bytes = 0;
    } else {
      family.rule = "memory";
      family.reason = "needs " + gib(family.min_memory_bytes) + " GiB/GPU > " + gib(result.usable_memory_bytes) +
                      " GiB usable";
    }
    result.pruned.push_back(family);
  });
  if (!std::isfinite(result.min_memory_bytes)) result.min_memory_bytes = 0;
  if (top.empty()) {
    if (result.evaluated == 0) {
      const std::string first =
          result.pruned.empty() ? std::string("no TP/PP divides the GPUs") : result.pruned.front().reason;
      // With degrees pinned the user's pins are what is wrong; without, the job's shape on this GPU count is,
      // which is a plan that cannot run (exit 1, with the document), not bad input.
      if (options.pins != LayoutPins{} || !suggest)
        throw InputError("no valid layout: " + first + " (check the global batch and the pinned degrees)");
      Infeasibility& why = result.infeasible.emplace();
      why.usable_memory_bytes = result.usable_memory_bytes;
      why.reason = "no valid layout of " + std::to_string(job.global_batch) + " sequences on " +
                   std::to_string(cluster.gpus) + " GPUs: " + first;
      why.changes = shape_changes(job, cluster, options);
      if (auto depth = even_depth_change(job, cluster, options))
        why.changes.insert(why.changes.begin(), std::move(*depth));
      return result;
    }
    Infeasibility& why = result.infeasible.emplace();
    why.reason = "no layout fits in " + gib(result.usable_memory_bytes) + " GiB per " + cluster.accelerator.name +
                 ": the smallest needs " + gib(result.min_memory_bytes) + " GiB/GPU";
    if (rejected_fit)
      why.reason += "; layouts that fit are rejected by " + trainer.name + " (" + rejected_fit->rule + ": " +
                    rejected_fit->reason + ")";
    why.needed_memory_bytes = result.min_memory_bytes;
    why.usable_memory_bytes = result.usable_memory_bytes;
    why.closest = closest;
    why.changes = suggest_changes(result.min_memory_bytes, result.usable_memory_bytes, job, cluster, options);
    if (!suggest) return result;  // a search that only asks whether something fits tries no changes
    try_memory_changes(job, cluster, options, why.changes);
    if (auto depth = even_depth_change(job, cluster, options))
      why.changes.insert(why.changes.begin(), std::move(*depth));
    return result;
  }
  result.layouts = top.best_first();
  return result;
}

}  // namespace

void apply_gradient_precision(JobSpec& job, const SearchOptions& options) {
  const TimeOptions time = with_trainer_defaults(options.time, options.trainer);
  job.optimizer = time.grad_reduce == GradReduce::kFp32 ? Optimizer::kMegatronAdam : Optimizer::kMixedPrecisionAdam;
}

void drop_unstatable_grad_reduce(SearchOptions& options) {
  if (options.time.grad_reduce && grad_reduce_refusal(options.trainer, *options.time.grad_reduce))
    options.time.grad_reduce.reset();
}

SearchResult search_layouts(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options) {
  return search(job, cluster, options, true, true);
}

SearchResult search_layouts_exhaustive(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options) {
  return search(job, cluster, options, false, true);
}

}  // namespace isoflop::parallel
