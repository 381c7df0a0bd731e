// The walk over the table of parallel knobs (parallel/dimensions.hpp), outermost first, that the layout search
// runs: the outer knobs one by one, the innermost ones (from the micro-batch on) as one step per outer layout.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "parallel/dimensions.hpp"

namespace isoflop::parallel {

// Walks the dimensions [depth, end) of the table, calling visit(layout) for each admissible combination. Each
// depth reuses its own buffer of candidates, so a walk allocates nothing once the buffers have grown.
class Walker {
 public:
  Walker(const SearchSpace& space, const LayoutPins& pins) : space_(space), pins_(pins) {
    for (auto& b : buffers_) b.reserve(64);
  }

  template <class Visit>
  void walk(size_t depth, size_t end, Layout& layout, Visit&& visit) {
    if (depth == end) {
      visit(layout);
      return;
    }
    const Dimension& d = dimensions()[depth];
    std::vector<int>& values = buffers_[depth];
    candidates(d, layout, values);
    for (const int v : values) {
      d.set(layout, v);
      if (d.admits && !d.admits(space_, layout)) continue;
      walk(depth + 1, end, layout, visit);
    }
  }

  // The admissible values of dimension `depth` for `layout` (whose own value it changes), into its buffer.
  const std::vector<int>& admissible(size_t depth, Layout& layout) {
    const Dimension& d = dimensions()[depth];
    std::vector<int>& values = buffers_[depth];
    candidates(d, layout, values);
    if (d.admits)
      std::erase_if(values, [&](int v) {
        d.set(layout, v);
        return !d.admits(space_, layout);
      });
    return values;
  }

 private:
  void candidates(const Dimension& d, const Layout& layout, std::vector<int>& out) const {
    out.clear();
    const std::optional<int> pin = d.pinned(pins_);
    if (d.enumeration == Enumeration::kDefault) {
      out.push_back(pin ? *pin : static_cast<int>(d.of(space_, layout)));
      return;
    }
    if (d.enumeration == Enumeration::kDerived) {
      const long long v = d.of(space_, layout);
      if (!pin || *pin == v) out.push_back(static_cast<int>(v));
      return;
    }
    if (pin) {
      out.push_back(*pin);
      return;
    }
    if (d.enumeration == Enumeration::kRange) {
      for (int v = d.min; v <= d.max; ++v) out.push_back(v);
      return;
    }
    const long long n = d.of(space_, layout), limit = d.up_to(space_, layout);
    for (long long v = 1; v <= n && v <= limit; ++v)
      if (n % v == 0) out.push_back(static_cast<int>(v));
  }

  const SearchSpace& space_;
  const LayoutPins& pins_;
  std::array<std::vector<int>, kDimensionCount> buffers_;
};

// What to do with the layouts of one micro-batch (a row of the inner step).
enum class RowVisit {
  kSkip,   // none is valid
  kVisit,  // visit each
  kCount,  // count them at once: the caller reads the row's candidates (InnerStep::values) instead
};

// The innermost dimensions, from the micro-batch on (micro-batch, ZeRO stage, recompute, sequence parallelism),
// are walked as one step: their candidates read only the outer knobs, so each list is made once per step. The
// structural checks read them only to bound the ZeRO stage and to need TP for sequence parallelism, which their
// candidates already satisfy: every layout of one micro-batch shares its first layout's structural verdict.
class InnerStep {
 public:
  InnerStep() : begin_(static_cast<size_t>(find_dimension("micro_batch") - dimensions().data())) {}
  size_t begin() const { return begin_; }
  // The position among the inner dimensions of the one named `name` (0: the micro-batch).
  size_t index(std::string_view name) const {
    return static_cast<size_t>(find_dimension(name) - dimensions().data()) - begin_;
  }
  // The candidates of the step being walked for inner dimension `i` (an index()).
  const std::vector<int>& values(size_t i) const { return *values_[i]; }

  // Calls row(layout) on the first layout of each micro-batch and, as it answers, nothing, visit(layout) on each
  // layout of the micro-batch in the order of the table (the last dimension fastest), or count(layout) once.
  template <class Row, class Visit, class Count>
  void walk(Walker& walker, Layout& layout, Row&& row, Visit&& visit, Count&& count) {
    const size_t n = kDimensionCount - begin_;
    for (size_t i = 0; i < n; ++i) {
      values_[i] = &walker.admissible(begin_ + i, layout);
      if (values_[i]->empty()) return;
    }
    const Dimension* inner = &dimensions()[begin_];
    std::array<size_t, kDimensionCount> at{};
    for (const int micro_batch : *values_[0]) {
      inner[0].set(layout, micro_batch);
      for (size_t i = 1; i < n; ++i) {
        at[i] = 0;
        inner[i].set(layout, (*values_[i])[0]);
      }
      const RowVisit what = row(layout);
      if (what == RowVisit::kSkip) continue;
      if (what == RowVisit::kCount) {
        count(layout);
        continue;
      }
      while (true) {
        visit(layout);
        size_t i = n - 1;  // the odometer over the dimensions after the micro-batch
        while (i > 0 && ++at[i] == values_[i]->size()) {
          at[i] = 0;
          inner[i].set(layout, (*values_[i])[0]);
          --i;
        }
        if (i == 0) break;
        inner[i].set(layout, (*values_[i])[at[i]]);
      }
    }
  }

 private:
  size_t begin_;
  std::array<const std::vector<int>*, kDimensionCount> values_{};
};

}  // namespace isoflop::parallel
