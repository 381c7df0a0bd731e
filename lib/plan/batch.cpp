// Choosing the plan's global batch.
#include "plan/batch.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "units/format.hpp"

namespace isoflop::plan {
namespace {

constexpr int kMaxDoublings = 10;  // 1024× the target: far past any published ceiling
constexpr double kPinnedSpread = 1.1;  // a pinned batch moves by at most 10 % to suit the GPUs

std::string tokens_text(double tokens) { return units::format_significant(tokens / 1e6, 3) + "M tokens"; }

double best_mfu(const parallel::SearchResult& r) { return r.feasible() ? r.layouts.front().time.mfu : 0.0; }

}  // namespace

double BatchRule::ceiling_tokens(double flops) const { return coefficient * std::pow(flops, exponent); }

long long batch_sequences(double tokens, long long seq, int gpus, double spread) {
  const double target = std::max(1.0, tokens / static_cast<double>(seq));
  const long long lo = std::max<long long>(1, static_cast<long long>(target / spread));
  const long long hi = std::max<long long>(lo, static_cast<long long>(target * spread));
  // The most factors shared with the GPU count is the largest divisor of it with a multiple in [lo, hi]: a
  // multiple of a divisor d shares at least d, and what it shares is itself a divisor with a multiple there.
  const long long n = std::max(1, gpus);
  long long shared = 1;
  for (long long d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    for (const long long divisor : {d, n / d})
      if (divisor > shared && (hi / divisor) * divisor >= lo) shared = divisor;
  }
  // Among its multiples in range, the nearest in ratio; the smaller on a tie.
  long long best = 0;
  double best_distance = INFINITY;
  for (long long b = (lo + shared - 1) / shared * shared; b <= hi; b += shared) {
    const double distance = std::fabs(std::log(static_cast<double>(b) / target));
    if (distance < best_distance) {
      best = b;
      best_distance = distance;
    }
  }
  return best;
}

bool whole_sequences(double tokens, long long seq) {
  const double sequences = tokens / static_cast<double>(seq);
  return sequences >= 1 && std::fabs(sequences - std::round(sequences)) < 1e-9;
}

long long pinned_batch_sequences(double tokens, long long seq, int gpus) {
  const double sequences = tokens / static_cast<double>(seq);
  if (whole_sequences(tokens, seq)) return std::llround(sequences);
  const long long near = batch_sequences(tokens, seq, gpus, kPinnedSpread);
  // Under a handful of sequences no whole count may lie within the spread: the nearest whole one.
  const double moved = static_cast<double>(near) / sequences;
  if (moved > kPinnedSpread || moved < 1 / kPinnedSpread) return std::max(1LL, std::llround(sequences));
  return near;
}

BatchSearch choose_batch(parallel::JobSpec job, const parallel::ClusterSpec& cluster,
                         const parallel::SearchOptions& search, double target_tokens, bool pinned,
                         const BatchRule& rule, double flops, std::optional<long long> exact_sequences) {
  if (exact_sequences) {
    pinned = true;
    target_tokens = static_cast<double>(*exact_sequences * job.seq);
  }
  BatchSearch out;
  BatchChoice& c = out.choice;
  c.target_tokens = target_tokens;
  c.ceiling_tokens = rule.ceiling_tokens(flops);
  c.pinned = pinned;
  c.rule = "the smallest of the target (or the ceiling, where that is lower) and its doublings up to B = " +
           units::format_significant(rule.coefficient, 4) + " C^" + units::format_significant(rule.exponent, 4) +
           " tokens whose MFU is within " + units::format_significant(rule.min_gain * 100, 3) + " % of the best (" +
           rule.source + ")";
  // A batch with no valid layout at all (fewer sequences than a data-parallel degree needs) is an infeasible
  // result with the search's reason, not an input error: the plan chose the batch, not the user.
  auto search_at = [&](double tokens) {
    job.global_batch = exact_sequences ? *exact_sequences
                       : pinned        ? pinned_batch_sequences(tokens, job.seq, cluster.gpus)
                                       : batch_sequences(tokens, job.seq, cluster.gpus);
    try {
      return parallel::search_layouts(job, cluster, search);
    } catch (const InputError& e) {
      // Another field is the user's (a pin the job cannot take); a pinned DP or micro-batch that does not divide
      // the batch the plan chose is the plan's batch at fault.
      const auto* field = dynamic_cast<const FieldError*>(&e);
      if (field && field->field() != "dp" && field->field() != "global_batch") throw;
      parallel::SearchResult none;
      none.infeasible.emplace().reason = e.what();
      return none;
    }
  };
  out.job = job;
  if (pinned) {
    out.layouts = search_at(target_tokens);
    out.job.global_batch = job.global_batch;
    c.note = exact_sequences || whole_sequences(target_tokens, job.seq)
                 ? "as given"
                 : "given " + tokens_text(target_tokens) + " (not whole sequences of " + std::to_string(job.seq) +
                       "): rounded to " + std::to_string(job.global_batch) +
                       (job.global_batch == 1 ? " sequence" : " sequences") +
                       ", a count near it the GPUs divide well; a multiple of " + std::to_string(job.seq) +
                       " tokens runs as given";
  } else {
    // From the target, or the ceiling where a small budget's compute-optimal batch is below it, every doubling up
    // to the ceiling is searched and the smallest batch within min_gain of the best MFU among them is taken.
    // Stopping at the first doubling that gains little would make the choice depend on the path: a doubling that
    // changes no stage count gains a little, the next one that does gains a lot.
    bool from_ceiling = c.ceiling_tokens < target_tokens;
    struct Tried {
      long long sequences;
      parallel::SearchResult layouts;
    };
    std::vector<Tried> tried;
    double tokens = from_ceiling ? c.ceiling_tokens : target_tokens;
    for (; tried.size() <= kMaxDoublings; tokens *= 2) {
      if (!tried.empty() && tokens > c.ceiling_tokens) break;
      parallel::SearchResult layouts = search_at(tokens);
      tried.push_back({job.global_batch, std::move(layouts)});
    }
    // The ceiling's batch with no valid layout at all (fewer sequences than a pinned DP takes): the target, as
    // a plan without the ceiling would run it.
    bool ceiling_unrunnable = false;
    if (from_ceiling && !tried.front().layouts.feasible()) {
      parallel::SearchResult at_target = search_at(target_tokens);
      if (at_target.feasible()) {
        tried.assign(1, {job.global_batch, std::move(at_target)});
        from_ceiling = false;
        ceiling_unrunnable = true;
      }
    }
    const std::string from = from_ceiling ? "the ceiling" : "the target";
    const bool ceiling_stopped = tokens > c.ceiling_tokens;  // not the cap on doublings
    double best = 0;
    for (const auto& t : tried) best = std::max(best, best_mfu(t.layouts));
    size_t pick = 0;
    while (pick + 1 < tried.size() && !(best_mfu(tried[pick].layouts) * (1 + rule.min_gain) >= best)) ++pick;
    const double start_mfu = best_mfu(tried.front().layouts), picked_mfu = best_mfu(tried[pick].layouts);
    if (pick == 0) {
      c.note = from_ceiling ? "the ceiling, below the target of " + tokens_text(target_tokens) : from;
    } else {
      // A starting batch with no layout at all has no MFU to grow from (it printed as "MFU 0 -> 12.9 %").
      c.note = "grown " + std::to_string(1 << pick) + "x from " + from + ": " +
               (start_mfu > 0 ? "MFU " + units::format_significant(start_mfu * 100, 3) + " -> "
                              : std::string("no layout there; MFU ")) +
               units::format_significant(picked_mfu * 100, 3) + " %";
    }
    if (pick + 1 < tried.size() && picked_mfu > 0) {
      const double gain_percent = (best / picked_mfu - 1) * 100;
      c.note += gain_percent < 0.05 ? "; no larger batch up to the ceiling runs faster"
                                    : "; up to the ceiling a larger batch gains at most " +
                                          units::format_significant(gain_percent, 3) + " % MFU";
    } else if (ceiling_unrunnable) {
      c.note += ", above the ceiling, whose batch no layout runs";
    } else if (ceiling_stopped && !from_ceiling) {
      c.note += "; the next doubling would pass the ceiling";
    }
    out.layouts = std::move(tried[pick].layouts);
    out.job.global_batch = tried[pick].sequences;
  }
  c.sequences = out.job.global_batch;
  c.tokens = static_cast<double>(out.job.global_batch * out.job.seq);
  return out;
}

}  // namespace isoflop::plan
