// GEMMs through cuBLASLt, described in row-major terms (as the CPU reference writes them) and mapped onto
// cuBLASLt's column-major convention: row-major D = op(A)·op(B) is column-major Dᵀ = op(B)ᵀ·op(A)ᵀ, so the
// operands swap and the shapes transpose. Compute is always fp32 (CUBLAS_COMPUTE_32F): bf16 or fp32 inputs,
// fp32 accumulation, bf16 or fp32 outputs. Plans (descriptors and the heuristic's algorithm) are cached by
// shape, types and pointer alignment, so the steady-state loop creates nothing.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "train/cuda/device_memory.cuh"

namespace isoflop::train::cuda {

// D (m×n, row-major, ld ldd) = alpha · op(A) (m×k) · op(B) (k×n) [+ C] [+ bias], `batch` times with element
// strides between the matrices of a batch.
struct GemmOp {
  bool trans_a = false;  // op(A) = Aᵀ: A is stored (k×m)
  bool trans_b = false;  // op(B) = Bᵀ: B is stored (n×k)
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  long long lda = 0, stride_a = 0;
  const void* b = nullptr;
  long long ldb = 0, stride_b = 0;
  void* d = nullptr;
  long long ldd = 0, stride_d = 0;
  const void* c = nullptr;     // added with beta = 1 (same type and layout as D; may be D itself); null: beta = 0
  const void* bias = nullptr;  // n values of D's type added to every row; batch must be 1
  float alpha = 1.0f;
  int batch = 1;
  cudaDataType_t ab_type = CUDA_R_32F;  // A and B
  cudaDataType_t d_type = CUDA_R_32F;   // C, D and the bias
};

// Row-major D (m×n) = alpha · op(A) (m×k) · op(B) (k×n) on packed matrices (each leading dimension is its
// row length), `batch` times over consecutive matrices (each stride is one matrix).
GemmOp packed_gemm(bool trans_a, bool trans_b, int m, int n, int k, const void* a, const void* b, void* d,
                   cudaDataType_t ab_type, cudaDataType_t d_type, int batch = 1, float alpha = 1.0f);

// A linear layer's three GEMMs over N rows (every position of a batch), as the CPU reference writes them:
// out (N,OC) = inp (N,C) · wᵀ [+ residual] + bias, out of type out_type (residual too) and the rest of ab_type;
GemmOp linear_forward_gemm(int N, int C, int OC, void* out, cudaDataType_t out_type, const void* inp, const void* w,
                           const void* bias, const void* residual, cudaDataType_t ab_type);
// dinp (N,C) = dout (N,OC) · w (OC,C), written, all of type t;
GemmOp linear_dinp_gemm(int N, int C, int OC, void* dinp, const void* dout, const void* w, cudaDataType_t t);
// dw (OC,C) += doutᵀ (OC,N) · inp (N,C), dout and inp of ab_type, dw accumulated in fp32.
GemmOp linear_dweight_gemm(int N, int C, int OC, float* dw, const void* dout, const void* inp, cudaDataType_t ab_type);

class Gemm {
 public:
  // Creates the cuBLASLt handle and allocates its workspace in `memory`.
  explicit Gemm(DeviceMemory& memory);
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;
  ~Gemm();

  // Enqueues op on `stream`; throws CudaError when cuBLASLt has no algorithm for it or fails.
  void run(const GemmOp& op, cudaStream_t stream);

 private:
  struct Key {
    bool trans_a, trans_b, beta, bias;
    int m, n, k, batch;
    long long lda, ldb, ldd, stride_a, stride_b, stride_d;
    cudaDataType_t ab_type, d_type;
    uint32_t align_a, align_b, align_c, align_d, align_bias;
    bool operator==(const Key& o) const;
  };
  struct Plan {
    bool used = false;
    Key key{};
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;  // column-major A (= row-major B), B, C = D
    cublasLtMatmulAlgo_t algo{};
    bool bias_in_epilogue = false;  // false: the bias is added by a separate kernel
  };
  static constexpr int kPlans = 96;

  Plan& plan_for(const GemmOp& op, const Key& key);
  void build(Plan& plan, const GemmOp& op, const Key& key);
  static void release(Plan& plan);

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  std::array<Plan, kPlans> plans_{};
  int next_victim_ = 0;  // round-robin replacement once every slot is used
};

}  // namespace isoflop::train::cuda
