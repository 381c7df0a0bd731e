// FLOP counting by named convention: 6·N·D; Hoffmann et al. 2022 App. F per-operation counts; Narayanan
// et al. 2021 eq. 3 (hardware FLOPs with the recompute forward) and Korthikanti et al. 2022 eq. 7 / eq. 8,
// generalised to grouped-query attention, gated MLPs and mixtures of experts.
#pragma once

#include "core/enum_names.hpp"
#include "model/architecture.hpp"

namespace isoflop::model {

ISOFLOP_NAMED_ENUM(FlopsConvention, (k6nd, "6nd"), (kChinchilla, "chinchilla"), (kMegatron, "megatron"));

// Activation recomputation (Korthikanti et al. 2022): none, the attention core only (selective), or the
// whole transformer layer (full). It changes the hardware FLOPs, never the model FLOPs.
ISOFLOP_NAMED_ENUM(Recompute, (kNone, "none"), (kSelective, "selective"), (kFull, "full"));

// Hoffmann et al. 2022 App. F: forward FLOPs of one sequence, by operation (all layers summed). A mixture of
// experts replaces the dense block of its MoE layers by the experts each token is routed to and a router.
struct ChinchillaForward {
  double embeddings = 0;         // 2·s·V·d
  double qkv = 0;                // 2·3·s·d·(k·H) per layer
  double attention_logits = 0;   // 2·s²·(k·H)
  double softmax = 0;            // 3·H·s²
  double attention_reduce = 0;   // 2·s²·(k·H)
  double output_projection = 0;  // 2·s·(k·H)·d
  double dense = 0;              // 2·s·(2·d·ffw) in dense layers (gated MLPs: 3 matrices)
  double experts = 0;            // MoE layers: (top-k × capacity factor + shared) experts' dense blocks
  double router = 0;             // MoE layers: 2·s·d·E (one logit per expert)
  double final_logits = 0;       // 2·s·d·V
  double attention_core() const { return attention_logits + softmax + attention_reduce; }
  double layers() const { return qkv + attention_core() + output_projection + dense + experts + router; }
  double total(bool with_embeddings_and_logits = true) const {
    return layers() + (with_embeddings_and_logits ? embeddings + final_logits : 0.0);
  }
};

ChinchillaForward chinchilla_forward_flops(const Architecture& architecture, long long seq);

// Training FLOPs per sequence in App. F's convention: backward = 2 × forward. Excluding embeddings and
// logits reproduces Table A4.
double chinchilla_training_flops_per_sequence(const Architecture& architecture, long long seq,
                                              bool with_embeddings_and_logits = true);

// The forward work recomputation repeats, per sequence, in App. F's operations: full recompute runs every
// layer's forward again; selective runs the attention core (logits, softmax, reduction) again.
double chinchilla_recompute_flops_per_sequence(const Architecture& architecture, long long seq, Recompute recompute);

// Megatron-style counts (GEMMs and attention scores; no norms or softmax) for `sequences` sequences of `seq`
// tokens, forward + backward (backward = 2 × forward), by part.
struct MegatronFlops {
  double attention_projections = 0;  // Q, K, V and output projections: 3 × 2·s·d·(2q + 2kv)
  double attention_scores = 0;       // Q·Kᵀ and scores·V: 3 × 4·s²·q
  double mlp = 0;                    // dense layers' MLPs: 3 × 2·s·d·f·matrices
  double experts = 0;                // MoE layers: (top-k × capacity factor + shared) experts' MLPs
  double router = 0;                 // MoE layers: 3 × 2·s·d·E
  double logits = 0;                 // 3 × 2·s·d·V
  double recompute = 0;              // extra work executed under the recompute mode (hardware only)
  double model() const { return attention_projections + attention_scores + mlp + experts + router + logits; }
  double hardware() const { return model() + recompute; }
};

// For a dense GPT block (multi-head attention, ffn = 4h, two MLP matrices) model() is Korthikanti eq. 7,
// hardware() with full recompute is Narayanan eq. 3 and with selective recompute Korthikanti eq. 8 (which
// charges the attention scores' forward-and-backward count once more).
MegatronFlops megatron_flops(const Architecture& architecture, double sequences, long long seq, Recompute recompute);

// Per iteration of `global_batch` sequences of `seq` tokens, the closed forms as published (dense GPT
// shapes, ffn = 4h):
// Narayanan eq. 3: 96·B·s·l·h²·(1 + s/6h + V/16lh) — includes the recompute forward (hardware FLOPs).
double narayanan_eq3_flops(const Architecture& architecture, long long global_batch, long long seq);
// Korthikanti eq. 7 (model FLOPs): 72·B·s·l·h²·(1 + s/6h + V/12hl).
double korthikanti_eq7_flops(const Architecture& architecture, long long global_batch, long long seq);
// Korthikanti eq. 8 (hardware FLOPs with selective recompute): 72·B·s·l·h²·(1 + s/3h + V/12hl).
double korthikanti_eq8_flops(const Architecture& architecture, long long global_batch, long long seq);

}  // namespace isoflop::model
