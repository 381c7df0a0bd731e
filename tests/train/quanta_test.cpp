// The quanta source and its Bayes window floor: closed forms in degenerate cases (one skill, identical skills,
// deterministic skills), the floor's standard error at the default held-out split, determinism by seed, and a
// trained model that stays above the floor on the same held-out tokens.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "train/data.hpp"
#include "train/quanta.hpp"
#include "train/quanta_bayes.hpp"
#include "train/tiny_job.hpp"
#include "train/trainer.hpp"

namespace isoflop::train {
namespace {

// The entropy rate of a one-skill stream, derived from its definition: a fraction f = h/(1+h) of tokens are
// separators (one per segment of mean 1/h body tokens), each followed by a uniform body token (ln(V−1)); after
// a body token the next is a separator or not (binary entropy H_b(h)) and, if not, a successor (H_skill).
// With an alphabet of m tokens the first body token is uniform on those m, not on all V−1.
double one_skill_rate(int vocab, double segment, double skill_entropy, int alphabet = 0) {
  const double h = 1.0 / segment, f = h / (1 + h);
  const double binary = -h * std::log(h) - (1 - h) * std::log1p(-h);
  const double first = alphabet > 0 ? alphabet : vocab - 1.0;
  return f * std::log(first) + (1 - f) * (binary + (1 - h) * skill_entropy);
}

QuantaOptions small(int skills, int branching) {
  return QuantaOptions{.vocab = 32, .skills = skills, .branching = branching, .segment = 16};
}

TEST_CASE("one skill: the window floor is the stream's entropy rate, with the skill's own entropy") {
  // (branching, alphabet): a permutation, a mixture of three, and three over an alphabet of 6 tokens, where the
  // first body token costs ln 6 instead of ln 31.
  for (const auto& [branching, alphabet] : {std::pair{1, 0}, std::pair{3, 0}, std::pair{3, 6}}) {
    CAPTURE(branching);
    CAPTURE(alphabet);
    QuantaOptions o = small(1, branching);
    o.alphabet = alphabet;
    const QuantaSource source(o);
    const double rate = one_skill_rate(32, 16, source.skill_entropy(0), alphabet);
    if (branching == 1) CHECK(source.skill_entropy(0) == 0.0);  // a permutation: deterministic
    if (branching == 3) CHECK(source.skill_entropy(0) > 0.5);
    const std::vector<int32_t> tokens = source.sample(400001, 11);
    // Its tokens are its alphabet's, every one of them used.
    std::vector<int> seen(32, 0);
    for (int32_t t : tokens) ++seen[t];
    for (int x = 1; x < 32; ++x) CHECK((seen[x] > 0) == source.uses(0, x));
    CHECK(std::count_if(seen.begin() + 1, seen.end(), [](int n) { return n > 0; }) == (alphabet ? alphabet : 31));
    QuantaPredictor predictor(source);
    const FloorEstimate f = predictor.floor(tokens, 64, (tokens.size() - 1) / 64);
    CHECK(f.standard_error < 0.01 * rate);
    CHECK(std::fabs(f.loss - rate) < 4 * f.standard_error);
  }
}

TEST_CASE("alphabets: the predictive after one token is a distribution over the skills that hold it") {
  QuantaOptions o = small(200, 2);
  o.alphabet = 5;
  const QuantaSource source(o);
  QuantaPredictor predictor(source);
  for (int x = 1; x <= source.body(); ++x) {
    double total = 0;
    for (int y = 1; y <= source.body(); ++y) total += predictor.mixture(x, y);
    CAPTURE(x);
    CHECK(total == doctest::Approx(1.0).epsilon(1e-9));
  }
  // Many skills on 5 tokens each: the floor lies below the whole-alphabet source's, since a segment's first
  // tokens already narrow the skill.
  QuantaOptions whole = small(200, 2);
  const QuantaSource wide(whole);
  QuantaPredictor wide_predictor(wide);
  const std::vector<int32_t> narrow_tokens = source.sample(131073, 4), wide_tokens = wide.sample(131073, 4);
  CHECK(predictor.floor(narrow_tokens, 64, 2048).loss < wide_predictor.floor(wide_tokens, 64, 2048).loss);
}

TEST_CASE("alphabet 0 and alphabet V−1 are the same source, token for token") {
  QuantaOptions all = small(64, 2);
  all.alphabet = 31;
  CHECK(QuantaSource(all).sample(5000, 1) == QuantaSource(small(64, 2)).sample(5000, 1));
}

TEST_CASE("identical skills: the posterior is irrelevant and the floor is the one skill's, token for token") {
  const QuantaSource one(small(1, 3));
  std::vector<uint16_t> copies;
  for (int k = 0; k < 50; ++k)
    for (int x = 1; x <= one.body(); ++x)
      for (int r = 0; r < 3; ++r) copies.push_back(static_cast<uint16_t>(one.successor(0, x, r)));
  const QuantaSource many(small(50, 3), copies);
  // The skill draw consumes the same random numbers, so the streams are the same tokens.
  const std::vector<int32_t> tokens = many.sample(20001, 5);
  REQUIRE(tokens == one.sample(20001, 5));
  QuantaPredictor p_one(one), p_many(many);
  CHECK(p_many.floor(tokens, 32, 600).loss == doctest::Approx(p_one.floor(tokens, 32, 600).loss).epsilon(1e-9));
}

TEST_CASE("deterministic skills: one transition names the skill, the rest of the segment costs only ln 1/(1−h)") {
  // Body tokens 1..3; skill 0 maps 1→2→3→1, skill 1 maps 1→3→2→1. The window 0 1 2 3 1 0: the first body token
  // is uniform (ln 3), 1→2 happens only in skill 0 (probability p_0), then skill 0 is certain, then the separator.
  const QuantaSource source(QuantaOptions{.vocab = 4, .skills = 2, .alpha = 0.5, .branching = 1, .segment = 8},
                            {2, 3, 1, 3, 1, 2});
  QuantaPredictor predictor(source);
  const double h = 1.0 / 8, p0 = 1 / (1 + std::pow(2.0, -1.5));
  const int32_t window[] = {0, 1, 2, 3, 1, 0};
  const double expected = std::log(3.0) - std::log(p0) - 3 * std::log1p(-h) - std::log(h);
  CHECK(predictor.window_nats(window, 5) == doctest::Approx(expected).epsilon(1e-12));
  // A window that starts mid-segment knows nothing before its first token: the same tokens cost the same.
  const int32_t later[] = {1, 2, 3, 1, 0};
  CHECK(predictor.window_nats(later, 4) == doctest::Approx(expected - std::log(3.0)).epsilon(1e-12));
}

TEST_CASE("the default held-out split gives the floor to within 0.5 % relative standard error") {
  DataConfig config;
  config.source = DataSource::kQuanta;
  config.tokens = 2000;
  Dataset data = load_dataset(config, 64);
  REQUIRE(data.val.size() == 65537);
  measure_floor(&data, 64, 1024);  // the default eval.tokens, 64k, at seq 64
  REQUIRE(data.val_floor);
  REQUIRE(data.val_floor_stderr);
  REQUIRE(data.entropy_rate_stderr);
  MESSAGE("held-out floor " << *data.val_floor << " ± " << *data.val_floor_stderr << ", expected "
                            << *data.entropy_rate << " ± " << *data.entropy_rate_stderr);
  CHECK(*data.val_floor_stderr < 0.005 * *data.val_floor);
  CHECK(*data.entropy_rate_stderr < 0.005 * *data.entropy_rate);
  // Two estimates of the same expectation agree within their errors; the floor lies between the skills'
  // entropy (a predictor told the skill) and ln(V−1) (no knowledge).
  const double se = std::hypot(*data.val_floor_stderr, *data.entropy_rate_stderr);
  CHECK(std::fabs(*data.val_floor - *data.entropy_rate) < 4 * se);
  CHECK(*data.val_floor > data.quanta->skill_entropy(0) * 0.9);
  CHECK(*data.val_floor < std::log(63.0));
}

TEST_CASE("a longer window lowers the floor: more context names the skill sooner") {
  const QuantaSource source(QuantaOptions{});
  QuantaPredictor predictor(source);
  const std::vector<int32_t> tokens = source.sample(262145, 3);
  const FloorEstimate short_window = predictor.floor(tokens, 16, 16384), long_window = predictor.floor(tokens, 256, 1024);
  CHECK(long_window.loss < short_window.loss - 5 * std::hypot(short_window.standard_error, long_window.standard_error));
}

TEST_CASE("the stream is deterministic in its seed, and a longer one extends a shorter one") {
  const QuantaSource a(small(64, 2)), b(small(64, 2));
  const std::vector<int32_t> s = a.sample(5000, 1);
  CHECK(s == b.sample(5000, 1));
  CHECK(s != a.sample(5000, 2));
  std::vector<int32_t> longer = a.sample(9000, 1);
  longer.resize(5000);
  CHECK(longer == s);
  QuantaOptions other = small(64, 2);
  other.seed = 2;
  CHECK(QuantaSource(other).sample(5000, 1) != s);
  // Skill frequencies follow the Zipf law: p_1/p_2 = 2^(1+α).
  CHECK(a.skill_probability(0) / a.skill_probability(1) == doctest::Approx(std::pow(2.0, 1.5)));
}

TEST_CASE("bad quanta options name the field") {
  QuantaOptions o;
  o.segment = 0.5;
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.segment"), InputError);
  o = QuantaOptions{};
  o.vocab = 2;
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("model.vocab"), InputError);
  o = QuantaOptions{};
  o.skills = 1 << 22;  // 2^22 × 63 × 4 table entries
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.skills"), InputError);
  CHECK_THROWS_WITH_AS(QuantaSource(small(1, 1), std::vector<uint16_t>(31, 1)), doctest::Contains("permutation"),
                       InputError);
  o = small(1, 3);
  o.alphabet = 1;
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.alphabet: 1 must be 0 (all) or in [2, vocab − 1 = 31]"),
                       InputError);
  o.alphabet = 32;
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.alphabet"), InputError);
  o.alphabet = 2;  // three successors of a token among two
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("data.branching: 3 must be at most data.alphabet = 2"),
                       InputError);
}

TEST_CASE("a trained tiny model stays above the Bayes floor on the same held-out tokens") {
  const std::filesystem::path dir = testing::temp_dir("quanta");
  const Job job = testing::parse(R"(
model: {layers: 1, d_model: 32, heads: 2, seq: 32, vocab: 32}
train: {tokens: 96k, batch: 16, lr: 1e-2, warmup: 8k, seed: 1}
data: {source: quanta, skills: 256, segment: 16, val_tokens: 16385}
backend: cpu
threads: 1
eval: {tokens: 16k}
output: run
)",
                                 dir);
  const TrainResult r = run_training(job, RunOptions{});
  REQUIRE(r.eval_loss);
  REQUIRE(r.val_floor);
  REQUIRE(r.val_floor_stderr);
  MESSAGE("eval loss " << *r.eval_loss << ", Bayes floor " << *r.val_floor << " ± " << *r.val_floor_stderr);
  // The model learnt something (below a uniform guess over the body, ln 31) and not more than the source allows.
  CHECK(*r.eval_loss < std::log(31.0));
  CHECK(*r.eval_loss > *r.val_floor);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace isoflop::train
