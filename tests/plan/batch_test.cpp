// Tests of the global batch's rounding (plan/batch.hpp): the divisor-based choice against a scan of every batch
// in range, and the published GPU counts it must serve.
#include "plan/batch.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

namespace {

// The reference: every batch within a factor 1.5 of the target, the most factors shared with the GPU count,
// then the nearest in ratio, the first (smallest) on a tie.
long long scan_batch_sequences(double tokens, long long seq, int gpus) {
  const double target = std::max(1.0, tokens / static_cast<double>(seq));
  const long long lo = std::max<long long>(1, static_cast<long long>(target / 1.5));
  const long long hi = std::max<long long>(lo, static_cast<long long>(target * 1.5));
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
