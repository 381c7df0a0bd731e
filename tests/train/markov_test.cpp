// The markov source's exact entropy rate: closed-form cases and agreement with a long sample.
#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "train/markov.hpp"

namespace isoflop::train {
namespace {

TEST_CASE("uniform rows (branching = V, zipf 0) have entropy rate ln V") {
  MarkovOptions o;
  o.vocab = 16;
  o.branching = 16;
  o.zipf = 0;
  o.smoothing = 0;
  CHECK(MarkovSource(o).entropy_rate() == doctest::Approx(std::log(16.0)).epsilon(1e-12));
}

TEST_CASE("the sampled cross-entropy of the true source approaches the exact entropy rate") {
  MarkovOptions o;
  o.vocab = 64;
  o.order = 1;
  o.branching = 4;
  const MarkovSource source(o);
  const double h = source.entropy_rate();
  CHECK(h > 0);
  CHECK(h < std::log(64.0));
  // 200k tokens: the standard error of the mean −log p is about 1e-3 nats here.
  CHECK(std::fabs(source.cross_entropy(source.sample(200000, 9)) - h) < 0.01);
}

TEST_CASE("bad markov options name the field") {
  MarkovOptions o;
  o.branching = 100;
  CHECK_THROWS_AS(o.validate(), InputError);
  o.branching = 8;
  o.order = 5;  // 64^5 contexts
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.order"), InputError);
}

}  // namespace
}  // namespace isoflop::train
