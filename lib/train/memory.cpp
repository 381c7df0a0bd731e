// Counting a job's host memory from its shapes (the sizes cpu::Gpt, the checkpoint and the data loader
// allocate), and reading what the machine has left.
#include "train/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "train/checkpoint.hpp"

namespace isoflop::train {
namespace {

constexpr double kFloat = sizeof(float);

// The loss curve a checkpoint reserves and encodes: a point per planned step, so fewer with a larger batch.
double curve_bytes(const Job& job, double batch) {
  return 2 * sizeof(CurvePoint) * std::floor(job.train.tokens / (batch * job.model.seq));
}

// What the process holds already (its resident set), which a limit on the whole process counts too.
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0, resident = 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  return statm >> pages >> resident && page > 0 ? resident * static_cast<double>(page) : 0;
}
constexpr double kToken = sizeof(int32_t);

std::string gib(double bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = bytes / 1024;
  int unit = 0;
  for (; value >= 1024 && unit < 5; ++unit) value /= 1024;
  char text[48];
  std::snprintf(text, sizeof text, "%.3g %s", value, kUnits[unit]);
  return text;
}

// Parameters of the GPT-2 model of train/layout.cpp, counted in floating point: per layer 12C² + 13C (qkv,
// projections, MLP, biases, two LayerNorms), embeddings V·C + T·C, the final LayerNorm 2C.
double parameter_count(const ModelConfig& m) {
  const double C = m.d_model, L = m.layers;
  return m.vocab * C + m.seq * C + L * (12 * C * C + 13 * C) + 2 * C;
}

double file_bytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(size);
}

// The corpus at its peak while it is loaded: the file's bytes, the decoded tokens and the two split copies;
// for markov the source's successor and weight tables and its power-iteration vectors, and the sample; for
// quanta its tables and streams.
double data_bytes(const DataConfig& d, int vocab) {
  switch (d.source) {
    case DataSource::kMarkov: {
      const double contexts = std::pow(static_cast<double>(vocab), d.markov.order);
      const double tables = contexts * d.markov.branching * (sizeof(int32_t) + sizeof(double)) +
                            contexts * 2 * sizeof(double) + vocab * kToken;
      return tables + 2 * kToken * static_cast<double>(d.tokens);
    }
    case DataSource::kQuanta: {
      // The successor table (uint16), the predictor's transition index (skill id and float probability per
      // entry) and its (V−1)² mixture, the two streams and the floor's sample of 2^18 tokens.
      const double entries = static_cast<double>(d.quanta.skills) * (vocab - 1) * d.quanta.branching;
      const double tables = entries * (sizeof(uint16_t) + sizeof(int32_t) + sizeof(float)) +
                            static_cast<double>(vocab) * vocab * (sizeof(double) + sizeof(int64_t)) +
                            d.quanta.skills * (2 * sizeof(double) + sizeof(int32_t) + sizeof(double));
      return tables + kToken * (static_cast<double>(d.tokens) + static_cast<double>(d.val_tokens) + (1 << 18));
    }
    case DataSource::kText: return file_bytes(d.path) * (1 + 2 * kToken);
    case DataSource::kTokens: {
      const double bytes = file_bytes(d.path);
      return bytes + 2 * kToken * std::max(0.0, (bytes - 1024) / 2);
    }
  }
  return 0;
}

}  // namespace

std::string MemoryEstimate::describe() const {
  const std::pair<const char*, double> parts[] = {
      {"weights", weights_bytes},         {"gradients", gradients_bytes}, {"AdamW moments", optimizer_bytes},
      {"activations", activations_bytes}, {"data", data_bytes},           {"checkpoint copies", checkpoint_bytes}};
  std::string text = gib(total_bytes()) + " (";
  bool first = true;
  for (const auto& [name, bytes] : parts) {
    if (bytes <= 0) continue;
    text += (first ? "" : ", ") + std::string(name) + " " + gib(bytes);
    first = false;
  }
  return text + ")";
}

double activation_elements(const ModelConfig& m, int batch) {
  const double L = m.layers, C = m.d_model, V = m.vocab, NH = m.heads, T = m.seq, B = batch, BT = B * T;
  // Per layer: ln1, qkv (3C), atty, attproj, residual2, ln2, fch (4C), fch_gelu (4C), fcproj, residual3 = 18·BT·C,
  // four LayerNorm statistics of BT, and the attention matrix B·NH·T². Outside the layers: the encoding and the
  // final LayerNorm (2·BT·C), its statistics and the losses (3·BT), and the logits (BT·V).
  return BT * C * (2 + 18 * L) + L * (4 * BT + B * NH * T * T) + BT * (3 + V);
}

MemoryEstimate estimate_memory(const Job& job, BackendKind backend) {
  const double params = parameter_count(job.model);
  MemoryEstimate e;
  if (backend != BackendKind::kCuda) {
    e.weights_bytes = kFloat * params;
    e.gradients_bytes = kFloat * params;
    e.optimizer_bytes = 2 * kFloat * params;
    e.activations_bytes = 2 * kFloat * activation_elements(job.model, job.train.batch);
  }
  e.data_bytes = data_bytes(job.data, job.model.vocab);
  // A save copies parameters and both moments out of the backend, then encodes them (3 + 3 floats a
  // parameter); the loss curve is reserved for every planned step and encoded with them.
  e.checkpoint_bytes = 6 * kFloat * params + curve_bytes(job, job.train.batch);
  return e;
}

AvailableMemory available_memory() {
  AvailableMemory a;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double kib = 0;
    if (fields >> kib && kib > 0) a = {kib * 1024, "MemAvailable"};
    break;
  }
  if (a.bytes <= 0) {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) a = {static_cast<double>(pages) * static_cast<double>(page), "available pages"};
  }
  // A container's cgroup v2 limit: what is left under memory.max ("max" when unlimited).
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
  double limit = 0, current = 0;
  if (max_file >> limit && current_file >> current && limit > current && (a.bytes <= 0 || limit - current < a.bytes))
    a = {limit - current, "the cgroup's memory.max"};
  return a;
}

std::string memory_advice(const Job& job, BackendKind backend, double limit, double held) {
  if (held >= limit) return "a larger --max-memory: this process holds " + gib(held) + " before the job";
  const MemoryEstimate e = estimate_memory(job, backend);
  // The corpus first, when it is the largest part (beside the model and its checkpoint copies without the curve).
  const double job_curve = curve_bytes(job, job.train.batch);
  const double model = e.weights_bytes + e.gradients_bytes + e.optimizer_bytes + e.checkpoint_bytes - job_curve;
  if (e.data_bytes > model && e.data_bytes > e.activations_bytes)
    return "a smaller corpus (" + std::string(job.data.path.empty() ? "data.tokens" : "data.path") + ")";
  // What would fit. Of the parts only the activations (up) and the checkpoint's curve (down) move with the batch:
  // the need is convex in it, so a ternary search finds the batch that needs least, and a bisection on either
  // side of it the fitting batch nearest the job's.
  const bool host_model = backend != BackendKind::kCuda;
  const double fixed = held + e.total_bytes() - e.activations_bytes - job_curve;
  const auto need = [&](long long batch) {
    const double activations = host_model ? 2 * kFloat * activation_elements(job.model, static_cast<int>(batch)) : 0.0;
    return fixed + activations + curve_bytes(job, static_cast<double>(batch));
  };
  constexpr long long kMostSequences = 1 << 20;
  long long lo = 1, hi = std::max<long long>(kMostSequences, job.train.batch);
  while (hi - lo > 2) {
    const long long a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (need(a) <= need(b))
      hi = b;
    else
      lo = a;
  }
  long long least = lo;
  for (long long b = lo + 1; b <= hi; ++b)
    if (need(b) < need(least)) least = b;
  if (need(least) <= limit && least < job.train.batch) {
    long long fits = least, over = job.train.batch;  // need rises from `least` to the job's batch
    while (over - fits > 1) {
      const long long mid = fits + (over - fits) / 2;
      (need(mid) <= limit ? fits : over) = mid;
    }
    return "train.batch " + std::to_string(fits) + " (the largest that fits; the activations grow with it)";
  }
  if (need(least) <= limit) {
    long long fits = least, over = job.train.batch;  // need falls from the job's batch to `least`
    while (fits - over > 1) {
      const long long mid = over + (fits - over) / 2;
      (need(mid) <= limit ? fits : over) = mid;
    }
    return "train.batch " + std::to_string(fits) +
           " (the smallest that fits: fewer steps, and the checkpoint keeps a curve point for each), or fewer "
           "train.tokens";
  }
  // No batch: the model. The deepest that fits at the batch that needs least, else a narrower one.
  Job shallower = job;
  shallower.train.batch = static_cast<int>(least);
  const auto fits_layers = [&](int layers) {
    shallower.model.layers = layers;
    return held + estimate_memory(shallower, backend).total_bytes() <= limit;
  };
  if (job.model.layers > 1 && fits_layers(1)) {
    int deep = 1, over = job.model.layers;
    while (over - deep > 1) {
      const int mid = deep + (over - deep) / 2;
      (fits_layers(mid) ? deep : over) = mid;
    }
    return "model.layers " + std::to_string(deep) + " or fewer, at train.batch " + std::to_string(least);
  }
  return "a narrower model (model.d_model " + std::to_string(job.model.d_model) + ", model.vocab " +
         std::to_string(job.model.vocab) + ", model.seq " + std::to_string(job.model.seq) +
         "): no depth or batch fits at this width";
}

void require_memory(const Job& job, BackendKind backend, double max_memory_bytes) {
  const MemoryEstimate e = estimate_memory(job, backend);
  double limit = max_memory_bytes, held = 0;
  std::string whose = "allowed";
  if (limit <= 0) {  // what is available is what the process does not hold yet
    const AvailableMemory a = available_memory();
    limit = a.bytes;
    whose = "available (" + a.source + ")";
  } else {  // a limit on the process counts what it holds already
    held = resident_bytes();
  }
  if (limit <= 0 || held + e.total_bytes() <= limit) return;
  const std::string room = held > 0 ? gib(std::max(0.0, limit - held)) + " left of the " + gib(limit) + " " + whose +
                                          " (this process holds " + gib(held) + ")"
                                    : gib(limit) + " " + whose;
  const std::string message = "the job needs about " + e.describe() + " of memory, more than the " + room + "; use " +
                              memory_advice(job, backend, limit, held);
  if (max_memory_bytes > 0) throw FieldError("max_memory", message);
  throw InputError("train: " + message);
}

}  // namespace isoflop::train
