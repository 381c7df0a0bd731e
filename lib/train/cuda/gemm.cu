// The cuBLASLt GEMM wrapper (see gemm.cuh): row-major → column-major mapping, plan cache, bias handling.
#include "train/cuda/gemm.cuh"

#include <string>

#include "train/cuda/dtype.cuh"

namespace isoflop::train::cuda {
namespace {

// cuBLASLt's workspace: 32 MiB suits Hopper, more than enough elsewhere (training.md §6).
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

// The heuristic is not told the bias pointer's alignment, and the epilogue fails on a bias that is not 16-byte
// aligned: a less aligned one (a layer's slice at an odd offset) takes the separate bias kernel instead.
constexpr uint32_t kBiasEpilogueAlignment = 16;

size_t element_bytes(cudaDataType_t t) { return t == CUDA_R_16BF ? 2 : 4; }
const char* type_name(cudaDataType_t t) { return t == CUDA_R_16BF ? "bf16" : "fp32"; }

// The alignment (bytes, a power of two ≤ 256) every matrix of a batch has. The heuristic assumes 256 unless
// told otherwise, and would otherwise pick kernels that need more alignment than sub-tensor pointers (one
// head's slice, one layer's weights) have.
uint32_t alignment_of(const void* p, long long stride, cudaDataType_t type, int batch) {
  uintptr_t x = reinterpret_cast<uintptr_t>(p);
  if (batch > 1) x |= static_cast<uintptr_t>(stride) * element_bytes(type);
  uint32_t a = 256;
  while (a > 1 && x % a != 0) a /= 2;
  return a;
}

template <typename T>
__global__ void add_bias_kernel(T* d, const T* bias, int m, int n, long long ldd) {
  const long long total = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / n;
    const int c = static_cast<int>(i % n);
    T* x = d + r * ldd + c;
    *x = from_float<T>(to_float(*x) + to_float(bias[c]));
  }
}

template <typename V>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const V& value, const char* what) {
  check_cublas(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)), what);
}

void set_batch(cublasLtMatrixLayout_t layout, int batch, long long stride) {
  const int32_t count = batch;
  const int64_t offset = stride;
  check_cublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
               "cublasLtMatrixLayoutSetAttribute(batch count)");
  check_cublas(
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset, sizeof(offset)),
      "cublasLtMatrixLayoutSetAttribute(batch stride)");
}

std::string describe(const GemmOp& op) {
  return std::to_string(op.m) + "x" + std::to_string(op.n) + "x" + std::to_string(op.k) + " GEMM (" +
         (op.trans_a ? "A^T" : "A") + " * " + (op.trans_b ? "B^T" : "B") + ", inputs " + type_name(op.ab_type) +
         ", output " + type_name(op.d_type) + ", batch " + std::to_string(op.batch) + ")";
}

}  // namespace

bool Gemm::Key::operator==(const Key& o) const {
  return trans_a == o.trans_a && trans_b == o.trans_b && beta == o.beta && bias == o.bias && m == o.m && n == o.n &&
         k == o.k && batch == o.batch && lda == o.lda && ldb == o.ldb && ldd == o.ldd && stride_a == o.stride_a &&
         stride_b == o.stride_b && stride_d == o.stride_d && ab_type == o.ab_type && d_type == o.d_type &&
         align_a == o.align_a && align_b == o.align_b && align_c == o.align_c && align_d == o.align_d &&
         align_bias == o.align_bias;
}

Gemm::Gemm(DeviceMemory& memory) {
  check_cublas(cublasLtCreate(&handle_), "cublasLtCreate");
  try {
    workspace_ = memory.allocate<unsigned char>(kWorkspaceBytes, "the cuBLASLt workspace");
  } catch (...) {
    cublasLtDestroy(handle_);
    throw;
  }
  workspace_bytes_ = kWorkspaceBytes;
}

Gemm::~Gemm() {
  for (Plan& p : plans_) release(p);
  if (handle_) cublasLtDestroy(handle_);
}

void Gemm::release(Plan& plan) {
  if (plan.a) cublasLtMatrixLayoutDestroy(plan.a);
  if (plan.b) cublasLtMatrixLayoutDestroy(plan.b);
  if (plan.d) cublasLtMatrixLayoutDestroy(plan.d);
  if (plan.desc) cublasLtMatmulDescDestroy(plan.desc);
  plan = Plan{};
}

void Gemm::build(Plan& plan, const GemmOp& op, const Key& key) {
  plan.key = key;
  check_cublas(cublasLtMatmulDescCreate(&plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  // Column-major view: A_cm = row-major B, B_cm = row-major A, D_cm = Dᵀ (n×m).
  const cublasOperation_t op_a = op.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = op.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  set_desc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a, "cublasLtMatmulDescSetAttribute(transa)");
  set_desc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b, "cublasLtMatmulDescSetAttribute(transb)");
  // Stored shapes (rows × cols, column-major): row-major B (k×n) is n×k; row-major Bᵀ-stored (n×k) is k×n.
  check_cublas(cublasLtMatrixLayoutCreate(&plan.a, op.ab_type, op.trans_b ? op.k : op.n, op.trans_b ? op.n : op.k,
                                          op.ldb),
               "cublasLtMatrixLayoutCreate(A)");
  check_cublas(cublasLtMatrixLayoutCreate(&plan.b, op.ab_type, op.trans_a ? op.m : op.k, op.trans_a ? op.k : op.m,
                                          op.lda),
               "cublasLtMatrixLayoutCreate(B)");
  check_cublas(cublasLtMatrixLayoutCreate(&plan.d, op.d_type, op.n, op.m, op.ldd), "cublasLtMatrixLayoutCreate(D)");
  if (op.batch > 1) {
    set_batch(plan.a, op.batch, op.stride_b);
    set_batch(plan.b, op.batch, op.stride_a);
    set_batch(plan.d, op.batch, op.stride_d);
  }

  cublasLtMatmulPreference_t pref = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  auto heuristic = [&](cublasStatus_t* status) {
    cublasLtMatmulHeuristicResult_t result{};
    int count = 0;
    *status = cublasLtMatmulAlgoGetHeuristic(handle_, plan.desc, plan.a, plan.b, plan.d, plan.d, pref, 1, &result,
                                             &count);
    if (*status == CUBLAS_STATUS_SUCCESS && count > 0 && result.state == CUBLAS_STATUS_SUCCESS) {
      plan.algo = result.algo;
      return true;
    }
    return false;
  };
  try {
    const uint64_t workspace = workspace_bytes_;
    check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof(workspace)),
                 "cublasLtMatmulPreferenceSetAttribute(workspace)");
    const uint32_t aligns[4] = {key.align_b, key.align_a, key.align_c, key.align_d};  // column-major A, B, C, D
    const cublasLtMatmulPreferenceAttributes_t attrs[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i)
      check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, attrs[i], &aligns[i], sizeof(aligns[i])),
                   "cublasLtMatmulPreferenceSetAttribute(alignment)");
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    bool found = false;
    if (op.bias && key.align_bias >= kBiasEpilogueAlignment) {
      // The bias epilogue (D = A·B + C + bias, bias broadcast over D_cm's columns, i.e. row-major rows) saves a
      // pass over D; without an algorithm for it the bias kernel runs instead.
      set_desc(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS,
               "cublasLtMatmulDescSetAttribute(epilogue)");
      set_desc(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, op.bias, "cublasLtMatmulDescSetAttribute(bias)");
      found = heuristic(&status);
      plan.bias_in_epilogue = found;
      if (!found)
        set_desc(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT,
                 "cublasLtMatmulDescSetAttribute(epilogue)");
    }
    if (!found) found = heuristic(&status);
    if (!found)
      throw CudaError("cuBLASLt: no algorithm for a " + describe(op) +
                      (status == CUBLAS_STATUS_SUCCESS ? std::string("")
                                                       : std::string(": ") + cublasLtGetStatusString(status)));
  } catch (...) {
    cublasLtMatmulPreferenceDestroy(pref);
    throw;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  plan.used = true;
}

Gemm::Plan& Gemm::plan_for(const GemmOp& op, const Key& key) {
  for (Plan& p : plans_)
    if (p.used && p.key == key) return p;
  Plan* slot = nullptr;
  for (Plan& p : plans_)
    if (!p.used) {
      slot = &p;
      break;
    }
  if (!slot) {
    slot = &plans_[next_victim_];
    next_victim_ = (next_victim_ + 1) % kPlans;
    release(*slot);
  }
  try {
    build(*slot, op, key);
  } catch (...) {
    release(*slot);
    throw;
  }
  return *slot;
}

void Gemm::run(const GemmOp& op, cudaStream_t stream) {
  if (op.m <= 0 || op.n <= 0 || op.k <= 0 || op.batch <= 0 || (op.bias && op.batch != 1))
    throw CudaError("cuBLASLt: invalid " + describe(op));
  // Everything the plan depends on, in Key's order: a single matrix's strides do not enter it, and the pointers
  // only through their alignment.
  const bool batched = op.batch > 1;
  const void* c = op.c ? op.c : op.d;
  const Key key{op.trans_a, op.trans_b, op.c != nullptr, op.bias != nullptr,  //
                op.m, op.n, op.k, op.batch,                                  //
                op.lda, op.ldb, op.ldd, batched ? op.stride_a : 0, batched ? op.stride_b : 0, batched ? op.stride_d : 0,
                op.ab_type, op.d_type,  //
                alignment_of(op.a, op.stride_a, op.ab_type, op.batch), alignment_of(op.b, op.stride_b, op.ab_type, op.batch),
                alignment_of(c, op.stride_d, op.d_type, op.batch), alignment_of(op.d, op.stride_d, op.d_type, op.batch),
                op.bias ? alignment_of(op.bias, 0, op.d_type, 1) : 0u};

  Plan& plan = plan_for(op, key);
  if (op.bias && plan.bias_in_epilogue)
    set_desc(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, op.bias, "cublasLtMatmulDescSetAttribute(bias)");
  const float beta = op.c ? 1.0f : 0.0f;
  check_cublas(cublasLtMatmul(handle_, plan.desc, &op.alpha, op.b, plan.a, op.a, plan.b, &beta, c, plan.d, op.d,
                              plan.d, &plan.algo, workspace_, workspace_bytes_, stream),
               "cublasLtMatmul");
  if (op.bias && !plan.bias_in_epilogue) {
    const unsigned blocks = grid_for(static_cast<long long>(op.m) * op.n, 256);
    if (op.d_type == CUDA_R_16BF)
      add_bias_kernel<<<blocks, 256, 0, stream>>>(static_cast<bf16*>(op.d), static_cast<const bf16*>(op.bias), op.m,
                                                  op.n, op.ldd);
    else
      add_bias_kernel<<<blocks, 256, 0, stream>>>(static_cast<float*>(op.d), static_cast<const float*>(op.bias),
                                                  op.m, op.n, op.ldd);
    check_launch("add_bias_kernel");
  }
}

GemmOp packed_gemm(bool trans_a, bool trans_b, int m, int n, int k, const void* a, const void* b, void* d,
                   cudaDataType_t ab_type, cudaDataType_t d_type, int batch, float alpha) {
  GemmOp op;
  op.trans_a = trans_a;
  op.trans_b = trans_b;
  op.m = m;
  op.n = n;
  op.k = k;
  op.a = a;
  op.lda = trans_a ? m : k;
  op.stride_a = static_cast<long long>(m) * k;
  op.b = b;
  op.ldb = trans_b ? k : n;
  op.stride_b = static_cast<long long>(k) * n;
  op.d = d;
  op.ldd = n;
  op.stride_d = static_cast<long long>(m) * n;
  op.batch = batch;
  op.alpha = alpha;
  op.ab_type = ab_type;
  op.d_type = d_type;
  return op;
}

GemmOp linear_forward_gemm(int N, int C, int OC, void* out, cudaDataType_t out_type, const void* inp, const void* w,
                           const void* bias, const void* residual, cudaDataType_t ab_type) {
  GemmOp op = packed_gemm(false, true, N, OC, C, inp, w, out, ab_type, out_type);
  op.c = residual;
  op.bias = bias;
  return op;
}

GemmOp linear_dinp_gemm(int N, int C, int OC, void* dinp, const void* dout, const void* w, cudaDataType_t t) {
  return packed_gemm(false, false, N, C, OC, dout, w, dinp, t, t);
}

GemmOp linear_dweight_gemm(int N, int C, int OC, float* dw, const void* dout, const void* inp, cudaDataType_t ab_type) {
  GemmOp op = packed_gemm(true, false, OC, C, N, dout, inp, dw, ab_type, CUDA_R_32F);
  op.c = dw;  // accumulated
  return op;
}

}  // namespace isoflop::train::cuda
