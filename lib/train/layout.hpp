// The one source of tensor sizes: where each parameter lives in the flat parameter buffer (shared by the CPU
// and CUDA backends and the checkpoint format) and which tensors take weight decay.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "train/config.hpp"

namespace isoflop::train {

// Parameter tensors in buffer order; shapes use L layers, C channels, V vocab, T seq.
enum class Param : int {
  kWte,       // (V, C)   token embedding, also the tied LM head
  kWpe,       // (T, C)   learned position embedding
  kLn1W,      // (L, C)
  kLn1B,      // (L, C)
  kQkvW,      // (L, 3C, C)
  kQkvB,      // (L, 3C)
  kAttProjW,  // (L, C, C)
  kAttProjB,  // (L, C)
  kLn2W,      // (L, C)
  kLn2B,      // (L, C)
  kFcW,       // (L, 4C, C)
  kFcB,       // (L, 4C)
  kFcProjW,   // (L, C, 4C)
  kFcProjB,   // (L, C)
  kLnfW,      // (C)
  kLnfB,      // (C)
};
inline constexpr int kParamCount = 16;

std::string_view param_name(Param p);  // "wte", "qkv_w", …

struct ParameterLayout {
  std::array<size_t, kParamCount> sizes{};    // elements per tensor
  std::array<size_t, kParamCount> offsets{};  // element offset in the flat buffer
  size_t total = 0;                           // all parameters

  size_t size(Param p) const { return sizes[static_cast<int>(p)]; }
  size_t offset(Param p) const { return offsets[static_cast<int>(p)]; }

  // AdamW decays matrices (embeddings, projections) but not biases or LayerNorm gains (issue §1).
  static bool decayed(Param p);
};

ParameterLayout parameter_layout(const ModelConfig& config);

// Named pointers into one flat buffer (float or double), llm.c style; per-layer tensors are indexed by l.
template <typename T>
struct ParamView {
  T* wte;
  T* wpe;
  T* ln1w;
  T* ln1b;
  T* qkvw;
  T* qkvb;
  T* attprojw;
  T* attprojb;
  T* ln2w;
  T* ln2b;
  T* fcw;
  T* fcb;
  T* fcprojw;
  T* fcprojb;
  T* lnfw;
  T* lnfb;
};

template <typename T>
ParamView<T> bind_params(T* base, const ParameterLayout& layout) {
  auto at = [&](Param p) { return base + layout.offset(p); };
  return {at(Param::kWte),     at(Param::kWpe),     at(Param::kLn1W),    at(Param::kLn1B),
          at(Param::kQkvW),    at(Param::kQkvB),    at(Param::kAttProjW), at(Param::kAttProjB),
          at(Param::kLn2W),    at(Param::kLn2B),    at(Param::kFcW),     at(Param::kFcB),
          at(Param::kFcProjW), at(Param::kFcProjB), at(Param::kLnfW),    at(Param::kLnfB)};
}

// Fills `params` (layout.total elements) with GPT-2's initialisation: weights N(0, 0.02), residual output
// projections (attention and MLP) N(0, 0.02/√(2·layers)), biases 0, LayerNorm gains 1 (Radford et al.
// 2019 §2.3). Deterministic in `seed` on every platform.
void init_parameters(const ModelConfig& config, const ParameterLayout& layout, unsigned long long seed, float* params);

}  // namespace isoflop::train
