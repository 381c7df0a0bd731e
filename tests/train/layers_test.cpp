// Every CPU layer's backward against central finite differences of its forward, in double precision.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "gradcheck.hpp"
#include "train/cpu/layers.hpp"
#include "train/rng.hpp"

namespace isoflop::train {
namespace {

using test::gradient_error;

// Double precision makes truncation the only error: with h = 1e-5 the central difference is good to ~1e-9
// relative, so 1e-6 leaves three orders of margin while a wrong term (typically ≥ 1e-2) still fails.
constexpr double kTolerance = 1e-6;

std::vector<double> random_vector(size_t n, Rng& rng, double scale = 1.0) {
  std::vector<double> v(n);
  for (auto& x : v) x = scale * rng.normal();
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST_CASE("layernorm backward matches finite differences") {
  Rng rng(1);
  const int N = 5, C = 7;
  auto inp = random_vector(N * C, rng), w = random_vector(C, rng), b = random_vector(C, rng);
  const auto r = random_vector(N * C, rng);  // loss = Σ out·r, so dout = r
  std::vector<double> out(N * C), mean(N), rstd(N);
  auto loss = [&] {
    cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), N, C);
    return dot(out, r);
  };
  loss();
  std::vector<double> dinp(N * C, 0), dw(C, 0), db(C, 0);
  cpu::layernorm_backward(dinp.data(), dw.data(), db.data(), r.data(), inp.data(), w.data(), mean.data(), rstd.data(),
                          N, C);
  CHECK(gradient_error(inp, loss, dinp) < kTolerance);
  CHECK(gradient_error(w, loss, dw) < kTolerance);
  CHECK(gradient_error(b, loss, db) < kTolerance);
}

TEST_CASE("matmul backward matches finite differences") {
  Rng rng(2);
  const int N = 6, C = 5, OC = 4;
  auto inp = random_vector(N * C, rng), w = random_vector(OC * C, rng), bias = random_vector(OC, rng);
  const auto r = random_vector(N * OC, rng);
  std::vector<double> out(N * OC);
  auto loss = [&] {
    cpu::matmul_forward(out.data(), inp.data(), w.data(), bias.data(), N, C, OC);
    return dot(out, r);
  };
  std::vector<double> dinp(N * C, 0), dw(OC * C, 0), dbias(OC, 0);
  cpu::matmul_backward(dinp.data(), dw.data(), dbias.data(), r.data(), inp.data(), w.data(), N, C, OC);
  CHECK(gradient_error(inp, loss, dinp) < kTolerance);
  CHECK(gradient_error(w, loss, dw) < kTolerance);
  CHECK(gradient_error(bias, loss, dbias) < kTolerance);
}

TEST_CASE("causal attention backward matches finite differences") {
  Rng rng(3);
  const int B = 2, T = 5, C = 8, NH = 2;
  auto qkv = random_vector(B * T * 3 * C, rng);
  const auto r = random_vector(B * T * C, rng);
  std::vector<double> out(B * T * C), att(B * NH * T * T), scratch(B * NH * T * T);
  auto loss = [&] {
    cpu::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH);
    return dot(out, r);
  };
  loss();
  std::vector<double> dqkv(qkv.size(), 0);
  cpu::attention_backward(dqkv.data(), scratch.data(), r.data(), qkv.data(), att.data(), B, T, C, NH);
  CHECK(gradient_error(qkv, loss, dqkv) < kTolerance);
  SUBCASE("the first position attends only to itself, and rows are distributions") {
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < NH; ++h) {
        const double* p = att.data() + (b * NH + h) * T * T;
        CHECK(p[0] == doctest::Approx(1.0));
        for (int t = 0; t < T; ++t) {
          double sum = 0;
          for (int j = 0; j < T; ++j) {
            if (j > t) CHECK(p[t * T + j] == 0.0);
            sum += p[t * T + j];
          }
          CHECK(sum == doctest::Approx(1.0));
        }
      }
  }
}

TEST_CASE("GELU backward matches finite differences") {
  Rng rng(4);
  const int n = 40;
  auto inp = random_vector(n, rng, 2.0);
  const auto r = random_vector(n, rng);
  std::vector<double> out(n);
  auto loss = [&] {
    cpu::gelu_forward(out.data(), inp.data(), n);
    return dot(out, r);
  };
  std::vector<double> dinp(n, 0);
  cpu::gelu_backward(dinp.data(), inp.data(), r.data(), n);
  CHECK(gradient_error(inp, loss, dinp) < kTolerance);
}

TEST_CASE("encoder backward matches finite differences, including repeated tokens") {
  Rng rng(5);
  const int B = 2, T = 3, C = 4, V = 5;
  const std::vector<int32_t> tokens = {1, 3, 1, 4, 1, 0};
  auto wte = random_vector(V * C, rng), wpe = random_vector(T * C, rng);
  const auto r = random_vector(B * T * C, rng);
  std::vector<double> out(B * T * C);
  auto loss = [&] {
    cpu::encoder_forward(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
    return dot(out, r);
  };
  std::vector<double> dwte(V * C, 0), dwpe(T * C, 0);
  cpu::encoder_backward(dwte.data(), dwpe.data(), r.data(), tokens.data(), B, T, C, V);
  CHECK(gradient_error(wte, loss, dwte) < kTolerance);
  CHECK(gradient_error(wpe, loss, dwpe) < kTolerance);
}

TEST_CASE("softmax cross-entropy backward matches finite differences") {
  Rng rng(6);
  const int N = 4, V = 6;
  auto logits = random_vector(N * V, rng, 3.0);
  const std::vector<int32_t> targets = {0, 5, 2, 2};
  std::vector<double> work(N * V), losses(N);
  auto loss = [&] {
    work = logits;
    return cpu::crossentropy_forward(work.data(), losses.data(), targets.data(), N, V);
  };
  loss();
  cpu::crossentropy_backward(work.data(), targets.data(), N, V, 1.0 / N);
  const std::vector<double> dlogits = work;  // loss() below overwrites work
  CHECK(gradient_error(logits, loss, dlogits) < kTolerance);
}

TEST_CASE("uniform logits give a loss of ln V") {
  const int N = 3, V = 64;
  std::vector<double> logits(N * V, 0.25), losses(N);
  const std::vector<int32_t> targets = {0, 17, 63};
  CHECK(cpu::crossentropy_forward(logits.data(), losses.data(), targets.data(), N, V) ==
        doctest::Approx(std::log(64.0)).epsilon(1e-12));
}

TEST_CASE("residual backward passes the gradient to both branches") {
  std::vector<double> a = {1, 2}, b = {3, 4}, out(2), da = {0, 0}, db = {1, 1};
  const std::vector<double> dout = {0.5, -2};
  cpu::residual_forward(out.data(), a.data(), b.data(), 2);
  CHECK(out[1] == 6);
  cpu::residual_backward(da.data(), db.data(), dout.data(), 2);
  CHECK(da[1] == -2);
  CHECK(db[0] == 1.5);
}

}  // namespace
}  // namespace isoflop::train
