// The job's identity fields as text, and the changes between two of them.
#include "train/job_changes.hpp"

#include <charconv>
#include <cstdio>

namespace isoflop::train {
namespace {

std::string exact(double v) {
  char text[32];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}

std::string hex(uint64_t v) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

std::vector<JobField> job_fields(const Job& job, uint64_t data_fingerprint) {
  const auto& m = job.model;
  const auto& t = job.train;
  const auto& d = job.data;
  std::vector<JobField> f = {
      {"model.layers", std::to_string(m.layers)},
      {"model.d_model", std::to_string(m.d_model)},
      {"model.heads", std::to_string(m.heads)},
      {"model.seq", std::to_string(m.seq)},
      {"model.vocab", std::to_string(m.vocab)},
      {"train.tokens", exact(t.tokens)},
      {"train.batch", std::to_string(t.batch)},
      {"train.lr", exact(t.lr)},
      {"train.warmup", exact(t.warmup_tokens)},
      {"train.min_lr_fraction", exact(t.min_lr_fraction)},
      {"train.weight_decay", exact(t.weight_decay)},
      {"train.clip", exact(t.clip)},
      {"train.beta1", exact(t.beta1)},
      {"train.beta2", exact(t.beta2)},
      {"train.eps", exact(t.eps)},
      {"train.seed", std::to_string(t.seed)},
      {"data.source", std::string(kDataSourceNames.name(d.source))},
  };
  if (d.source == DataSource::kMarkov) {
    f.push_back({"data.tokens", std::to_string(d.tokens)});
    f.push_back({"data.order", std::to_string(d.markov.order)});
    f.push_back({"data.branching", std::to_string(d.markov.branching)});
    f.push_back({"data.zipf", exact(d.markov.zipf)});
    f.push_back({"data.smoothing", exact(d.markov.smoothing)});
    f.push_back({"data.seed", std::to_string(d.markov.seed)});
  } else if (d.source == DataSource::kQuanta) {
    f.push_back({"data.tokens", std::to_string(d.tokens)});
    f.push_back({"data.val_tokens", std::to_string(d.val_tokens)});
    f.push_back({"data.skills", std::to_string(d.quanta.skills)});
    f.push_back({"data.alpha", exact(d.quanta.alpha)});
    f.push_back({"data.branching", std::to_string(d.quanta.branching)});
    f.push_back({"data.zipf", exact(d.quanta.zipf)});
    f.push_back({"data.segment", exact(d.quanta.segment)});
    f.push_back({"data.alphabet", std::to_string(d.quanta.alphabet)});
    f.push_back({"data.seed", std::to_string(d.quanta.seed)});
  } else {
    f.push_back({"data.path", d.path});
  }
  if (d.source != DataSource::kQuanta) f.push_back({"data.val_fraction", exact(d.val_fraction)});
  f.push_back({"data.content", hex(data_fingerprint)});
  return f;
}

std::vector<JobChange> job_changes(const std::vector<JobField>& before, const std::vector<JobField>& now, long long step) {
  const auto find = [](const std::vector<JobField>& fields, const std::string& name) -> const JobField* {
    for (const auto& f : fields)
      if (f.name == name) return &f;
    return nullptr;
  };
  std::vector<JobChange> changes;
  for (const auto& f : now) {
    const JobField* old = find(before, f.name);
    if (!old || old->value != f.value) changes.push_back({step, f.name, old ? old->value : "", f.value});
  }
  for (const auto& f : before)
    if (!find(now, f.name)) changes.push_back({step, f.name, f.value, ""});
  return changes;
}

bool change_allowed(const std::string& field) { return field.rfind("model.", 0) != 0 && field != "train.batch"; }

std::string describe(const std::vector<JobChange>& changes) {
  std::string text;
  for (const auto& c : changes) {
    if (!text.empty()) text += ", ";
    text += c.field + " " + (c.from.empty() ? "(none)" : c.from) + " → " + (c.to.empty() ? "(none)" : c.to);
  }
  return text;
}

}  // namespace isoflop::train
