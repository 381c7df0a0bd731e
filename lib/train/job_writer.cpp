// A Job written as job-file YAML, key by key as parse_job reads them.
#include "train/job_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;

// A path as the job file names it: relative to the job file's folder, as parse_job resolves it.
std::string relative_to(const std::string& path, const std::string& job_file) {
  if (path.empty() || job_file.empty() || fs::path(path).is_absolute()) return path;
  const fs::path folder = fs::path(job_file).parent_path();
  return fs::path(path).lexically_relative(folder.empty() ? fs::path(".") : folder).string();
}

template <class T>
void key(YAML::Emitter& y, const char* name, const T& value) {
  y << YAML::Key << name << YAML::Value << value;
}
// The shortest text that reads back as the same double (0.1, not 0.10000000000000001).
void key(YAML::Emitter& y, const char* name, double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  y << YAML::Key << name << YAML::Value << std::string(text, end);
}

void write_data(YAML::Emitter& y, const DataConfig& d, const std::string& job_file) {
  y << YAML::Key << "data" << YAML::Value << YAML::BeginMap;
  key(y, "source", std::string(kDataSourceNames.name(d.source)));
  if (d.source == DataSource::kMarkov) {
    key(y, "tokens", d.tokens);
    key(y, "order", d.markov.order);
    key(y, "branching", d.markov.branching);
    key(y, "zipf", d.markov.zipf);
    key(y, "smoothing", d.markov.smoothing);
    key(y, "seed", static_cast<unsigned long long>(d.markov.seed));
  } else if (d.source == DataSource::kQuanta) {
    key(y, "tokens", d.tokens);
    key(y, "val_tokens", d.val_tokens);
    key(y, "skills", d.quanta.skills);
    key(y, "alpha", d.quanta.alpha);
    key(y, "branching", d.quanta.branching);
    key(y, "zipf", d.quanta.zipf);
    key(y, "segment", d.quanta.segment);
    key(y, "alphabet", d.quanta.alphabet);
    key(y, "seed", static_cast<unsigned long long>(d.quanta.seed));
  } else {
    key(y, "path", relative_to(d.path, job_file));
  }
  if (d.source != DataSource::kQuanta) key(y, "val_fraction", d.val_fraction);
  y << YAML::EndMap;
}

}  // namespace

std::string job_yaml(const Job& job, const std::string& job_file) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
  key(y, "layers", job.model.layers);
  key(y, "d_model", job.model.d_model);
  key(y, "heads", job.model.heads);
  key(y, "seq", job.model.seq);
  key(y, "vocab", job.model.vocab);
  y << YAML::EndMap;
  const TrainOptions& t = job.train;
  y << YAML::Key << "train" << YAML::Value << YAML::BeginMap;
  key(y, "tokens", t.tokens);
  key(y, "batch", t.batch);
  key(y, "lr", t.lr);
  key(y, "warmup", t.warmup_tokens);
  key(y, "min_lr_fraction", t.min_lr_fraction);
  key(y, "weight_decay", t.weight_decay);
  key(y, "clip", t.clip);
  key(y, "beta1", t.beta1);
  key(y, "beta2", t.beta2);
  key(y, "eps", t.eps);
  key(y, "seed", t.seed);
  y << YAML::EndMap;
  write_data(y, job.data, job_file);
  key(y, "backend", std::string(kBackendKindNames.name(job.backend)));
  if (job.precision) key(y, "precision", std::string(kPrecisionNames.name(*job.precision)));
  key(y, "threads", job.threads);
  y << YAML::Key << "eval" << YAML::Value << YAML::BeginMap;
  key(y, "every", job.eval.every);
  key(y, "tokens", job.eval.tokens);
  y << YAML::EndMap;
  y << YAML::Key << "checkpoint" << YAML::Value << YAML::BeginMap;
  key(y, "every", job.checkpoint.every);
  if (job.checkpoint.path != (fs::path(job.output) / "checkpoint.bin").string())
    key(y, "path", relative_to(job.checkpoint.path, job_file));
  y << YAML::EndMap;
  key(y, "output", relative_to(job.output, job_file));
  if (!job.peak_device.empty()) key(y, "peak_device", job.peak_device);
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace isoflop::train
