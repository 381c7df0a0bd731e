// The `train` document: JSON of the job, the result and the curve.
#include "doc/train_document.hpp"

namespace isoflop::doc {
namespace {

using train::Job;

// "markov" and "quanta" are null for the other sources.
using Data = train::DataConfig;
using Markov = train::MarkovOptions;
using Quanta = train::QuantaOptions;
constexpr auto kData = std::tuple{
    field("source", &Data::source, names(train::kDataSourceNames)), field("path", &Data::path, null_when_empty()),
    group_if(
        "markov", [](const Data& d) { return d.source == train::DataSource::kMarkov; }, field("tokens", &Data::tokens),
        via(&Data::markov, field("order", &Markov::order), field("branching", &Markov::branching),
            field("zipf", &Markov::zipf), field("smoothing", &Markov::smoothing), field("seed", &Markov::seed))),
    // "quanta" came with the source (a result written before it has no key; it read as markov or text).
    added_later(group_if(
        "quanta", [](const Data& d) { return d.source == train::DataSource::kQuanta; }, field("tokens", &Data::tokens),
        field("val_tokens", &Data::val_tokens),
        via(&Data::quanta, field("skills", &Quanta::skills), field("alpha", &Quanta::alpha),
            field("branching", &Quanta::branching), field("zipf", &Quanta::zipf), field("segment", &Quanta::segment),
            // A result written before skills had alphabets (2026-12-05) used every body token: alphabet 0.
            added_later(field("alphabet", &Quanta::alphabet)), field("seed", &Quanta::seed)))),
    field("val_fraction", &Data::val_fraction)};

using M = train::ModelConfig;
using T = train::TrainOptions;
constexpr auto kJob = std::tuple{
    // Keys a result written on 2026-12-04 lacks (its GPU records, tests/gpu/results): read as their defaults.
    added_later(field("job", &Job::file)),
    group("model", via(&Job::model, field("layers", &M::layers), field("d_model", &M::d_model),
                       field("heads", &M::heads), field("seq", &M::seq), field("vocab", &M::vocab))),
    group("train",
          via(&Job::train, field("tokens", &T::tokens, count()), field("batch", &T::batch), field("lr", &T::lr),
              field("warmup_tokens", &T::warmup_tokens, count()), field("min_lr_fraction", &T::min_lr_fraction),
              field("weight_decay", &T::weight_decay), field("clip", &T::clip), field("beta1", &T::beta1),
              field("beta2", &T::beta2), field("eps", &T::eps), field("seed", &T::seed))),
    field("data", &Job::data, as(kData)),
    field("backend", &Job::backend, names(train::kBackendKindNames)),
    field("precision", &Job::precision, names(train::kPrecisionNames)),
    field("threads", &Job::threads),
    group("eval", via(&Job::eval, field("every", &train::EvalOptions::every),
                      field("tokens", &train::EvalOptions::tokens, count()))),
    group("checkpoint", via(&Job::checkpoint, field("every", &train::CheckpointOptions::every),
                            field("path", &train::CheckpointOptions::path))),
    field("output", &Job::output),
    field("peak_device", &Job::peak_device, null_when_empty())};

using R = train::TrainResult;
using D = TrainDocument;

// "job_changes", absent in results written before it (read as none).
struct JobChanges {
  void write(Json& j, const R& r) const { j["job_changes"] = r.job_changes; }
  void read(const Json& j, R& r) const {
    if (j.contains("job_changes")) doc::read(j, "job_changes", r.job_changes);
  }
};

constexpr auto kTrainDocument = std::tuple{
    schema_key("train"),
    group("inputs", via(&D::inputs, kJob), field("resume", &D::resume)),
    via(&D::result, field("interrupted", &R::interrupted), field("resumed", &R::resumed), JobChanges{},
        field("final_train_loss", &R::final_train_loss), field("eval_loss", &R::eval_loss),
        field("entropy_floor", &R::entropy_floor), added_later(field("entropy_floor_stderr", &R::entropy_floor_stderr)),
        field("val_floor", &R::val_floor), added_later(field("val_floor_stderr", &R::val_floor_stderr)),
        field("params", &R::params, count()), field("non_embedding_params", &R::non_embedding_params, count()),
        field("steps", &R::steps), field("steps_total", &R::steps_total), field("tokens", &R::tokens, count()),
        field("flops_per_token", &R::flops_per_token), field("flops", &R::flops), field("flops_6nd", &R::flops_6nd),
        field("wall_s", &R::wall_s), field("train_s", &R::train_s),
        added_later(field("first_step_s", &R::first_step_s)), field("tokens_per_s", &R::tokens_per_s),
        field("achieved_tflops", &R::achieved_tflops), field("mfu", &R::mfu),
        // The peak MFU is measured against: null when none is known.
        custom(
            "peak_flops",
            [](const R& r) { return r.peak_source != train::PeakSource::kNone ? Json(r.peak_flops) : Json(nullptr); },
            [](const Json& v, R& r) {
              if (!v.is_null()) read_value(v, r.peak_flops);
            }),
        field("peak_source", &R::peak_source, names_or_null(train::kPeakSourceNames, train::PeakSource::kNone)),
        field("accelerator", &R::accelerator, null_when_empty()), field("device", &R::device),
        field("backend", &R::backend, names(train::kBackendKindNames)),
        field("precision", &R::precision, names(train::kPrecisionNames)),
        field("memory_bytes", &R::memory_bytes, count()), field("peak_rss_bytes", &R::peak_rss_bytes, count()),
        field("data", &R::data_description), field("checkpoint", &R::checkpoint_path, null_when_empty())),
    field("curve_file", &D::curve_file),
    field("results_file", &D::results_file),
    via(&D::result, field("curve", &R::curve))};

}  // namespace

void to_json(Json& j, const TrainDocument& d) { write_fields(j, d, kTrainDocument); }
void from_json(const Json& j, TrainDocument& d) { read_fields(j, d, kTrainDocument); }

Json data_config_json(const train::DataConfig& data) {
  Json j;
  write_fields(j, data, kData);
  return j;
}
void read_data_config(const Json& j, train::DataConfig& data) { read_fields(j, data, kData); }

}  // namespace isoflop::doc
