// Benchmark: reading a train result with a curve as long as the cpu preset's longest run's (68,208 steps) with
// the duplicate-key check of every JSON input, against nlohmann's own parse of the same text; and how the time
// grows with the curve (it must grow as its length, not its square). Run: build/tests/bench_json_input
#include <chrono>
#include <cstdio>
#include <string>

#include "core/json_input.hpp"

namespace {

// {"schema": …, "curve": [{"step": i, "tokens": …, "loss": …, "lr": …, "elapsed_s": …}, …]}
std::string result_text(int steps) {
  std::string text = R"({"schema": "isoflop/train/v2", "eval_loss": 1.554292676254363, "curve": [)";
  char row[200];
  for (int i = 0; i < steps; ++i) {
    std::snprintf(row, sizeof row, R"(%s{"step": %d, "tokens": %d, "loss": %.17g, "lr": %.17g, "elapsed_s": %.17g})",
                  i ? ", " : "", i + 1, 512 * (i + 1), 4.0 / (1.0 + 1e-3 * i), 1e-3 * (1.0 - 1e-6 * i), 5e-3 * i);
    text += row;
  }
  return text + "]}";
}

template <class F>
double best_of(int repeats, F&& f) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s < best) best = s;
  }
  return best;
}

}  // namespace

int main() {
  for (const int steps : {8527, 17052, 34104, 68208}) {
    const std::string text = result_text(steps);
    size_t checked = 0, plain = 0;
    const double ours = best_of(5, [&] { checked += isoflop::parse_json_unique_keys(text, "results.json").size(); });
    const double theirs = best_of(5, [&] { plain += nlohmann::ordered_json::parse(text).size(); });
    std::printf("curve of %6d steps (%.2f MB): %7.1f ms with the duplicate-key check, %7.1f ms nlohmann alone\n",
                steps, static_cast<double>(text.size()) / 1e6, 1e3 * ours, 1e3 * theirs);
    if (checked != plain) return 1;
  }
  return 0;
}
