// The trainer's model shape and the enums every layer of it shares (backend, precision).
#pragma once

#include <cstddef>
#include <string>

#include "core/enum_names.hpp"

namespace isoflop::train {

// Where the training step runs. kAuto picks CUDA when a device is present (and says so).
ISOFLOP_NAMED_ENUM(BackendKind, (kAuto, "auto"), (kCpu, "cpu"), (kCuda, "cuda"));

// Number format of the GEMMs. fp32 everywhere on the CPU; on CUDA bf16 inputs with fp32 accumulation and
// fp32 master weights (llm.c's mixed precision, training.md §1.3), or fp32 for parity tests.
ISOFLOP_NAMED_ENUM(Precision, (kFp32, "fp32"), (kBf16, "bf16"));

// A GPT-2-style decoder: learned token and position embeddings, pre-LayerNorm blocks with causal multi-head
// attention and a GELU MLP of 4·d_model, a final LayerNorm and an LM head tied to the token embedding.
struct ModelConfig {
  int layers = 0;   // transformer blocks
  int d_model = 0;  // channels C
  int heads = 0;    // attention heads; d_model must be divisible by heads
  int seq = 0;      // context length T (also the size of the position table)
  int vocab = 0;    // vocabulary size V

  int head_size() const { return heads > 0 ? d_model / heads : 0; }
  int ffn() const { return 4 * d_model; }

  // Throws InputError naming the field ("model.heads"), its value and the rule.
  void validate() const;

  // Written out (not defaulted) because the CUDA sources that include this header compile as C++17.
  bool operator==(const ModelConfig& o) const {
    return layers == o.layers && d_model == o.d_model && heads == o.heads && seq == o.seq && vocab == o.vocab;
  }
};

// "2 layers, d 32, 4 heads, seq 16, vocab 64" — for messages.
std::string describe(const ModelConfig& config);

}  // namespace isoflop::train
