// The `train` document: JSON of the job, the result and the curve.
#include "doc/train_document.hpp"

#include <cmath>

namespace isoflop::train {

using doc::Json;
using doc::or_null;
using doc::read;

namespace {

// Token and byte counts are integers in JSON (a fractional one stays a number).
Json count_json(double v) {
  return std::floor(v) == v && std::abs(v) < 9e18 ? Json(static_cast<long long>(v)) : Json(v);
}
std::optional<std::string> non_empty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

Json data_json(const DataConfig& d) {
  Json markov = nullptr;
  if (d.source == DataSource::kMarkov)
    markov = {{"tokens", d.tokens}, {"order", d.markov.order}, {"branching", d.markov.branching},
              {"zipf", d.markov.zipf}, {"smoothing", d.markov.smoothing}, {"seed", d.markov.seed}};
  return {{"source", doc::enum_json(d.source, kDataSourceNames)}, {"path", or_null(non_empty(d.path))},
          {"markov", markov}, {"val_fraction", d.val_fraction}};
}
void read_data(const Json& j, DataConfig& d) {
  doc::read_enum(j, "source", kDataSourceNames, d.source);
  std::optional<std::string> path;
  read(j, "path", path);
  d.path = path.value_or("");
  if (const Json& m = j.at("markov"); !m.is_null()) {
    read(m, "tokens", d.tokens);
    read(m, "order", d.markov.order);
    read(m, "branching", d.markov.branching);
    read(m, "zipf", d.markov.zipf);
    read(m, "smoothing", d.markov.smoothing);
    read(m, "seed", d.markov.seed);
  }
  read(j, "val_fraction", d.val_fraction);
}

}  // namespace

void to_json(Json& j, const Job& job) {
  const auto& t = job.train;
  j = Json{{"job", job.file},
           {"model", {{"layers", job.model.layers}, {"d_model", job.model.d_model}, {"heads", job.model.heads},
                      {"seq", job.model.seq}, {"vocab", job.model.vocab}}},
           {"train", {{"tokens", count_json(t.tokens)}, {"batch", t.batch}, {"lr", t.lr},
                      {"warmup_tokens", count_json(t.warmup_tokens)}, {"min_lr_fraction", t.min_lr_fraction},
                      {"weight_decay", t.weight_decay}, {"clip", t.clip}, {"beta1", t.beta1}, {"beta2", t.beta2},
                      {"eps", t.eps}, {"seed", t.seed}}},
           {"data", data_json(job.data)},
           {"backend", doc::enum_json(job.backend, kBackendKindNames)},
           {"precision", job.precision ? doc::enum_json(*job.precision, kPrecisionNames) : Json(nullptr)},
           {"threads", job.threads},
           {"eval", {{"every", job.eval.every}, {"tokens", count_json(job.eval.tokens)}}},
           {"checkpoint", {{"every", job.checkpoint.every}, {"path", job.checkpoint.path}}},
           {"output", job.output},
           {"peak_device", or_null(non_empty(job.peak_device))}};
}

void from_json(const Json& j, Job& job) {
  read(j, "job", job.file);
  const Json& m = j.at("model");
  read(m, "layers", job.model.layers);
  read(m, "d_model", job.model.d_model);
  read(m, "heads", job.model.heads);
  read(m, "seq", job.model.seq);
  read(m, "vocab", job.model.vocab);
  const Json& t = j.at("train");
  read(t, "tokens", job.train.tokens);
  read(t, "batch", job.train.batch);
  read(t, "lr", job.train.lr);
  read(t, "warmup_tokens", job.train.warmup_tokens);
  read(t, "min_lr_fraction", job.train.min_lr_fraction);
  read(t, "weight_decay", job.train.weight_decay);
  read(t, "clip", job.train.clip);
  read(t, "beta1", job.train.beta1);
  read(t, "beta2", job.train.beta2);
  read(t, "eps", job.train.eps);
  read(t, "seed", job.train.seed);
  read_data(j.at("data"), job.data);
  doc::read_enum(j, "backend", kBackendKindNames, job.backend);
  if (j.at("precision").is_null()) job.precision.reset();
  else doc::read_enum(j, "precision", kPrecisionNames, job.precision.emplace());
  read(j, "threads", job.threads);
  read(j.at("eval"), "every", job.eval.every);
  read(j.at("eval"), "tokens", job.eval.tokens);
  read(j.at("checkpoint"), "every", job.checkpoint.every);
  read(j.at("checkpoint"), "path", job.checkpoint.path);
  read(j, "output", job.output);
  std::optional<std::string> peak;
  read(j, "peak_device", peak);
  job.peak_device = peak.value_or("");
}

void to_json(Json& j, const JobChange& c) {
  j = Json{{"at_step", c.at_step}, {"field", c.field}, {"from", or_null(non_empty(c.from))}, {"to", or_null(non_empty(c.to))}};
}
void from_json(const Json& j, JobChange& c) {
  std::optional<std::string> from, to;
  read(j, "at_step", c.at_step);
  read(j, "field", c.field);
  read(j, "from", from);
  read(j, "to", to);
  c.from = from.value_or("");
  c.to = to.value_or("");
}

void to_json(Json& j, const CurvePoint& p) {
  j = Json{{"step", p.step}, {"tokens", count_json(p.tokens)}, {"lr", p.lr}, {"train_loss", p.train_loss},
           {"eval_loss", p.eval_loss >= 0 ? Json(p.eval_loss) : Json(nullptr)}, {"grad_norm", p.grad_norm},
           {"elapsed_s", p.elapsed_s}};
}
void from_json(const Json& j, CurvePoint& p) {
  read(j, "step", p.step);
  read(j, "tokens", p.tokens);
  read(j, "lr", p.lr);
  read(j, "train_loss", p.train_loss);
  p.eval_loss = doc::read_number_or(j, "eval_loss", -1);
  read(j, "grad_norm", p.grad_norm);
  read(j, "elapsed_s", p.elapsed_s);
}

}  // namespace isoflop::train

namespace isoflop::doc {

void to_json(Json& j, const TrainDocument& d) {
  const train::TrainResult& r = d.result;
  const bool peak = r.peak_source != train::PeakSource::kNone;
  Json inputs = d.inputs;
  inputs["resume"] = d.resume;
  j = Json{{"schema", schema_id("train")},
           {"inputs", inputs},
           {"interrupted", r.interrupted},
           {"resumed", r.resumed},
           {"job_changes", r.job_changes},
           {"final_train_loss", r.final_train_loss},
           {"eval_loss", or_null(r.eval_loss)},
           {"entropy_floor", or_null(r.entropy_floor)},
           {"val_floor", or_null(r.val_floor)},
           {"params", train::count_json(r.params)},
           {"non_embedding_params", train::count_json(r.non_embedding_params)},
           {"steps", r.steps},
           {"steps_total", r.steps_total},
           {"tokens", train::count_json(r.tokens)},
           {"flops_per_token", r.flops_per_token},
           {"flops", r.flops},
           {"flops_6nd", r.flops_6nd},
           {"wall_s", r.wall_s},
           {"train_s", r.train_s},
           {"tokens_per_s", r.tokens_per_s},
           {"achieved_tflops", r.achieved_tflops},
           {"mfu", or_null(r.mfu)},
           {"peak_flops", peak ? Json(r.peak_flops) : Json(nullptr)},
           {"peak_source", peak ? enum_json(r.peak_source, train::kPeakSourceNames) : Json(nullptr)},
           {"accelerator", or_null(train::non_empty(r.accelerator))},
           {"device", r.device},
           {"backend", enum_json(r.backend, train::kBackendKindNames)},
           {"precision", enum_json(r.precision, train::kPrecisionNames)},
           {"memory_bytes", train::count_json(r.memory_bytes)},
           {"peak_rss_bytes", train::count_json(r.peak_rss_bytes)},
           {"data", r.data_description},
           {"checkpoint", or_null(train::non_empty(r.checkpoint_path))},
           {"curve_file", d.curve_file},
           {"results_file", d.results_file},
           {"curve", r.curve}};
}

void from_json(const Json& j, TrainDocument& d) {
  train::TrainResult& r = d.result;
  read(j, "inputs", d.inputs);
  read(j.at("inputs"), "resume", d.resume);
  read(j, "interrupted", r.interrupted);
  read(j, "resumed", r.resumed);
  if (j.contains("job_changes")) read_array(j, "job_changes", r.job_changes);  // absent in results before it
  read(j, "final_train_loss", r.final_train_loss);
  read(j, "eval_loss", r.eval_loss);
  read(j, "entropy_floor", r.entropy_floor);
  read(j, "val_floor", r.val_floor);
  read(j, "params", r.params);
  read(j, "non_embedding_params", r.non_embedding_params);
  read(j, "steps", r.steps);
  read(j, "steps_total", r.steps_total);
  read(j, "tokens", r.tokens);
  read(j, "flops_per_token", r.flops_per_token);
  read(j, "flops", r.flops);
  read(j, "flops_6nd", r.flops_6nd);
  read(j, "wall_s", r.wall_s);
  read(j, "train_s", r.train_s);
  read(j, "tokens_per_s", r.tokens_per_s);
  read(j, "achieved_tflops", r.achieved_tflops);
  read(j, "mfu", r.mfu);
  r.peak_flops = read_number_or(j, "peak_flops", 0);
  r.peak_source = train::PeakSource::kNone;
  if (!j.at("peak_source").is_null()) read_enum(j, "peak_source", train::kPeakSourceNames, r.peak_source);
  std::optional<std::string> accelerator, checkpoint;
  read(j, "accelerator", accelerator);
  r.accelerator = accelerator.value_or("");
  read(j, "device", r.device);
  read_enum(j, "backend", train::kBackendKindNames, r.backend);
  read_enum(j, "precision", train::kPrecisionNames, r.precision);
  read(j, "memory_bytes", r.memory_bytes);
  read(j, "peak_rss_bytes", r.peak_rss_bytes);
  read(j, "data", r.data_description);
  read(j, "checkpoint", checkpoint);
  r.checkpoint_path = checkpoint.value_or("");
  read(j, "curve_file", d.curve_file);
  read(j, "results_file", d.results_file);
  read_array(j, "curve", r.curve);
}

}  // namespace isoflop::doc
