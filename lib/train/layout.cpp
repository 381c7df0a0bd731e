// Parameter sizes, offsets, names, weight-decay groups and GPT-2 initialisation.
#include "train/layout.hpp"

#include <algorithm>
#include <cmath>

#include "train/rng.hpp"

namespace isoflop::train {

std::string_view param_name(Param p) {
  static constexpr std::array<std::string_view, kParamCount> kNames = {
      "wte",   "wpe",  "ln1_w",      "ln1_b",      "qkv_w", "qkv_b", "attn_proj_w", "attn_proj_b",
      "ln2_w", "ln2_b", "fc_w",      "fc_b",       "fc_proj_w", "fc_proj_b", "lnf_w", "lnf_b"};
  return kNames[static_cast<int>(p)];
}

bool ParameterLayout::decayed(Param p) {
  switch (p) {
    case Param::kWte:
    case Param::kWpe:
    case Param::kQkvW:
    case Param::kAttProjW:
    case Param::kFcW:
    case Param::kFcProjW:
      return true;
    default:
      return false;
  }
}

ParameterLayout parameter_layout(const ModelConfig& c) {
  const size_t L = c.layers, C = c.d_model, V = c.vocab, T = c.seq;
  ParameterLayout layout;
  layout.sizes = {V * C,     T * C, L * C,         L * C, L * 3 * C * C, L * 3 * C, L * C * C, L * C,
                  L * C,     L * C, L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C, C, C};
  size_t offset = 0;
  for (int i = 0; i < kParamCount; ++i) {
    layout.offsets[i] = offset;
    offset += layout.sizes[i];
  }
  layout.total = offset;
  return layout;
}

void init_parameters(const ModelConfig& c, const ParameterLayout& layout, unsigned long long seed, float* params) {
  Rng rng(seed);
  const double std_dev = 0.02;
  const double residual_std = 0.02 / std::sqrt(2.0 * c.layers);
  for (int i = 0; i < kParamCount; ++i) {
    const auto p = static_cast<Param>(i);
    float* t = params + layout.offsets[i];
    const size_t n = layout.sizes[i];
    switch (p) {
      case Param::kLn1W:
      case Param::kLn2W:
      case Param::kLnfW:
        std::fill_n(t, n, 1.0f);
        break;
      case Param::kLn1B:
      case Param::kLn2B:
      case Param::kLnfB:
      case Param::kQkvB:
      case Param::kAttProjB:
      case Param::kFcB:
      case Param::kFcProjB:
        std::fill_n(t, n, 0.0f);
        break;
      default: {
        const bool residual = p == Param::kAttProjW || p == Param::kFcProjW;
        const double sd = residual ? residual_std : std_dev;
        std::generate_n(t, n, [&] { return static_cast<float>(sd * rng.normal()); });
      }
    }
  }
}

}  // namespace isoflop::train
