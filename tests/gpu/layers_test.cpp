// The CUDA kernels and GEMMs layer by layer against the CPU reference layers (lib/train/cpu/layers.hpp), in
// fp32 and bf16, on shapes that are not multiples of any block or warp size.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <vector>

#include "device.hpp"
#include "layer_parity.hpp"
#include "train/cpu/layers.hpp"
#include "train/cuda/gemm.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::test::gpu {
namespace {

// dwte's buckets as kernels.cuh specifies them, built independently of the backend's counting sort: for each
// distinct token in ascending order, its positions in ascending order.
struct Buckets {
  std::vector<int32_t> tokens, offsets, positions;
};
Buckets make_buckets(const std::vector<int32_t>& inputs) {
  std::map<int32_t, std::vector<int32_t>> by_token;
  for (int32_t i = 0; i < static_cast<int32_t>(inputs.size()); ++i) by_token[inputs[i]].push_back(i);
  Buckets b;
  for (const auto& [token, positions] : by_token) {
    b.tokens.push_back(token);
    b.offsets.push_back(static_cast<int32_t>(b.positions.size()));
    b.positions.insert(b.positions.end(), positions.begin(), positions.end());
  }
  b.offsets.push_back(static_cast<int32_t>(b.positions.size()));
  return b;
}

TEST_CASE_TEMPLATE("encoder forward and backward match the CPU, with repeated and absent tokens", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const int V = 11;
  // Inputs drawn from the first 7 ids: 38 positions repeat most tokens, and ids 7..10 never occur.
  const auto inputs = tokens(kN, 7, 1);
  const auto wte = representable<T>(normals(static_cast<size_t>(V) * kC, 2));
  const auto wpe = representable<T>(normals(static_cast<size_t>(kT) * kC, 3));
  std::vector<float> out(static_cast<size_t>(kN) * kC);
  cpu::encoder_forward(out.data(), inputs.data(), wte.data(), wpe.data(), kB, kT, kC);

  DeviceTokens d_inputs(inputs);
  DeviceBuffer<T> d_wte(wte), d_wpe(wpe), d_out(out.size());
  cu::encoder_forward(d_out.get(), d_inputs.get(), d_wte.get(), d_wpe.get(), kB, kT, kC, nullptr);
  // A sum of two representable values, rounded once on store.
  check_tensor("encoder out", d_out.download(), out, output_tol<T>());

  // Backward accumulates (+=) into non-zero gradients.
  const auto dout = representable<T>(normals(out.size(), 4));
  auto dwte = normals(wte.size(), 5), dwpe = normals(wpe.size(), 6);
  DeviceBuffer<float> d_dwte(dwte), d_dwpe(dwpe);
  DeviceBuffer<T> d_dout(dout);
  const Buckets b = make_buckets(inputs);
  DeviceTokens d_tokens(b.tokens), d_offsets(b.offsets), d_positions(b.positions);
  cu::encoder_backward(d_dwte.get(), d_dwpe.get(), d_dout.get(), d_tokens.get(), d_offsets.get(), d_positions.get(),
                       static_cast<int>(b.tokens.size()), kB, kT, kC, nullptr);
  cpu::encoder_backward(dwte.data(), dwpe.data(), dout.data(), inputs.data(), kB, kT, kC, V);
  // fp32 sums of the same representable values in the same (position) order.
  check_tensor("dwte", d_dwte.download(), dwte, kFp32Tol);
  check_tensor("dwpe", d_dwpe.download(), dwpe, kFp32Tol);
}

TEST_CASE_TEMPLATE("layernorm forward and backward match the CPU", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const auto inp = representable<T>(normals(static_cast<size_t>(kN) * kC, 10, 2.0));
  auto w = normals(kC, 11, 0.3), b = normals(kC, 12, 0.3);
  for (float& x : w) x += 1.0f;
  w = representable<T>(w);
  b = representable<T>(b);
  std::vector<float> out(inp.size()), mean(kN), rstd(kN);
  cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), kN, kC);

  DeviceBuffer<T> d_inp(inp), d_w(w), d_b(b), d_out(out.size());
  DeviceBuffer<float> d_mean(static_cast<size_t>(kN)), d_rstd(static_cast<size_t>(kN));
  cu::layernorm_forward(d_out.get(), d_mean.get(), d_rstd.get(), d_inp.get(), d_w.get(), d_b.get(), kN, kC, nullptr);
  check_tensor("ln out", d_out.download(), out, output_tol<T>());
  check_tensor("ln mean", d_mean.download(), mean, kFp32Tol);
  check_tensor("ln rstd", d_rstd.download(), rstd, kFp32Tol);

  // Backward from the CPU's statistics, so that only the backward kernels are compared; all outputs +=.
  const auto dout = representable<T>(normals(inp.size(), 13));
  auto dinp = representable<T>(normals(inp.size(), 14));
  auto dw = normals(kC, 15), db = normals(kC, 16);
  DeviceBuffer<T> d_dinp(dinp), d_dout(dout);
  DeviceBuffer<float> d_dw(dw), d_db(db), d_scratch(cu::column_scratch_floats(2, kC));
  d_mean.upload(mean);
  d_rstd.upload(rstd);
  cu::layernorm_backward(d_dinp.get(), d_dw.get(), d_db.get(), d_scratch.get(), d_dout.get(), d_inp.get(), d_w.get(),
                         d_mean.get(), d_rstd.get(), kN, kC, nullptr);
  cpu::layernorm_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), mean.data(),
                          rstd.data(), kN, kC);
  check_tensor("ln dinp", d_dinp.download(), dinp, output_tol<T>());
  check_tensor("ln dw", d_dw.download(), dw, kFp32Tol);  // fp32 column sums of fp32 terms
  check_tensor("ln db", d_db.download(), db, kFp32Tol);
}

// Row-major reference for one matrix of a batched GemmOp, in double.
void reference_gemm(const cu::GemmOp& op, const std::vector<float>& a, const std::vector<float>& b,
                    std::vector<float>& d, bool accumulate) {
  for (int batch = 0; batch < op.batch; ++batch)
    for (int i = 0; i < op.m; ++i)
      for (int j = 0; j < op.n; ++j) {
        double acc = 0;
        for (int p = 0; p < op.k; ++p) {
          const double x = op.trans_a ? a[batch * op.stride_a + p * op.lda + i] : a[batch * op.stride_a + i * op.lda + p];
          const double y = op.trans_b ? b[batch * op.stride_b + j * op.ldb + p] : b[batch * op.stride_b + p * op.ldb + j];
          acc += x * y;
        }
        float& out = d[batch * op.stride_d + i * op.ldd + j];
        out = static_cast<float>(op.alpha * acc + (accumulate ? out : 0.0));
      }
}

TEST_CASE_TEMPLATE("strided-batched GEMMs match a row-major reference for every transpose, padded leading dimensions",
                   T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  cu::DeviceMemory memory;
  cu::Gemm gemm(memory);
  const int m = 13, n = 7, k = 37, batch = 3, pad = 3;
  for (const bool ta : {false, true})
    for (const bool tb : {false, true})
      for (const bool accumulate : {false, true}) {
        CAPTURE(ta);
        CAPTURE(tb);
        CAPTURE(accumulate);
        cu::GemmOp op;
        op.trans_a = ta;
        op.trans_b = tb;
        op.m = m;
        op.n = n;
        op.k = k;
        op.lda = (ta ? m : k) + pad;
        op.ldb = (tb ? k : n) + pad;
        op.ldd = n + pad;
        op.stride_a = (ta ? k : m) * op.lda + 5;
        op.stride_b = (tb ? n : k) * op.ldb + 5;
        op.stride_d = m * op.ldd + 5;
        op.batch = batch;
        op.alpha = 0.5f;
        const auto a = representable<T>(normals(op.stride_a * batch, 20));
        const auto b = representable<T>(normals(op.stride_b * batch, 21));
        auto d = normals(op.stride_d * batch, 22);
        DeviceBuffer<T> d_a(a), d_b(b);
        op.a = d_a.get();
        op.b = d_b.get();
        op.ab_type = cuda_type<T>();
        // fp32 output (as the attention scores), then T output (as the attention values).
        {
          DeviceBuffer<float> d_d(d);
          op.d = d_d.get();
          op.c = accumulate ? d_d.get() : nullptr;
          op.d_type = CUDA_R_32F;
          gemm.run(op, nullptr);
          std::vector<float> expected = d;
          reference_gemm(op, a, b, expected, accumulate);
          check_tensor("fp32 D", d_d.download(), expected, accumulate_tol<T>());
        }
        {
          const auto d_t = representable<T>(d);
          DeviceBuffer<T> d_d(d_t);
          op.d = d_d.get();
          op.c = accumulate ? d_d.get() : nullptr;
          op.d_type = cuda_type<T>();
          gemm.run(op, nullptr);
          std::vector<float> expected = d_t;
          reference_gemm(op, a, b, expected, accumulate);
          check_tensor("D", d_d.download(), expected, output_tol<T>());
        }
      }
}

TEST_CASE_TEMPLATE("a linear layer's forward (bias epilogue or kernel, residual) and backward match the CPU", T, float,
                   bf16) {
  GPU_TEST_NEEDS_DEVICE();
  cu::DeviceMemory memory;
  cu::Gemm gemm(memory);
  const int N = kN, C = kC, OC = 3 * kC + 4;
  const auto inp = representable<T>(normals(static_cast<size_t>(N) * C, 30));
  const auto w = representable<T>(normals(static_cast<size_t>(OC) * C, 31, 0.2));
  // One spare element so that the bias can also start 1 element in: too little alignment for the epilogue.
  const auto bias_storage = representable<T>(normals(OC + 1, 32));
  const auto residual = representable<T>(normals(static_cast<size_t>(N) * OC, 33));
  DeviceBuffer<T> d_inp(inp), d_w(w), d_bias(bias_storage), d_residual(residual);

  for (const int bias_offset : {0, 1})
    for (const bool with_residual : {false, true}) {
      CAPTURE(bias_offset);
      CAPTURE(with_residual);
      const std::vector<float> bias(bias_storage.begin() + bias_offset, bias_storage.begin() + bias_offset + OC);
      std::vector<float> out(static_cast<size_t>(N) * OC);
      cpu::matmul_forward(out.data(), inp.data(), w.data(), bias.data(), N, C, OC);
      if (with_residual)
        for (size_t i = 0; i < out.size(); ++i) out[i] += residual[i];
      DeviceBuffer<T> d_out(out.size());
      // The GEMM Gpt::linear_forward runs.
      const cu::GemmOp op = cu::linear_forward_gemm(N, C, OC, d_out.get(), cuda_type<T>(), d_inp.get(), d_w.get(),
                                                    d_bias.get() + bias_offset,
                                                    with_residual ? d_residual.get() : nullptr, cuda_type<T>());
      gemm.run(op, nullptr);
      check_tensor("linear out", d_out.download(), out, output_tol<T>());
    }

  // Backward as Gpt::linear_backward: dinp written, dw and dbias accumulated in fp32.
  const std::vector<float> bias(bias_storage.begin(), bias_storage.begin() + OC);
  const auto dout = representable<T>(normals(static_cast<size_t>(N) * OC, 34));
  std::vector<float> dinp(inp.size(), 0.0f);
  auto dw = normals(w.size(), 35), dbias = normals(OC, 36);
  DeviceBuffer<T> d_dout(dout), d_dinp(dinp.size());
  DeviceBuffer<float> d_dw(dw), d_dbias(dbias), d_scratch(cu::column_scratch_floats(1, OC));
  cpu::matmul_backward(dinp.data(), dw.data(), dbias.data(), dout.data(), inp.data(), w.data(), N, C, OC);
  gemm.run(cu::linear_dinp_gemm(N, C, OC, d_dinp.get(), d_dout.get(), d_w.get(), cuda_type<T>()), nullptr);
  gemm.run(cu::linear_dweight_gemm(N, C, OC, d_dw.get(), d_dout.get(), d_inp.get(), cuda_type<T>()), nullptr);
  cu::bias_backward(d_dbias.get(), d_scratch.get(), d_dout.get(), N, OC, nullptr);
  check_tensor("linear dinp", d_dinp.download(), dinp, output_tol<T>());
  check_tensor("linear dw", d_dw.download(), dw, accumulate_tol<T>());
  check_tensor("linear dbias", d_dbias.download(), dbias, kFp32Tol);  // fp32 column sums
}


TEST_CASE_TEMPLATE("GELU forward and backward match the CPU (tanh form)", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const long long n = 4099;  // not a multiple of the 256-thread blocks
  const auto inp = representable<T>(normals(n, 60, 3.0));
  const auto dout = representable<T>(normals(n, 61));
  std::vector<float> out(n), dinp(n, 0.0f);
  cpu::gelu_forward(out.data(), inp.data(), n);
  cpu::gelu_backward(dinp.data(), inp.data(), dout.data(), n);
  DeviceBuffer<T> d_inp(inp), d_out(n), d_dout(dout);
  cu::gelu_forward(d_out.get(), d_inp.get(), n, nullptr);
  check_tensor("gelu out", d_out.download(), out, output_tol<T>());
  cu::gelu_backward(d_dout.get(), d_inp.get(), d_dout.get(), n, nullptr);  // in place, as the backend calls it
  check_tensor("gelu dinp", d_dout.download(), dinp, output_tol<T>());
}

TEST_CASE_TEMPLATE("the fused classifier matches the CPU's softmax cross-entropy, loss and gradient", T, float, bf16) {
  GPU_TEST_NEEDS_DEVICE();
  const int N = kN, V = 1037;  // V above the kernel's 512 threads and not a multiple of them
  auto logits = normals(static_cast<size_t>(N) * V, 70, 4.0);
  const auto targets = tokens(N, V, 71);
  const float scale = 1.0f / N;
  DeviceTokens d_targets(targets);
  DeviceBuffer<float> d_logits(logits), d_losses(static_cast<size_t>(N));
  // Evaluation (no gradient) leaves the logits alone.
  cu::crossentropy_forward_backward(d_losses.get(), static_cast<T*>(nullptr), d_logits.get(), d_targets.get(), N, V,
                                    scale, nullptr);
  CHECK(d_logits.download() == logits);
  const auto eval_losses = d_losses.download();

  std::vector<float> losses(N);
  cpu::crossentropy_forward(logits.data(), losses.data(), targets.data(), N, V);  // logits → probabilities
  cpu::crossentropy_backward(logits.data(), targets.data(), N, V, scale);         // → dlogits
  // The GPU takes −log p from the log-sum-exp, the CPU from the normalised probability: both are within a few
  // ulps of the loss.
  check_tensor("eval losses", eval_losses, losses, kFp32Tol);
  if constexpr (std::is_same_v<T, float>) {
    // fp32: the gradient overwrites the logits in place, as the backend runs it.
    cu::crossentropy_forward_backward(d_losses.get(), d_logits.get(), d_logits.get(), d_targets.get(), N, V, scale,
                                      nullptr);
    check_tensor("dlogits (in place)", d_logits.download(), logits, kFp32Tol);
  } else {
    DeviceBuffer<T> d_dlogits(logits.size());
    cu::crossentropy_forward_backward(d_losses.get(), d_dlogits.get(), d_logits.get(), d_targets.get(), N, V, scale,
                                      nullptr);
    check_tensor("dlogits", d_dlogits.download(), logits, kBf16Tol);
  }
  check_tensor("losses", d_losses.download(), losses, kFp32Tol);
}

TEST_CASE("the parameter conversion to bf16 rounds exactly as the host does") {
  GPU_TEST_NEEDS_DEVICE();
  const auto params = normals(1001, 80, 0.05);
  DeviceBuffer<float> d_params(params);
  DeviceBuffer<bf16> d_copy(params.size());
  cu::convert_parameters(d_copy.get(), d_params.get(), params.size(), nullptr);
  CHECK(d_copy.download() == representable<bf16>(params));
}

}  // namespace
}  // namespace isoflop::test::gpu
