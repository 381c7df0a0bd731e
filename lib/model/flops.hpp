// FLOP counting by named convention: 6·N·D; Hoffmann et al. 2022 App. F per-operation counts; Narayanan
// et al. 2021 eq. 3 (hardware FLOPs with the recompute forward) and Korthikanti et al. 2022 eq. 7 / eq. 8.
#pragma once

#include "core/enum_names.hpp"
#include "model/architecture.hpp"

namespace isoflop::model {

enum class FlopsConvention { k6nd, kChinchilla, kMegatron };
inline constexpr EnumNames<FlopsConvention, 3> kFlopsConventionNames{{{{FlopsConvention::k6nd, "6nd"},
                                                                      {FlopsConvention::kChinchilla, "chinchilla"},
                                                                      {FlopsConvention::kMegatron, "megatron"}}}};

// Hoffmann et al. 2022 App. F: forward FLOPs of one sequence, by operation (all layers summed).
struct ChinchillaForward {
  double embeddings = 0;         // 2·s·V·d
  double qkv = 0;                // 2·3·s·d·(k·H) per layer
  double attention_logits = 0;   // 2·s²·(k·H)
  double softmax = 0;            // 3·H·s²
  double attention_reduce = 0;   // 2·s²·(k·H)
  double output_projection = 0;  // 2·s·(k·H)·d
  double dense = 0;              // 2·s·(2·d·ffw) (gated MLPs: 3 matrices)
  double final_logits = 0;       // 2·s·d·V
  double total(bool with_embeddings_and_logits = true) const {
    const double layers = qkv + attention_logits + softmax + attention_reduce + output_projection + dense;
    return layers + (with_embeddings_and_logits ? embeddings + final_logits : 0.0);
  }
};

ChinchillaForward chinchilla_forward_flops(const Architecture& architecture, long long seq);

// Training FLOPs per sequence in App. F's convention: backward = 2 × forward. Excluding embeddings and
// logits reproduces Table A4.
double chinchilla_training_flops_per_sequence(const Architecture& architecture, long long seq,
                                              bool with_embeddings_and_logits = true);

// Per iteration of `global_batch` sequences of `seq` tokens (dense GPT shapes, ffn = 4h):
// Narayanan eq. 3: 96·B·s·l·h²·(1 + s/6h + V/16lh) — includes the recompute forward (hardware FLOPs).
double narayanan_eq3_flops(const Architecture& architecture, long long global_batch, long long seq);
// Korthikanti eq. 7 (model FLOPs): 72·B·s·l·h²·(1 + s/6h + V/12hl).
double korthikanti_eq7_flops(const Architecture& architecture, long long global_batch, long long seq);
// Korthikanti eq. 8 (hardware FLOPs with selective recompute): 72·B·s·l·h²·(1 + s/3h + V/12hl).
double korthikanti_eq8_flops(const Architecture& architecture, long long global_batch, long long seq);

}  // namespace isoflop::model
