// Loading and splitting training data; the batch cursor.
#include "train/data.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "train/quanta_bayes.hpp"

namespace isoflop::train {
namespace {

uint64_t fnv1a(const std::vector<int32_t>& tokens) {
  uint64_t h = 1469598103934665603ULL;
  for (int32_t t : tokens)
    for (int k = 0; k < 4; ++k) {
      h ^= static_cast<uint8_t>(static_cast<uint32_t>(t) >> (8 * k));
      h *= 1099511628211ULL;
    }
  return h;
}

std::string read_file(const std::string& path) {
  // A regular file only: a folder fails mid-read, a FIFO blocks on open and a device (/dev/zero) never ends.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError("data.path: cannot read '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw InputError("data.path: '" + path + "' is " + (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") +
                     "; name a file of text or tokens");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("data.path: cannot read '" + path + "': " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError("data.path: cannot read '" + path + "': read error");
  return bytes;
}

int32_t le32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<uint8_t>(b[at + k])) << (8 * k);
  return static_cast<int32_t>(v);
}

std::vector<int32_t> decode_token_file(const std::string& bytes, const std::string& path) {
  const std::string what = "data.path: '" + path + "'";
  if (bytes.size() < 1024) throw InputError(what + " is not a token file: shorter than its 1024-byte header");
  if (le32(bytes, 0) != kTokenFileMagic)
    throw InputError(what + " is not a token file: magic " + std::to_string(le32(bytes, 0)) + ", expected " +
                     std::to_string(kTokenFileMagic));
  if (le32(bytes, 4) != kTokenFileVersion)
    throw InputError(what + ": token file version " + std::to_string(le32(bytes, 4)) + " is not supported (only " +
                     std::to_string(kTokenFileVersion) + ", uint16 ids)");
  const long long count = le32(bytes, 8);
  if (count < 0 || static_cast<long long>(bytes.size()) != 1024 + 2 * count)
    throw InputError(what + ": header says " + std::to_string(count) + " tokens but the file has " +
                     std::to_string(bytes.size()) + " bytes (expected 1024 + 2·count)");
  std::vector<int32_t> tokens(count);
  for (long long i = 0; i < count; ++i)
    tokens[i] = static_cast<uint8_t>(bytes[1024 + 2 * i]) | (static_cast<uint8_t>(bytes[1024 + 2 * i + 1]) << 8);
  return tokens;
}

}  // namespace

std::string encode_token_file(const std::vector<uint16_t>& tokens) {
  std::string out(1024 + 2 * tokens.size(), '\0');
  auto put32 = [&](size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) out[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
  };
  put32(0, static_cast<uint32_t>(kTokenFileMagic));
  put32(4, static_cast<uint32_t>(kTokenFileVersion));
  put32(8, static_cast<uint32_t>(tokens.size()));
  for (size_t i = 0; i < tokens.size(); ++i) {
    out[1024 + 2 * i] = static_cast<char>(tokens[i] & 0xff);
    out[1024 + 2 * i + 1] = static_cast<char>(tokens[i] >> 8);
  }
  return out;
}

Dataset load_dataset(const DataConfig& config, int vocab) {
  if (!(config.val_fraction > 0 && config.val_fraction < 1))
    throw InputError("data.val_fraction: " + std::to_string(config.val_fraction) + " must be in (0, 1)");
  Dataset data;
  data.vocab = vocab;
  std::vector<int32_t> corpus;
  std::optional<MarkovSource> source;
  switch (config.source) {
    case DataSource::kMarkov: {
      if (config.tokens <= 0) throw InputError("data.tokens: must be a positive token count");
      MarkovOptions options = config.markov;
      options.vocab = vocab;
      source.emplace(options);
      // The corpus seed differs from the structure seed so the same chain can be resampled.
      corpus = source->sample(config.tokens, options.seed ^ 0x5eed5eed5eedULL);
      data.entropy_rate = source->entropy_rate();
      data.description = "markov order " + std::to_string(options.order) + ", V " + std::to_string(vocab) +
                         ", branching " + std::to_string(options.branching) + ", " + std::to_string(config.tokens) +
                         " tokens";
      break;
    }
    case DataSource::kQuanta: {
      if (config.tokens <= 0) throw InputError("data.tokens: must be a positive token count");
      if (config.val_tokens < 2) throw InputError("data.val_tokens: must be at least 2 tokens");
      QuantaOptions options = config.quanta;
      options.vocab = vocab;
      data.quanta = std::make_shared<const QuantaSource>(options);
      // Training and held-out streams have seeds of their own, so the held-out tokens stay the same when
      // data.tokens grows and a longer corpus extends a shorter one.
      data.train = data.quanta->sample(config.tokens, options.seed ^ 0x7472a1e5eedULL);
      data.val = data.quanta->sample(config.val_tokens, options.seed ^ 0x7a15eedULL);
      char alpha[32];
      std::snprintf(alpha, sizeof alpha, "%g", options.alpha);
      data.description = "quanta " + std::to_string(options.skills) + " skills, alpha " + alpha + ", V " +
                         std::to_string(vocab) +
                         (options.alphabet > 0 ? ", alphabet " + std::to_string(options.alphabet) : std::string()) +
                         ", " + std::to_string(config.tokens) + " tokens";
      data.fingerprint = fnv1a(data.train) ^ (fnv1a(data.val) * 31);
      return data;
    }
    case DataSource::kText: {
      if (vocab < 256)
        throw InputError("model.vocab: " + std::to_string(vocab) + " is too small for data.source text (bytes need 256)");
      const std::string bytes = read_file(config.path);
      corpus.reserve(bytes.size());
      for (char c : bytes) corpus.push_back(static_cast<uint8_t>(c));
      data.description = "text '" + config.path + "' (" + std::to_string(bytes.size()) + " bytes)";
      break;
    }
    case DataSource::kTokens: {
      corpus = decode_token_file(read_file(config.path), config.path);
      for (size_t i = 0; i < corpus.size(); ++i)
        if (corpus[i] >= vocab)
          throw InputError("data.path: '" + config.path + "' token " + std::to_string(i) + " has id " +
                           std::to_string(corpus[i]) + " ≥ model.vocab " + std::to_string(vocab));
      data.description = "tokens '" + config.path + "' (" + std::to_string(corpus.size()) + " tokens)";
      break;
    }
  }
  data.fingerprint = fnv1a(corpus);
  const size_t n_val = static_cast<size_t>(static_cast<double>(corpus.size()) * config.val_fraction);
  if (n_val == 0 || n_val >= corpus.size())
    throw InputError("data.val_fraction: " + std::to_string(config.val_fraction) + " of " +
                     std::to_string(corpus.size()) + " tokens leaves an empty split");
  data.train.assign(corpus.begin(), corpus.end() - static_cast<long long>(n_val));
  data.val.assign(corpus.end() - static_cast<long long>(n_val), corpus.end());
  if (source) data.val_floor = source->cross_entropy(data.val);
  return data;
}

void measure_floor(Dataset* data, int seq, long long windows) {
  if (!data->quanta) return;
  QuantaPredictor predictor(*data->quanta);
  const FloorEstimate held_out = predictor.floor(data->val, seq, windows);
  data->val_floor = held_out.loss;
  data->val_floor_stderr = held_out.standard_error;
  // 2^18 fresh tokens put the expectation's standard error near 0.2 % at the default skills.
  const std::vector<int32_t> sample = data->quanta->sample((1 << 18) + 1, data->quanta->options().seed ^ 0xe57eedULL);
  const FloorEstimate expected = predictor.floor(sample, seq, static_cast<long long>(sample.size() - 1) / seq);
  data->entropy_rate = expected.loss;
  data->entropy_rate_stderr = expected.standard_error;
}

void next_batch(const std::vector<int32_t>& tokens, int batch, int seq, uint64_t* position, int32_t* inputs,
                int32_t* targets) {
  const uint64_t span = static_cast<uint64_t>(batch) * seq;
  if (*position + span + 1 > tokens.size()) *position = 0;
  const int32_t* base = tokens.data() + *position;
  for (uint64_t i = 0; i < span; ++i) {
    inputs[i] = base[i];
    targets[i] = base[i + 1];
  }
  *position += span;
}

}  // namespace isoflop::train
