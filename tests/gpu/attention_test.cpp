// The CUDA attention kernels against the CPU reference: the head split and merge permutations and the causal
// softmax with its backward, in fp32 and bf16.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "device.hpp"
#include "layer_parity.hpp"
#include "train/cpu/layers.hpp"

namespace isoflop::test::gpu {
namespace {

TEST_CASE_TEMPLATE("attention's head split and merge are exact permutations of the CPU's qkv layout", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const int NH = 4, hs = kC / NH;
  const size_t plane = static_cast<size_t>(kN) * kC;
  const auto qkv = representable<T>(normals(3 * plane, 40));
  DeviceBuffer<T> d_qkv(qkv), d_heads(3 * plane), d_back(3 * plane), d_merged(plane);
  T* q = d_heads.get();
  cu::attention_split_heads(q, q + plane, q + 2 * plane, d_qkv.get(), kB, kT, NH, hs, nullptr);
  const auto heads = d_heads.download();
  // Head h of q at (b, t) is qkv[b, t, h·hs : (h+1)·hs], as cpu::attention_forward reads it; k and v follow at +C.
  size_t mismatches = 0;
  for (int part = 0; part < 3; ++part)
    for (int b = 0; b < kB; ++b)
      for (int h = 0; h < NH; ++h)
        for (int t = 0; t < kT; ++t)
          for (int d = 0; d < hs; ++d) {
            const size_t i = part * plane + ((static_cast<size_t>(b) * NH + h) * kT + t) * hs + d;
            const size_t j = (static_cast<size_t>(b) * kT + t) * 3 * kC + part * kC + h * hs + d;
            mismatches += heads[i] != qkv[j];
          }
  CHECK(mismatches == 0);
  cu::attention_split_heads_backward(d_back.get(), q, q + plane, q + 2 * plane, kB, kT, NH, hs, nullptr);
  CHECK(d_back.download() == qkv);
  cu::attention_merge_heads(d_merged.get(), q, kB, kT, NH, hs, nullptr);  // q's heads side by side again
  cu::attention_merge_heads_backward(d_heads.get(), d_merged.get(), kB, kT, NH, hs, nullptr);
  const auto q_again = d_heads.download();
  CHECK(std::equal(q_again.begin(), q_again.begin() + plane, heads.begin()));
  const auto merged = d_merged.download();
  for (size_t i = 0; i < plane; ++i) mismatches += merged[i] != qkv[(i / kC) * 3 * kC + i % kC];
  CHECK(mismatches == 0);
}

TEST_CASE_TEMPLATE("the causal softmax and its backward match the CPU's formulas", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const int Tn = 45, rows = 3 * Tn;  // rows of several heads; T above one warp's 32 lanes
  const auto preatt = normals(static_cast<size_t>(rows) * Tn, 50, 3.0);
  DeviceBuffer<float> d_preatt(preatt);
  DeviceBuffer<T> d_att(preatt.size());
  cu::causal_softmax_forward(d_att.get(), d_preatt.get(), rows, Tn, nullptr);
  const auto att = d_att.download();
  // cpu::attention_forward's softmax: row t sees 0..t, zero above the diagonal.
  std::vector<float> expected(preatt.size(), 0.0f);
  for (int r = 0; r < rows; ++r) {
    const int t = r % Tn;
    const float* x = &preatt[static_cast<size_t>(r) * Tn];
    const double mx = *std::max_element(x, x + t + 1);
    double sum = 0;
    for (int j = 0; j <= t; ++j) sum += std::exp(x[j] - mx);
    for (int j = 0; j <= t; ++j) expected[static_cast<size_t>(r) * Tn + j] = static_cast<float>(std::exp(x[j] - mx) / sum);
  }
  check_tensor("att", att, expected, output_tol<T>());
  size_t above = 0;
  for (int r = 0; r < rows; ++r)
    for (int j = r % Tn + 1; j < Tn; ++j) above += att[static_cast<size_t>(r) * Tn + j] != 0.0f;
  CHECK(above == 0);

  // Backward from the kernel's own probabilities: ds = p ⊙ (dp − Σ p·dp), zero above the diagonal.
  const auto datt = normals(preatt.size(), 51);
  DeviceBuffer<float> d_datt(datt);
  DeviceBuffer<T> d_ds(preatt.size());
  cu::causal_softmax_backward(d_ds.get(), d_datt.get(), d_att.get(), rows, Tn, nullptr);
  std::vector<float> ds(preatt.size(), 0.0f);
  for (int r = 0; r < rows; ++r) {
    const int t = r % Tn;
    const size_t base = static_cast<size_t>(r) * Tn;
    double dot = 0;
    for (int j = 0; j <= t; ++j) dot += static_cast<double>(att[base + j]) * datt[base + j];
    for (int j = 0; j <= t; ++j) ds[base + j] = static_cast<float>(att[base + j] * (datt[base + j] - dot));
  }
  check_tensor("dpreatt", d_ds.download(), ds, output_tol<T>());
}

}  // namespace
}  // namespace isoflop::test::gpu
