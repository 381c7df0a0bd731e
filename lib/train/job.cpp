// Parsing, validating, echoing and exemplifying job files.
#include "train/job.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalog/field_reader.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/output_path.hpp"
#include "units/format.hpp"

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;

std::string resolve(const std::string& path, const std::string& job_file) {
  if (path.empty() || fs::path(path).is_absolute() || job_file.empty()) return path;
  return (fs::path(job_file).parent_path() / path).lexically_normal().string();
}

int int_field(catalog::FieldReader& r, const std::string& key) {
  const long long v = r.positive_integer(key);
  if (v > 1'000'000'000) r.fail(key, "is too large: " + std::to_string(v));
  return static_cast<int>(v);
}

template <typename E, size_t N>
E enum_field(catalog::FieldReader& r, const std::string& key, const EnumNames<E, N>& names, E fallback) {
  if (!r.has(key)) {
    (void)r.string_or(key, "");
    return fallback;
  }
  const std::string where = r.where(key);
  return names.parse(r.string(key), where + ": " + key);
}

// Why a token count past kMaxTokens is refused: "is too large: 1e200 tokens (at most 1e16)".
std::string too_many_tokens(double tokens) {
  return "is too large: " + units::format_scientific(tokens) + " tokens (at most " +
         units::format_scientific(kMaxTokens) + ")";
}

// Why a fractional token count is refused: "20000.5 is not a whole number of tokens".
std::string not_whole_tokens(double tokens) {
  return units::format_significant(tokens, 17) + " is not a whole number of tokens";
}

// A token count read from `key`: whole (a run reads whole tokens) and at most kMaxTokens (the step counts are
// whole numbers made from it).
double token_field(catalog::FieldReader& r, const std::string& key, double tokens) {
  if (tokens > kMaxTokens) r.fail(key, too_many_tokens(tokens));
  if (tokens != std::floor(tokens)) r.fail(key, not_whole_tokens(tokens));
  return tokens;
}

// The same bounds on a job built in code, where a NaN may reach it too.
void check_token_count(const std::string& name, double tokens) {
  if (std::isnan(tokens)) throw InputError(name + ": is not a number");
  if (tokens > kMaxTokens) throw InputError(name + ": " + too_many_tokens(tokens));
  if (tokens != std::floor(tokens)) throw InputError(name + ": " + not_whole_tokens(tokens));
}

}  // namespace

long long Job::warmup_steps() const {
  return static_cast<long long>(std::ceil(train.warmup_tokens / static_cast<double>(tokens_per_step())));
}

void Job::validate() const {
  model.validate();
  if (train.batch <= 0) throw InputError("train.batch: must be a positive integer");
  if (!(train.tokens > 0)) throw InputError("train.tokens: must be a positive token count");
  // Bounded first: the step counts below are whole numbers made from these.
  check_token_count("train.tokens", train.tokens);
  check_token_count("train.warmup", train.warmup_tokens);
  check_token_count("eval.tokens", eval.tokens);
  if (!(train.lr > 0)) throw InputError("train.lr: must be positive");
  if (steps() < 1)
    throw InputError("train.tokens: " + std::to_string(static_cast<long long>(train.tokens)) +
                     " is less than one step of train.batch × model.seq = " + std::to_string(tokens_per_step()) +
                     " tokens");
  if (warmup_steps() >= steps())
    throw InputError("train.warmup: " + std::to_string(static_cast<long long>(train.warmup_tokens)) +
                     " tokens cover every step; it must be shorter than train.tokens");
  if (!(train.min_lr_fraction >= 0 && train.min_lr_fraction <= 1))
    throw InputError("train.min_lr_fraction: must be in [0, 1]");
  if (!(train.beta1 >= 0 && train.beta1 < 1)) throw InputError("train.beta1: must be in [0, 1)");
  if (!(train.beta2 >= 0 && train.beta2 < 1)) throw InputError("train.beta2: must be in [0, 1)");
  if (!(train.eps > 0)) throw InputError("train.eps: must be positive");
  if (!(train.weight_decay >= 0)) throw InputError("train.weight_decay: must be ≥ 0");
  if (!(train.clip >= 0)) throw InputError("train.clip: must be ≥ 0 (0 disables clipping)");
  if (eval.every < 0) throw InputError("eval.every: must be ≥ 0");
  if (!(eval.tokens > 0)) throw InputError("eval.tokens: must be a positive token count");
  if (checkpoint.every < 0) throw InputError("checkpoint.every: must be ≥ 0");
  if ((data.source == DataSource::kText || data.source == DataSource::kTokens) && data.path.empty())
    throw InputError("data.path: is required for data.source " + std::string(kDataSourceNames.name(data.source)));
  if (data.source == DataSource::kMarkov) {
    MarkovOptions m = data.markov;
    m.vocab = model.vocab;
    m.validate();
  }
  if (data.source == DataSource::kQuanta) {
    QuantaOptions q = data.quanta;
    q.vocab = model.vocab;
    q.validate();
    if (data.val_tokens < tokens_per_step() + 1)
      throw InputError("data.val_tokens: " + std::to_string(data.val_tokens) + " is less than one batch of " +
                       std::to_string(tokens_per_step()) + " tokens + 1");
  }
  if (output.empty()) throw InputError("output (the job's, or --output): must name a results folder");
  if (is_temporary_name(fs::path(checkpoint.path).filename().string()))
    throw InputError("checkpoint.path: '" + checkpoint.path +
                     "' is named like a temporary file of an unfinished save, which is never read; name the checkpoint");
  if (threads < 0 || threads > kMaxThreads)
    throw InputError("threads: must be 0 (OpenMP's default) to " + std::to_string(kMaxThreads) + ", got " +
                     std::to_string(threads));
}

Job parse_job(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = catalog::load_one_document(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) throw InputError(file + ": the job file is empty");
  catalog::reject_duplicate_keys(root, file);
  catalog::FieldReader top(root, file, "job");
  Job job;
  job.file = file;

  catalog::FieldReader m(top.child("model"), file, "section 'model'");
  job.model.layers = int_field(m, "layers");
  job.model.d_model = int_field(m, "d_model");
  job.model.heads = int_field(m, "heads");
  job.model.seq = int_field(m, "seq");
  job.model.vocab = int_field(m, "vocab");
  m.finish();
  if (job.model.d_model % job.model.heads != 0)
    m.fail("heads", "d_model " + std::to_string(job.model.d_model) + " is not divisible by heads " +
                        std::to_string(job.model.heads));

  catalog::FieldReader t(top.child("train"), file, "section 'train'");
  job.train.tokens = token_field(t, "tokens", t.positive("tokens"));  // sizes the quanta corpus below
  job.train.batch = int_field(t, "batch");
  job.train.lr = t.positive("lr");
  job.train.warmup_tokens = token_field(t, "warmup", t.non_negative_or("warmup", 0));
  job.train.min_lr_fraction = t.non_negative_or("min_lr_fraction", job.train.min_lr_fraction);
  job.train.weight_decay = t.non_negative_or("weight_decay", job.train.weight_decay);
  job.train.clip = t.non_negative_or("clip", job.train.clip);
  job.train.beta1 = t.positive_or("beta1", job.train.beta1);
  job.train.beta2 = t.positive_or("beta2", job.train.beta2);
  job.train.eps = t.positive_or("eps", job.train.eps);
  job.train.seed = static_cast<unsigned long long>(t.non_negative_integer_or("seed", 1));
  t.finish();

  catalog::FieldReader d(top.child("data"), file, "section 'data'");
  job.data.source = enum_field(d, "source", kDataSourceNames, DataSource::kMarkov);
  if (!d.has("source")) d.fail("source", "is missing (required); accepted: " + join(kDataSourceNames.names()));
  if (job.data.source == DataSource::kMarkov) {
    job.data.tokens = d.positive_integer_or("tokens", job.data.tokens);
    job.data.markov.order = d.int_in_or("order", 1, 64, 1);
    job.data.markov.branching = d.int_in_or("branching", 1, 1 << 20, 8);
    job.data.markov.zipf = d.non_negative_or("zipf", 1.0);
    job.data.markov.smoothing = d.non_negative_or("smoothing", 0.01);
    job.data.markov.seed = static_cast<uint64_t>(d.non_negative_integer_or("seed", 1));
  } else if (job.data.source == DataSource::kQuanta) {
    // Every training token fresh by default: the corpus is as long as training reads (+1 for the last target).
    job.data.tokens = d.positive_integer_or("tokens", static_cast<long long>(job.train.tokens) + 1);
    job.data.val_tokens = d.positive_integer_or("val_tokens", job.data.val_tokens);
    QuantaOptions& q = job.data.quanta;
    q.skills = d.int_in_or("skills", 1, 1 << 24, q.skills);
    q.alpha = d.non_negative_or("alpha", q.alpha);
    q.branching = d.int_in_or("branching", 1, 65535, q.branching);
    q.zipf = d.non_negative_or("zipf", q.zipf);
    q.segment = d.positive_or("segment", q.segment);
    q.alphabet = d.int_in_or("alphabet", 0, 65535, q.alphabet);
    q.seed = static_cast<uint64_t>(d.non_negative_integer_or("seed", 1));
  } else {
    job.data.path = resolve(d.string("path"), file);
  }
  if (job.data.source != DataSource::kQuanta) {
    // Some of the corpus held out, and some left to train on: strictly between 0 and 1.
    job.data.val_fraction = d.has("val_fraction") ? d.number("val_fraction") : 0.1;
    if (!(job.data.val_fraction > 0 && job.data.val_fraction < 1))
      d.fail("val_fraction", "must be a fraction in (0, 1): some of the corpus held out, the rest trained on; got " +
                                 units::format_significant(job.data.val_fraction, 6));
  }
  d.finish();

  job.backend = enum_field(top, "backend", kBackendKindNames, BackendKind::kAuto);
  if (top.has("precision")) job.precision = enum_field(top, "precision", kPrecisionNames, Precision::kFp32);
  else (void)top.string_or("precision", "");
  const long long threads = top.non_negative_integer_or("threads", 0);
  if (threads > kMaxThreads)
    top.fail("threads", "is too large: " + std::to_string(threads) + " (0 means OpenMP's default, at most " +
                            std::to_string(kMaxThreads) + ")");
  job.threads = static_cast<int>(threads);

  if (auto e = top.optional_child("eval")) {
    catalog::FieldReader r(*e, file, "section 'eval'");
    job.eval.every = r.non_negative_integer_or("every", 0);
    job.eval.tokens = token_field(r, "tokens", r.positive_or("tokens", job.eval.tokens));
    r.finish();
  }
  std::string stem = fs::path(file).stem().string();
  if (stem.empty()) stem = "train";
  job.output = resolve(top.string_or("output", stem + "-run"), file);
  if (auto c = top.optional_child("checkpoint")) {
    catalog::FieldReader r(*c, file, "section 'checkpoint'");
    job.checkpoint.every = r.non_negative_integer_or("every", 0);
    job.checkpoint.path = resolve(r.string_or("path", ""), file);
    r.finish();
  }
  if (job.checkpoint.path.empty()) job.checkpoint.path = (fs::path(job.output) / "checkpoint.bin").string();
  job.peak_device = top.string_or("peak_device", "");
  top.finish();
  try {
    job.validate();
  } catch (const CatalogError&) {
    throw;
  } catch (const InputError& e) {
    throw InputError(file + ": " + e.what());
  }
  return job;
}

Job load_job(const std::string& path) {
  // read_input_text refuses a folder and a device that never ends, and notes the file as an input: no output
  // may replace the job file (nor, below, its data).
  Job job = parse_job(read_input_text(path), path);
  note_input(job.data.path);
  return job;
}

void Job::set_output(const std::string& folder) {
  if (checkpoint.path == (fs::path(output) / "checkpoint.bin").string())
    checkpoint.path = (fs::path(folder) / "checkpoint.bin").string();
  output = folder;
}

std::string example_job_text() {
  return R"(# isoflop train job: a tiny GPT on the embedded markov source (known entropy floor).
# Run it with `isoflop train job.yaml`; continue an interrupted run with `isoflop train job.yaml --resume`.
model:
  layers: 2          # transformer blocks
  d_model: 64        # channels; must be divisible by heads
  heads: 4           # attention heads
  seq: 64            # context length (tokens per sequence)
  vocab: 64          # vocabulary; markov uses it as its alphabet, text needs >= 256, tokens > largest id
train:
  tokens: 2M         # total training tokens; the cosine schedule ends exactly here
  batch: 16          # sequences per step (tokens per step = batch x seq)
  lr: 3e-3           # peak learning rate
  warmup: 64k        # linear warm-up, in tokens
  min_lr_fraction: 0.1   # cosine decays to 10 % of lr (Chinchilla)
  weight_decay: 0.1  # AdamW, on matrices and embeddings only
  clip: 1.0          # global gradient-norm clip (0 disables)
  beta1: 0.9
  beta2: 0.95
  seed: 1            # initialisation seed; same seed, same thread count -> same losses
data:
  source: markov     # markov | quanta | text (any file as bytes) | tokens (uint16 ids after a 1024-byte header)
  tokens: 1M         # markov: corpus length drawn from the source
  order: 1           # markov: next token depends on the previous `order` tokens
  branching: 8       # markov: successors per context, Zipf-weighted
  zipf: 1.0          # markov: Zipf exponent of the successor weights
  smoothing: 0.01    # markov: probability spread uniformly over the vocabulary
  seed: 1            # markov: which random chain
  # source: quanta   # skills with Zipf frequencies; the loss falls as a power law toward a known floor
  # tokens: 2M       # quanta: training tokens drawn (default: train.tokens + 1, every token fresh)
  # val_tokens: 65537  # quanta: held-out tokens, a stream of their own
  # skills: 16384    # quanta: K skills, each `branching` random permutations of tokens 1..vocab-1
  # alpha: 0.5       # quanta: skill i is used with probability proportional to i^-(1+alpha)
  # branching: 4     # quanta: successors of a token within a skill, Zipf-weighted by `zipf`
  # segment: 32      # quanta: mean body tokens per segment (token 0 separates segments)
  # alphabet: 0      # quanta: body tokens per skill, a random subset each (0: all of 1..vocab-1)
  # path: corpus.txt # text/tokens: the file, relative to this job file
  val_fraction: 0.1  # markov/text/tokens: the last 10 % of the corpus is validation; training walks the rest
backend: auto        # auto (CUDA when a device is present) | cpu | cuda
# precision: bf16    # cuda: bf16 (default) or fp32; the CPU runs fp32
threads: 0           # cpu: threads (0: OMP_NUM_THREADS or every core); results repeat for a given count
eval:
  every: 200         # steps between validation evaluations (0: only at the end)
  tokens: 64k        # validation tokens per evaluation
checkpoint:
  every: 500         # steps between checkpoints (0: only on Ctrl-C and at the end)
  # path: run/checkpoint.bin   # default: <output>/checkpoint.bin
output: run          # folder for results.json, loss_curve.csv and the checkpoint
# peak_device: h100-sxm5-80gb  # catalog accelerator for MFU (default: detected from the device name)
)";
}

}  // namespace isoflop::train
