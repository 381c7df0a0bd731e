// Shaping by enumeration: for each depth, the d_model (a multiple of 128 with heads of the reference's
// head size, divisible by TP) whose exact count is nearest the target; ranked by distance from the
// reference family's aspect ratio d_model/layers (Hoffmann et al. 2022 Table A9 keeps it near 100), or, after a
// named family, from its kernel-averaged published aspect ratio or its size band's d_model.
#include "model/shape.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "model/params.hpp"
#include "units/format.hpp"

namespace isoflop::model {

void ShapeOptions::validate() const {
  if (reference.layers <= 0 || reference.d_model <= 0 || reference.heads <= 0)
    throw InputError("shape: the reference architecture needs layers, d_model and heads");
  if (tp < 1) throw FieldError("tp", "must be at least 1");
  if (d_model_multiple < 1) throw InputError("shape: d_model multiple must be positive");
  if (layer_multiple < 1) throw InputError("shape: layer multiple must be positive");
  if (!(tolerance > 0 && tolerance < 1)) throw InputError("shape: tolerance must be in (0, 1)");
}


ShapeResult shape_architecture(double target, const ShapeOptions& o) {
  o.validate();
  if (!(target > 0) || !std::isfinite(target)) throw FieldError("params", "must be a positive number");
  // No architecture past kMaxParams is read back, so none is made.
  if (target > kMaxParams) throw FieldError("params", too_many_params(target));
  const double aspect = static_cast<double>(o.reference.d_model) / o.reference.layers;
  const long long head = o.reference.effective_head_size();
  const long long step = std::lcm<long long>(o.d_model_multiple, head * o.tp);
  // Ranked by the distance from the reference's aspect ratio plus twice the miss against the target.
  auto score = [&](const Architecture& a, double ratio) {
    return std::fabs(std::log(static_cast<double>(a.d_model) / a.layers / aspect)) + 2 * std::fabs(ratio - 1);
  };
  struct Scored {
    ShapeCandidate candidate;
    double score;
  };
  std::vector<Scored> found;
  // One working copy of the reference whose shape fields each candidate overwrites: ~2,000 candidates are
  // counted per call and only the few within the tolerance are kept (copied).
  Architecture a = o.reference;
  a.name = "";
  a.head_size = head;
  for (int layers = o.layer_multiple; layers <= 512; layers += o.layer_multiple) {
    if (o.accept_layers && !o.accept_layers(layers)) continue;
    // 12·L·h² dominates: start from the root and try the neighbouring multiples.
    const double h0 = std::sqrt(target / (12.0 * layers));
    const long long base = std::max<long long>(1, static_cast<long long>(h0 / step));
    for (long long k = std::max<long long>(1, base - 1); k <= base + 2; ++k) {
      a.layers = layers;
      a.d_model = k * step;
      a.heads = static_cast<int>(a.d_model / head);
      a.kv_heads = o.reference.kv_heads;
      if (o.reference.kv_heads > 0) {
        const int group = std::max(1, o.reference.heads / o.reference.effective_kv_heads());
        a.kv_heads = std::max(1, a.heads / group);
        if (a.heads % a.kv_heads != 0 || a.kv_heads % o.tp != 0) a.kv_heads = a.heads;
      }
      if (a.heads % o.tp != 0) continue;
      // The reference's ffn ratio carries over (4h for GELU; SwiGLU's 8h/3 rounded by the family).
      if (o.reference.ffn > 0)
        a.ffn = static_cast<long long>(std::llround(static_cast<double>(o.reference.ffn) / o.reference.d_model * a.d_model / 256.0)) * 256;
      const double params = count_params(a).total();
      const double ratio = params / target;
      if (std::fabs(ratio - 1) > o.tolerance || params > kMaxParams) continue;
      found.push_back({{a, params, ratio}, score(a, ratio)});
    }
  }
  if (found.empty())
    throw InfeasibleError(
        "no architecture with d_model a multiple of " + std::to_string(step) +
        (o.layer_multiple > 1 ? " and layers a multiple of " + std::to_string(o.layer_multiple) : "") +
        (o.depth_rule.empty() ? "" : " and " + o.depth_rule) + " lands within " +
        units::format_significant(o.tolerance * 100) + "% of the target of " + units::format_count(target) +
        " parameters; relax the tensor-parallel degree or change the parameter count");
  std::sort(found.begin(), found.end(), [](const Scored& x, const Scored& y) { return x.score < y.score; });
  ShapeResult r;
  r.best = found.front().candidate;
  for (size_t i = 1; i < found.size() && static_cast<int>(r.alternatives.size()) < o.alternatives; ++i)
    r.alternatives.push_back(found[i].candidate);
  return r;
}

namespace {

// Ranking weight of a miss against the target relative to a departure from the preferred shape: a 1 % miss
// counts as much as a 2 % departure in aspect ratio or d_model (the same balance as shape_architecture).
constexpr double kMissWeight = 2.0;
// Widest d_model considered (2^18): well past any published model (PaLM 540B: 18,432).
constexpr long long kMaxDModel = 1LL << 18;

bool power_of_two(long long x) { return x > 0 && (x & (x - 1)) == 0; }

long long nearest_allowed(double head_size, const std::vector<long long>& allowed) {
  long long best = allowed.front();
  for (long long h : allowed) {
    const double d = std::fabs(std::log(head_size / static_cast<double>(h)));
    const double b = std::fabs(std::log(head_size / static_cast<double>(best)));
    if (d < b - 1e-12 || (std::fabs(d - b) <= 1e-12 && h > best)) best = h;  // ties: the larger head
  }
  return best;
}

std::string fmt(double x) {
  std::string t = std::to_string(x);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

}  // namespace

void FamilyShapeOptions::validate() const {
  if (block.layers <= 0 || block.d_model <= 0 || block.heads <= 0)
    throw InputError("shape family '" + family.name + "': the block model needs layers, d_model and heads");
  if (family.rule == ShapeRule::kAspect && family.rows.empty())
    throw InputError("shape family '" + family.name + "': the family lists no shapes (rows)");
  if (family.rule == ShapeRule::kBands && family.bands.empty())
    throw InputError("shape family '" + family.name + "': the family lists no size bands");
  if (!power_of_two(tp))
    throw FieldError("tp", std::to_string(tp) + " is not a power of 2; accepted: 1, 2, 4, 8, 16, ...");
  if (vocab < 0) throw FieldError("vocab", "must be positive, got " + std::to_string(vocab));
  // One token is no vocabulary: nothing to predict (the smallest real ones are byte and character sets).
  if (vocab == 1)
    throw FieldError("vocab", "1 token is no vocabulary, there is nothing to predict; accepted: 2 or more");
  if (seq < 0) throw FieldError("seq", "must be positive, got " + std::to_string(seq));
  if (d_model_multiple < 1) throw InputError("shape: d_model multiple must be positive");
  if (head_sizes.empty()) throw InputError("shape: no allowed head sizes");
  for (long long h : head_sizes)
    if (h < 1) throw InputError("shape: head sizes must be positive");
  if (!(tolerance > 0 && tolerance < 1)) throw InputError("shape: tolerance must be in (0, 1)");
  if (alternatives < 0) throw FieldError("alternatives", "must not be negative");
  if (max_layers < 1) throw InputError("shape: max_layers must be positive");
  if (target_active && !moe.enabled()) throw FieldError("active_params", "a target of active parameters needs a mixture of experts (a dense model is all active)");
  if (moe.enabled()) {
    if (moe.experts < 2)
      throw FieldError("experts", "a mixture needs at least 2 experts, got " + std::to_string(moe.experts));
    if (moe.top_k < 1) throw FieldError("moe_top_k", "must be at least 1, got " + std::to_string(moe.top_k));
    if (moe.top_k > moe.experts)
      throw FieldError("moe_top_k", std::to_string(moe.top_k) + " exceeds the " + std::to_string(moe.experts) + " experts" +
                       " (a token cannot be routed to more experts than exist)");
    if (!(moe.capacity_factor > 0) || !std::isfinite(moe.capacity_factor))
      throw FieldError("capacity_factor", "must be positive, got " + fmt(moe.capacity_factor));
    if (!(moe.eval_capacity_factor > 0) || !std::isfinite(moe.eval_capacity_factor))
      throw FieldError("eval_capacity_factor", "must be positive, got " + fmt(moe.eval_capacity_factor));
    if (moe.every < 1) throw FieldError("moe_every", "must be at least 1, got " + std::to_string(moe.every));
  }
}

PreferredShape preferred_shape(const ShapeFamily& f, double params, const std::vector<long long>& head_sizes) {
  PreferredShape p;
  if (head_sizes.empty() || !(params > 0)) return p;
  if (f.rule == ShapeRule::kAspect) {
    if (f.rows.empty()) return p;
    // Gaussian kernel in ln(params) over the published shapes, averaged in ln(aspect); the largest exponent is
    // factored out so that sizes far outside the rows keep the nearest rows' weight.
    std::vector<double> exponents;
    double top = -std::numeric_limits<double>::infinity();
    const double w = f.smoothing_ln > 0 ? f.smoothing_ln : 1.0;
    for (const auto& r : f.rows) {
      const double d = std::log(params / r.params) / w;
      exponents.push_back(-0.5 * d * d);
      top = std::max(top, exponents.back());
    }
    double sum_w = 0, sum = 0, nearest = std::numeric_limits<double>::infinity(), largest = 0;
    double ffn_w = 0, ffn_sum = 0;  // the same kernel over the rows that give an ffn
    for (size_t i = 0; i < f.rows.size(); ++i) {
      const auto& r = f.rows[i];
      const double weight = std::exp(exponents[i] - top);
      sum_w += weight;
      sum += weight * std::log(static_cast<double>(r.d_model) / r.layers);
      if (r.ffn > 0) {
        ffn_w += weight;
        ffn_sum += weight * std::log(static_cast<double>(r.ffn) / static_cast<double>(r.d_model));
      }
      const double distance = std::fabs(std::log(params / r.params));
      if (distance < nearest) {
        nearest = distance;
        p.head_size = nearest_allowed(static_cast<double>(r.head_size), head_sizes);
        p.kv_heads = r.kv_heads == 0 ? std::nullopt : std::optional<int>(r.kv_heads == r.heads ? 0 : r.kv_heads);
      }
      largest = std::max(largest, r.params);
    }
    p.aspect = std::exp(sum / sum_w);
    // ffn / d_model averaged as the aspect is, so a size between rows takes a blend and no size jumps (Llama 2:
    // 2.6875 at 7B, 3.5 at 70B); at a published size its own row dominates, and the width rounds to its value.
    if (ffn_w > 0) p.ffn_ratio = std::exp(ffn_sum / ffn_w);
    p.beyond_family = params > largest * std::exp(w);  // more than a kernel width past the largest row
  } else {
    if (f.bands.empty()) return p;
    const ShapeBand* band = &f.bands.back();
    for (const auto& b : f.bands)
      if (params < b.below_params) {
        band = &b;
        break;
      }
    p.beyond_family = params >= f.bands.back().below_params;
    p.d_model = band->d_model;
    p.heads = band->heads;
    p.head_size = nearest_allowed(static_cast<double>(band->d_model) / band->heads, head_sizes);
  }
  return p;
}

FamilyShapeResult shape_by_family(double target, const FamilyShapeOptions& o) {
  o.validate();
  if (!(target > 0) || !std::isfinite(target))
    throw FieldError(o.target_active ? "active_params" : "params", "must be a positive number");
  if (target > kMaxParams) throw FieldError(o.target_active ? "active_params" : "params", too_many_params(target));
  const Architecture& block = o.block;
  const PreferredShape at_target = preferred_shape(o.family, target, o.head_sizes);
  // Grouped-query attention after the nearest published row where the family's rows give it (Llama 3: 8
  // key/value heads at 8B, 70B and 405B; Llama 2: 8 at 34B and 70B, multi-head below): the query heads are a
  // multiple of the key/value heads, which split over TP (Megatron: query groups % TP), so past 8-way TP the
  // count rises to the TP degree.
  const int row_kv = at_target.kv_heads.value_or(0);
  const int kv_heads = row_kv > 0 ? std::lcm(row_kv, o.tp) : 0;
  auto make = [&](int layers, long long d_model, long long head) {
    Architecture a = block;
    a.name = "";
    a.layers = layers;
    a.d_model = d_model;
    a.head_size = head;
    a.heads = static_cast<int>(d_model / head);
    a.kv_heads = 0;
    if (kv_heads > 0) {
      a.kv_heads = kv_heads < a.heads ? kv_heads : 0;  // d_model's step makes the heads a multiple
    } else if (!at_target.kv_heads && block.kv_heads > 0 && block.kv_heads < block.heads) {
      // Rows that do not say: the block's group size, where the heads divide into it and it splits over TP.
      const int kv = std::max(1, a.heads / std::max(1, block.heads / block.kv_heads));
      if (a.heads % kv == 0 && kv % o.tp == 0) a.kv_heads = kv;
    }
    // The nearest published row's ffn / d_model where the rows give it (Llama 2 7B's 2.6875, Llama 3 405B's 3.25),
    // else the block's (4 for GELU blocks), rounded to the d_model multiple.
    if (block.ffn > 0) {
      const double ratio = at_target.ffn_ratio.value_or(static_cast<double>(block.ffn) / block.d_model);
      const double ffn = ratio * static_cast<double>(d_model);
      a.ffn = std::max<long long>(o.d_model_multiple, std::llround(ffn / o.d_model_multiple) * o.d_model_multiple);
    }
    if (o.vocab > 0) a.vocab = o.vocab;
    if (o.seq > 0) a.seq = o.seq;
    // Megatron-LM pads the vocabulary to make-vocab-size-divisible-by × TP.
    if (o.family.vocab_pad_per_tp > 0) a.vocab_pad_multiple = o.family.vocab_pad_per_tp * o.tp;
    a.moe = o.moe;
    return a;
  };
  auto measure = [&](const Architecture& a) {
    const ParamCount pc = count_params(a);
    return std::pair<double, double>{pc.total(), pc.active};
  };
  auto metric = [&](const std::pair<double, double>& counts) { return o.target_active ? counts.second : counts.first; };

  std::vector<long long> heads_to_try = {at_target.head_size};
  for (long long h : o.head_sizes)
    if (h != at_target.head_size) heads_to_try.push_back(h);

  FamilyShapeResult result;
  std::vector<FamilyShapeCandidate> found;
  for (long long head : heads_to_try) {
    const long long step = std::lcm<long long>(o.d_model_multiple, head * (kv_heads > 0 ? kv_heads : o.tp));
    const long long k_max = kMaxDModel / step;
    if (result.d_model_step == 0) result.d_model_step = step;
    if (k_max < 1) continue;
    for (int layers = 1; layers <= o.max_layers; ++layers) {
      // Every every-th layer is an MoE layer: a whole number of (every − 1 dense + 1 MoE) groups.
      if (o.moe.enabled() && layers % o.moe.every != 0) continue;
      const double lowest = metric(measure(make(layers, step, head)));
      if (lowest > target * (1 + o.tolerance)) break;  // deeper only grows
      if (metric(measure(make(layers, k_max * step, head))) < target * (1 - o.tolerance)) continue;
      // The count grows with d_model: the first multiple at or above the target and the one below bracket it.
      long long lo = 1, hi = k_max;
      while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (metric(measure(make(layers, mid * step, head))) >= target) hi = mid;
        else lo = mid + 1;
      }
      for (long long k = std::max<long long>(1, lo - 1); k <= lo; ++k) {
        FamilyShapeCandidate c;
        c.architecture = make(layers, k * step, head);
        std::tie(c.params, c.active_params) = measure(c.architecture);
        c.ratio = metric({c.params, c.active_params}) / target;
        if (std::fabs(c.ratio - 1) > o.tolerance || c.params > kMaxParams) continue;  // readers refuse more
        c.preferred = preferred_shape(o.family, c.active_params, o.head_sizes);
        const double d = static_cast<double>(c.architecture.d_model);
        const double departure = o.family.rule == ShapeRule::kAspect
                                     ? std::log(d / layers / c.preferred.aspect)
                                     : std::log(d / static_cast<double>(c.preferred.d_model));
        c.score = std::fabs(departure) + kMissWeight * std::fabs(c.ratio - 1);
        found.push_back(std::move(c));
      }
    }
    if (!found.empty()) {
      result.d_model_step = step;
      break;  // the preferred head size fits; the others are only a fallback
    }
  }
  std::vector<std::string> sizes;
  for (long long h : o.head_sizes) sizes.push_back(std::to_string(h));
  if (found.empty()) {
    // Below the family's smallest shape (one layer at the narrowest width) no depth helps: the embeddings alone
    // may outweigh the target, so the vocabulary is what to change, not the tensor parallelism.
    const Architecture smallest = make(1, result.d_model_step, heads_to_try.front());
    const double smallest_params = metric(measure(smallest));
    const std::string remedy =
        smallest_params > target
            ? "; its smallest, 1 layer of d_model " + std::to_string(smallest.d_model) + ", has " +
                  units::format_count(smallest_params) +
                  " parameters: a smaller vocabulary (--vocab), another family (--style) or "
                  "a larger count" +
                  // A few thousand parameters or fewer, thousands of times under it: a count without its unit
                  // (70 for 70B), not a small model.
                  (target < 1e4 && target * 1e3 < smallest_params
                       ? " (" + units::format_count(target) + " reads as a count without its unit: " +
                             units::format_count(target * 1e9) + ", " + units::format_scientific(target * 1e9) + ")"
                       : std::string())
            : std::string(o.tp > 1 ? "; lower the tensor parallelism or change the parameter count"
                                   : "; change the parameter count");
    throw InfeasibleError("no " + o.family.name + " shape with d_model a multiple of " +
                          std::to_string(result.d_model_step) + " (heads of " + join(sizes, " or ") +
                          " divisible by tensor parallelism " + std::to_string(o.tp) +
                          (kv_heads > 0 ? " and by " + std::to_string(kv_heads) + " key/value heads" : "") +
                          ") lands within " + fmt(o.tolerance * 100) + "% of the target" + remedy);
  }
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) {
    if (x.score != y.score) return x.score < y.score;
    return std::fabs(x.ratio - 1) < std::fabs(y.ratio - 1);
  });
  result.best = found.front();
  for (size_t i = 1; i < found.size() && static_cast<int>(result.alternatives.size()) < o.alternatives; ++i)
    result.alternatives.push_back(found[i]);
  return result;
}

}  // namespace isoflop::model
