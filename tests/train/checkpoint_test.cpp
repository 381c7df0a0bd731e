// Checkpoints: every field survives the round trip, and a truncated, modified or foreign file is refused
// with a message naming it.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "support/input_error.hpp"
#include "train/checkpoint.hpp"

namespace isoflop::train {
namespace {

CheckpointState sample_state() {
  CheckpointState s;
  s.model = ModelConfig{2, 32, 4, 16, 64};
  s.steps_total = 100;
  s.job = {{"train.lr", "0.003"}, {"data.content", "0123456789abcdef"}, {"data.path", ""}};
  s.changes = {{2, "train.lr", "0.006", "0.003"}, {2, "data.path", "", "corpus.txt"}};
  s.step = 2;
  s.train_position = 256;
  s.rng = {1, 2, 3, 4};
  s.elapsed_s = 1.5;
  s.device = "cpu (2 threads, OpenBLAS SkylakeX)";
  for (int i = 1; i <= 2; ++i) {
    CurvePoint p;
    p.step = i;
    p.tokens = 128.0 * i;
    p.lr = 1e-3 * i;
    p.train_loss = 4.0 - 0.1 * i;
    p.eval_loss = i == 2 ? 3.9 : -1;
    p.grad_norm = 0.5 * i;
    p.elapsed_s = 0.7 * i;
    s.curve.push_back(p);
  }
  s.params = {0.25f, -1.5f, 3.0f};
  s.m = {0.1f, 0.2f, 0.3f};
  s.v = {1e-6f, 2e-6f, 3e-6f};
  return s;
}

std::string message_of(const std::string& bytes) {
  return test::input_error_message([&] { decode_checkpoint(bytes, "run/checkpoint.bin"); });
}

TEST_CASE("a checkpoint decodes to exactly what was encoded") {
  const CheckpointState s = sample_state();
  const CheckpointState d = decode_checkpoint(encode_checkpoint(s), "x");
  CHECK(d.model == s.model);
  CHECK(d.steps_total == s.steps_total);
  CHECK(d.job == s.job);
  CHECK(d.changes == s.changes);
  CHECK(d.step == s.step);
  CHECK(d.train_position == s.train_position);
  CHECK(d.rng == s.rng);
  CHECK(d.elapsed_s == s.elapsed_s);
  CHECK(d.device == s.device);
  REQUIRE(d.curve.size() == 2);
  CHECK(d.curve[1].eval_loss == 3.9);
  CHECK(d.curve[0].eval_loss == -1);
  CHECK(d.curve[1].grad_norm == 1.0);
  CHECK(d.params == s.params);
  CHECK(d.m == s.m);
  CHECK(d.v == s.v);
}

TEST_CASE("a damaged or foreign checkpoint is refused, naming the file") {
  const std::string good = encode_checkpoint(sample_state());
  CHECK(message_of("not a checkpoint at all") == "checkpoint 'run/checkpoint.bin' is not an isoflop checkpoint (bad magic)");
  std::string flipped = good;
  flipped[40] ^= 1;
  CHECK(message_of(flipped).find("checksum mismatch") != std::string::npos);
  CHECK(message_of(good.substr(0, good.size() - 1)).find("checksum mismatch") != std::string::npos);
  CHECK(message_of(good.substr(0, 12)).find("run/checkpoint.bin") != std::string::npos);
  CHECK(message_of(good).empty());
}

}  // namespace
}  // namespace isoflop::train
