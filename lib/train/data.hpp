// Training data: the embedded markov or quanta source, any file as bytes (text), or a token file; a
// deterministic train/validation split; and the batch cursor whose position a checkpoint saves.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "train/markov.hpp"
#include "train/quanta.hpp"

namespace isoflop::train {

ISOFLOP_NAMED_ENUM(DataSource, (kMarkov, "markov"), (kQuanta, "quanta"), (kText, "text"), (kTokens, "tokens"));

struct DataConfig {
  DataSource source = DataSource::kMarkov;
  std::string path;              // text/tokens: the file (relative paths are relative to the job file)
  long long tokens = 1'000'000;  // markov: corpus length; quanta: training tokens drawn from the source
  MarkovOptions markov;          // markov: the source (its vocab is model.vocab)
  QuantaOptions quanta;          // quanta: the source (its vocab is model.vocab)
  long long val_tokens = 65537;  // quanta: held-out tokens, a stream of their own (the same for any data.tokens)
  double val_fraction = 0.1;     // markov, text, tokens: the LAST fraction of the corpus is validation
  bool operator==(const DataConfig&) const = default;
};

struct Dataset {
  std::vector<int32_t> train;          // training split, in corpus order
  std::vector<int32_t> val;            // validation split
  int vocab = 0;                       // ids are < vocab
  std::optional<double> entropy_rate;  // markov: the exact loss floor; quanta: its expectation at model.seq
  std::optional<double> entropy_rate_stderr;  // quanta: standard error of that large-sample estimate
  std::optional<double> val_floor;     // the true source's cross-entropy on the validation split (quanta: on
                                       // the windows the evaluation reads, each predicted from its prefix)
  std::optional<double> val_floor_stderr;  // quanta: standard error of val_floor as an estimate of entropy_rate
  std::shared_ptr<const QuantaSource> quanta;  // quanta: the source, for measure_floor
  std::string description;             // "markov order 1, V 64, 1000000 tokens", "text 'a.txt' (1.2 MB)"
  uint64_t fingerprint = 0;            // FNV-1a of the corpus; checkpoints must match it
};

// Builds or reads the corpus and splits it. Throws InputError naming data.path for an unreadable or malformed
// file and data.val_fraction for a split that leaves either side empty.
Dataset load_dataset(const DataConfig& config, int vocab);

// Quanta: the Bayes-optimal loss on the first `windows` validation windows of seq + 1 tokens (as evaluation
// reads them) into data->val_floor, and the expected floor at this seq into data->entropy_rate, each with its
// standard error. Does nothing for the other sources.
void measure_floor(Dataset* data, int seq, long long windows);

// Token file format (llm.c's .bin shards, training.md §1.5): a 256 × int32 little-endian header with
// header[0] = 20240520 (magic), header[1] = 1 (version), header[2] = token count, then count little-endian
// uint16 ids; the file size must be exactly 1024 + 2·count bytes.
inline constexpr int32_t kTokenFileMagic = 20240520;
inline constexpr int32_t kTokenFileVersion = 1;
std::string encode_token_file(const std::vector<uint16_t>& tokens);

// Fills (batch, seq) inputs and next-token targets from `tokens` at `*position`, then advances the position
// by batch·seq; wraps to 0 when the next batch would run past the end (a new epoch). Needs
// tokens.size() ≥ batch·seq + 1.
void next_batch(const std::vector<int32_t>& tokens, int batch, int seq, uint64_t* position, int32_t* inputs,
                int32_t* targets);

}  // namespace isoflop::train
