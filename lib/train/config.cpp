// Validation of the trainer's model shape.
#include "train/config.hpp"

#include "core/error.hpp"

namespace isoflop::train {
namespace {

void require_positive(long long value, const char* field) {
  if (value <= 0) throw InputError(std::string(field) + ": " + std::to_string(value) + " must be a positive integer");
}

}  // namespace

void ModelConfig::validate() const {
  require_positive(layers, "model.layers");
  require_positive(d_model, "model.d_model");
  require_positive(heads, "model.heads");
  require_positive(seq, "model.seq");
  require_positive(vocab, "model.vocab");
  if (d_model % heads != 0)
    throw InputError("model.d_model: " + std::to_string(d_model) + " is not divisible by model.heads " +
                     std::to_string(heads));
  // Sizes are held in 32-bit ints inside the kernels; keep every tensor dimension comfortably inside.
  if (d_model > 65536) throw InputError("model.d_model: " + std::to_string(d_model) + " exceeds 65536");
  if (seq > 65536) throw InputError("model.seq: " + std::to_string(seq) + " exceeds 65536");
  if (vocab > 1 << 24) throw InputError("model.vocab: " + std::to_string(vocab) + " exceeds 16777216");
}

std::string describe(const ModelConfig& c) {
  return std::to_string(c.layers) + " layers, d " + std::to_string(c.d_model) + ", " + std::to_string(c.heads) +
         " heads, seq " + std::to_string(c.seq) + ", vocab " + std::to_string(c.vocab);
}

}  // namespace isoflop::train
