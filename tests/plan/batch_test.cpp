// Tests of the global batch's rounding (plan/batch.hpp): the divisor-based choice against a scan of every batch
// in range, and the published GPU counts it must serve.
#include "plan/batch.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

namespace {

// The reference: every batch within a factor `spread` of the target, the most factors shared with the GPU count,
// then the nearest in ratio, the first (smallest) on a tie.
long long scan_batch_sequences(double tokens, long long seq, int gpus, double spread = 1.5) {
  const double target = std::max(1.0, tokens / static_cast<double>(seq));
  const long long lo = std::max<long long>(1, static_cast<long long>(target / spread));
  const long long hi = std::max<long long>(lo, static_cast<long long>(target * spread));
  long long best = lo, best_shared = 0;
  double best_distance = INFINITY;
  for (long long b = lo; b <= hi; ++b) {
    const long long shared = std::gcd(b, static_cast<long long>(gpus));
    const double distance = std::fabs(std::log(static_cast<double>(b) / target));
    if (shared > best_shared || (shared == best_shared && distance < best_distance)) {
      best = b;
      best_shared = shared;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

TEST_CASE("the batch rounding equals a scan of every batch in range") {
  const int gpus[] = {1, 7, 8, 64, 96, 384, 512, 1024, 2240, 3072, 3360, 4480, 6144, 16384, 24576};
  const long long seqs[] = {1024, 2048, 4096, 8192};
  int compared = 0;
  for (const int g : gpus)
    for (const long long seq : seqs)
      for (double tokens = 2e4; tokens < 1e8; tokens *= 1.37) {
        CAPTURE(g);
        CAPTURE(seq);
        CAPTURE(tokens);
        REQUIRE(isoflop::plan::batch_sequences(tokens, seq, g) == scan_batch_sequences(tokens, seq, g));
        REQUIRE(isoflop::plan::batch_sequences(tokens, seq, g, 1.1) == scan_batch_sequences(tokens, seq, g, 1.1));
        ++compared;
      }
  CHECK(compared > 1000);
}

TEST_CASE("MT-NLG's and Chinchilla-scale clusters get batches that divide evenly") {
  // MT-NLG 530B: 1920 sequences of 2048 tokens on 3360 A100s (Smith et al. 2022): its 3.9M-token target
  // rounds to a batch sharing 3360's factors of 2, 3, 5 and 7 as far as the range allows.
  const long long b = isoflop::plan::batch_sequences(1920.0 * 2048, 2048, 3360);
  CHECK(b >= 1920 / 1.5);
  CHECK(b <= 1920 * 1.5);
  CHECK(std::gcd(b, 3360LL) == 1680);
  CHECK(b == 1680);
  // A target already a multiple of the GPUs stays.
  CHECK(isoflop::plan::batch_sequences(4096.0 * 4096, 4096, 1024) == 4096);
}

TEST_CASE("a pinned batch: whole sequences as given, other token counts moved by at most 10 % to suit the GPUs") {
  using isoflop::plan::pinned_batch_sequences;
  // Chinchilla 70B's 1,536 sequences of 2,048 (3,145,728 tokens) on 1,024 GPUs: exactly that, though 2,048 shares
  // more factors with the GPU count.
  CHECK(pinned_batch_sequences(1536.0 * 2048, 2048, 1024) == 1536);
  CHECK(isoflop::plan::whole_sequences(1536.0 * 2048, 2048));
  // "3M" is 1,464.8 sequences: 1,536 (3.15M tokens, +4.9 %), not the plan's own rounding's 2,048 (+40 %).
  CHECK(!isoflop::plan::whole_sequences(3e6, 2048));
  CHECK(pinned_batch_sequences(3e6, 2048, 1024) == 1536);
  CHECK(isoflop::plan::batch_sequences(3e6, 2048, 1024) == 2048);
  // "4M" on 16,384 GPUs is 1,953.1 sequences: 2,048 (4.19M tokens, +4.9 %).
  CHECK(pinned_batch_sequences(4e6, 2048, 16384) == 2048);
  // Under a handful of sequences: the nearest whole count, at least one.
  CHECK(pinned_batch_sequences(3000, 2048, 1024) == 1);
  CHECK(pinned_batch_sequences(5000, 2048, 1024) == 2);
  CHECK(pinned_batch_sequences(7 * 2048.0 + 100, 2048, 1024) == 7);
  for (const double tokens : {3e6, 4e6, 5.5e6, 1e6, 1e5, 3e4}) {
    const double moved = pinned_batch_sequences(tokens, 2048, 1024) * 2048.0 / tokens;
    CHECK(moved <= 1.1);
    CHECK(moved >= 1 / 1.1);
  }
}
