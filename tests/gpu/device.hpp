// Helpers for the CUDA-vs-CPU tests: skipping without a device, device buffers that convert to and from host
// floats, and tensor comparisons with a stated tolerance.
#pragma once

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "train/backend.hpp"
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/rng.hpp"

// Names the templated cases "…<float>" and "…<bf16>".
TYPE_TO_STRING_AS("bf16", isoflop::train::cuda::bf16);

namespace isoflop::test::gpu {

using train::cuda::bf16;

inline bool device_present() {
  static const bool present = train::cuda_device_count() > 0;
  return present;
}

// Every GPU test case starts with this: without a device it prints the line ctest's SKIP_REGULAR_EXPRESSION
// matches and returns (the case passes, so the binary exits 0 where there is no GPU, as in CI).
#define GPU_TEST_NEEDS_DEVICE()                                          \
  do {                                                                   \
    if (!::isoflop::test::gpu::device_present()) {                       \
      std::printf("gpu test skipped: no CUDA device present\n");         \
      return;                                                            \
    }                                                                    \
  } while (0)

template <typename T>
T from_host(float x) {
  if constexpr (std::is_same_v<T, float>)
    return x;
  else
    return __float2bfloat16(x);
}
inline float to_host(float x) { return x; }
inline float to_host(bf16 x) { return __bfloat162float(x); }

// The values T can hold: what a bf16 kernel actually reads, so the CPU reference is fed the same inputs.
template <typename T>
std::vector<float> representable(std::vector<float> v) {
  for (float& x : v) x = to_host(from_host<T>(x));
  return v;
}

inline std::vector<float> normals(size_t n, uint64_t seed, double scale = 1.0) {
  train::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(scale * rng.normal());
  return v;
}

inline std::vector<int32_t> tokens(size_t n, int below, uint64_t seed) {
  train::Rng rng(seed);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = static_cast<int32_t>(rng.below(static_cast<uint64_t>(below)));
  return v;
}

// n elements of T on the device, filled from and read back as host floats.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    train::cuda::check_cuda(cudaMalloc(&data_, std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc (test buffer)");
  }
  explicit DeviceBuffer(const std::vector<float>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  size_t size() const { return n_; }

  void upload(const std::vector<float>& host) {
    REQUIRE(host.size() == n_);
    std::vector<T> staged(n_);
    for (size_t i = 0; i < n_; ++i) staged[i] = from_host<T>(host[i]);
    train::cuda::check_cuda(cudaMemcpy(data_, staged.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  // Waits for all queued work first, so a kernel's fault is reported here rather than later.
  std::vector<float> download() const {
    train::cuda::check_cuda(cudaDeviceSynchronize(), "synchronising before a download");
    std::vector<T> staged(n_);
    train::cuda::check_cuda(cudaMemcpy(staged.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    std::vector<float> host(n_);
    for (size_t i = 0; i < n_; ++i) host[i] = to_host(staged[i]);
    return host;
  }

 private:
  T* data_ = nullptr;
  size_t n_;
};

// Device token ids.
class DeviceTokens {
 public:
  explicit DeviceTokens(const std::vector<int32_t>& host) {
    train::cuda::check_cuda(cudaMalloc(&data_, std::max<size_t>(host.size(), 1) * sizeof(int32_t)), "cudaMalloc");
    train::cuda::check_cuda(
        cudaMemcpy(data_, host.data(), host.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "upload tokens");
  }
  DeviceTokens(const DeviceTokens&) = delete;
  DeviceTokens& operator=(const DeviceTokens&) = delete;
  ~DeviceTokens() { cudaFree(data_); }
  const int32_t* get() const { return data_; }

 private:
  int32_t* data_ = nullptr;
};

// Largest |actual − expected| over a tensor divided by its largest |expected| (at least 1e-30): a normwise
// error, because an elementwise relative error is meaningless for entries that are near zero by cancellation.
inline double tensor_error(const float* actual, const float* expected, size_t n, size_t* worst = nullptr) {
  double max_diff = 0, max_ref = 1e-30;
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const double diff = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    if (!(diff <= max_diff)) {  // NaN counts as the worst
      max_diff = std::isnan(diff) ? INFINITY : diff;
      at = i;
    }
    max_ref = std::max(max_ref, std::fabs(static_cast<double>(expected[i])));
  }
  if (worst) *worst = at;
  return max_diff / max_ref;
}

// CHECKs a tensor against its reference within normwise tolerance `rel`, naming it and its worst entry.
inline void check_tensor(const std::string& name, const float* actual, const float* expected, size_t n, double rel) {
  size_t worst = 0;
  const double error = tensor_error(actual, expected, n, &worst);
  INFO(name << ": normwise error " << error << " (tolerance " << rel << "), worst entry " << worst << ": actual "
            << (n ? actual[worst] : 0.0f) << " expected " << (n ? expected[worst] : 0.0f));
  CHECK(error <= rel);
}
inline void check_tensor(const std::string& name, const std::vector<float>& actual, const std::vector<float>& expected,
                         double rel) {
  REQUIRE(actual.size() == expected.size());
  check_tensor(name, actual.data(), expected.data(), actual.size(), rel);
}

}  // namespace isoflop::test::gpu
