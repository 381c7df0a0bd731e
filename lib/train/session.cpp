// The training session: checks everything first (backend, data, checkpoint), then steps that allocate
// nothing, with evaluation, checkpoints and the FLOP/throughput accounting of the result.
#include "train/session.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/params.hpp"
#include "train/cpu/sgemm_peak.hpp"
#include "train/memory.hpp"
#include "units/format.hpp"

namespace isoflop::train {
model::Architecture architecture_of(const ModelConfig& c) {
  model::Architecture a;
  a.name = "train";
  a.layers = c.layers;
  a.d_model = c.d_model;
  a.heads = c.heads;
  a.vocab = c.vocab;
  a.seq = c.seq;
  a.activation = model::Activation::kGelu;
  a.positional = model::PositionalEncoding::kLearned;
  a.tied_embeddings = true;
  a.norm = model::NormKind::kLayerNorm;
  a.bias = true;
  return a;
}

namespace {

namespace fs = std::filesystem;

void require_batch_fits(const std::vector<int32_t>& split, const char* name, const Job& job, const Dataset& data) {
  const long long span = job.tokens_per_step();
  if (static_cast<long long>(split.size()) < span + 1)
    throw InputError("model.seq: one batch of train.batch " + std::to_string(job.train.batch) + " x model.seq " +
                     std::to_string(job.model.seq) + " = " + std::to_string(span) + " tokens (+1 target) does not fit in the " +
                     name + " split of " + std::to_string(split.size()) + " tokens of " + data.description +
                     "; use more data, another data.val_fraction, or a smaller batch or seq");
}

double peak_rss_bytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

}  // namespace

TrainingSession::TrainingSession(const Job& job, const RunOptions& options)
    : job_(job), options_(options), rng_(job.train.seed ^ 0x7261696e5eedULL) {
  job_.validate();
  folder_ = options_.folder ? options_.folder : &own_folder_.emplace(job_);  // an existing folder is locked now
  BackendChoice choice = choose_backend(job_.backend, job_.precision ? &*job_.precision : nullptr);
  choice.cpu_threads = job_.threads;
  require_memory(job_, choice.kind, options_.max_memory_bytes);  // before the first large allocation
  data_ = load_dataset(job_.data, job_.model.vocab);
  require_batch_fits(data_.train, "training", job_, data_);
  require_batch_fits(data_.val, "validation", job_, data_);
  layout_ = parameter_layout(job_.model);
  steps_total_ = job_.steps();
  span_ = job_.tokens_per_step();
  check_resume();
  val_batches_ = std::clamp<long long>(static_cast<long long>(job_.eval.tokens / static_cast<double>(span_)), 1,
                                       static_cast<long long>(data_.val.size() - 1) / span_);
  measure_floor(&data_, job_.model.seq, val_batches_ * job_.train.batch);
  if (options_.catalog && !job_.peak_device.empty())
    result_.accelerator = options_.catalog->accelerator(job_.peak_device, "peak_device").name;
  folder_->prepare();
  // ---- nothing is written before this point ----
  if (already_finished_) {
    result_.checkpoint_path = job_.checkpoint.path;
    state_ = std::move(*resumed_);
    resumed_.reset();
    for (const auto& p : state_.curve)
      if (p.eval_loss >= 0) last_eval_ = p.eval_loss;
    return;
  }
  describe_run();
  if (!choice.note.empty() && options_.on_note) options_.on_note(choice.note);
  backend_ = make_backend(choice, job_.model, job_.train.batch);
  resolve_peak();
  restore_or_initialise();
  // Batch buffers, the curve and the validation cursor are allocated here, once: steps allocate nothing.
  inputs_.resize(static_cast<size_t>(span_));
  targets_.resize(static_cast<size_t>(span_));
  state_.curve.reserve(static_cast<size_t>(steps_total_));
  schedule_ = LrSchedule{job_.train.lr, job_.warmup_steps(), steps_total_, job_.train.min_lr_fraction};
  result_.memory_bytes = static_cast<double>(backend_->memory_bytes() + 2 * sizeof(int32_t) * inputs_.size() +
                                             sizeof(CurvePoint) * state_.curve.capacity() +
                                             sizeof(int32_t) * (data_.train.capacity() + data_.val.capacity()));
  for (const auto& p : state_.curve)
    if (p.eval_loss >= 0) last_eval_ = p.eval_loss;
}

void TrainingSession::check_resume() {
  if (!options_.resume) {
    std::error_code ec;
    if (!fs::exists(job_.checkpoint.path, ec) && !ec) return;
    if (ec) throw InputError("checkpoint.path: cannot check '" + job_.checkpoint.path + "': " + ec.message());
    throw FieldError("resume", "not given, and checkpoint.path '" + job_.checkpoint.path +
                                   "' exists from an earlier run; resume it, or remove it to start afresh");
  }
  resumed_ = load_checkpoint(job_.checkpoint.path);
  CheckpointState& s = *resumed_;
  const std::string named = "checkpoint '" + job_.checkpoint.path + "'";
  // The model's shape and the batch are the checkpoint's for good; other fields may change when allowed.
  std::vector<JobChange> changes = job_changes(s.job, job_fields(job_, data_.fingerprint), s.step);
  std::vector<JobChange> fixed;
  for (const auto& c : changes)
    if (!change_allowed(c.field)) fixed.push_back(c);
  if (!fixed.empty())
    throw InputError(named + " belongs to a different job: " + describe(fixed) +
                     " (the parameters, steps and schedule depend on the model's shape and train.batch)");
  if (!changes.empty() && !options_.allow_changes)
    throw FieldError("allow_changes", "not given, and the job changed since " + named + ": " + describe(changes) +
                                          "; run the job as it was, or allow the changes to continue with them");
  if (s.params.size() != layout_.total)
    throw InputError(named + " is corrupt: " + std::to_string(s.params.size()) + " parameters, the model has " +
                     std::to_string(layout_.total));
  if (s.step < 0 || s.step > s.steps_total || s.curve.size() != static_cast<size_t>(s.step))
    throw InputError(named + " is corrupt: inconsistent position");
  const bool data_changed = std::any_of(changes.begin(), changes.end(),
                                        [](const JobChange& c) { return c.field.rfind("data.", 0) == 0; });
  if (s.train_position > data_.train.size()) {
    if (!data_changed) throw InputError(named + " is corrupt: its data position is past the training split");
    s.train_position = 0;  // another corpus: start it from its beginning
  }
  if (s.step > steps_total_)
    throw FieldError("train.tokens", "the run in " + named + " has done " + std::to_string(s.step) +
                                         " steps, more than the job's " + std::to_string(steps_total_));
  s.changes.insert(s.changes.end(), changes.begin(), changes.end());
  already_finished_ = s.step == steps_total_;
}

void TrainingSession::describe_run() {
  if (!options_.on_note) return;
  const long long tokens = steps_total_ * span_;
  options_.on_note("training " + describe(job_.model) + " on " + units::format_count(static_cast<double>(tokens)) +
                   " tokens (" +
                   (options_.resume ? "resuming from " + job_.checkpoint.path : std::string("from initialisation")) + ")");
  if (static_cast<double>(tokens) != job_.train.tokens)
    options_.on_note("train.tokens " + std::to_string(static_cast<long long>(job_.train.tokens)) +
                     " is not a whole number of " + std::to_string(span_) + "-token steps; training " +
                     std::to_string(steps_total_) + " steps = " + std::to_string(tokens) + " tokens");
}

// The peak MFU is measured against: the job's catalog accelerator, the catalog entry of the CUDA device,
// or on the CPU the fp32 GEMM peak measured here with the backend's threads.
void TrainingSession::resolve_peak() {
  result_.backend = backend_->kind();
  result_.precision = backend_->precision();
  result_.device = backend_->device();
  const catalog::Accelerator* accelerator = nullptr;
  if (!result_.accelerator.empty()) accelerator = &options_.catalog->accelerator(result_.accelerator, "peak_device");
  if (options_.catalog && !accelerator && result_.backend == BackendKind::kCuda)
    accelerator = accelerator_for_device(result_.device, *options_.catalog);
  if (accelerator) {
    result_.accelerator = accelerator->name;
    result_.peak_flops = result_.precision == Precision::kBf16 ? accelerator->peak_16bit_flops : accelerator->peak_fp32_flops;
    result_.peak_source = PeakSource::kCatalog;
  } else if (result_.backend == BackendKind::kCpu && options_.measure_cpu_peak) {
    result_.peak_flops = measure_sgemm_peak_flops();
    result_.peak_source = PeakSource::kMeasuredSgemm;
  }
}

void TrainingSession::restore_or_initialise() {
  state_.model = job_.model;
  state_.steps_total = steps_total_;
  state_.job = job_fields(job_, data_.fingerprint);
  state_.device = result_.device;
  if (!resumed_) {
    std::vector<float> params(layout_.total);
    init_parameters(job_.model, layout_, job_.train.seed, params.data());
    backend_->set_parameters(params.data());
    return;
  }
  backend_->set_parameters(resumed_->params.data());
  backend_->set_optimizer_state(resumed_->m.data(), resumed_->v.data());
  rng_.set_state(resumed_->rng);
  state_.step = resumed_->step;
  state_.train_position = resumed_->train_position;
  state_.elapsed_s = resumed_->elapsed_s;
  // Another thread count, BLAS kernel set or GPU sums in another order: the run goes on, not bit for bit.
  if (resumed_->device != result_.device && options_.on_note)
    options_.on_note("the checkpoint was written on " + resumed_->device + " and resumes on " + result_.device +
                     ": the losses will not repeat bit for bit");
  state_.curve = std::move(resumed_->curve);
  state_.changes = std::move(resumed_->changes);
  result_.resumed = true;
  resumed_.reset();
  elapsed_before_s_ = state_.elapsed_s;
}

double TrainingSession::steady_step_s() const {
  if (session_steps_ >= 2) return (train_s_ - first_step_s_) / static_cast<double>(session_steps_ - 1);
  return session_steps_ > 0 ? train_s_ / static_cast<double>(session_steps_) : 0.0;
}

double TrainingSession::now_s() const {
  return elapsed_before_s_ + std::chrono::duration<double>(Clock::now() - start_).count();
}

double TrainingSession::evaluate() {
  uint64_t position = 0;
  double total = 0;
  for (long long b = 0; b < val_batches_; ++b) {
    next_batch(data_.val, job_.train.batch, job_.model.seq, &position, inputs_.data(), targets_.data());
    total += backend_->evaluate(inputs_.data(), targets_.data());
  }
  return total / static_cast<double>(val_batches_);
}

const CurvePoint& TrainingSession::step() {
  const auto step_start = Clock::now();
  next_batch(data_.train, job_.train.batch, job_.model.seq, &state_.train_position, inputs_.data(), targets_.data());
  const double loss = backend_->forward_backward(inputs_.data(), targets_.data());
  const double norm = backend_->grad_norm();
  if (!std::isfinite(loss) || !std::isfinite(norm))
    throw InputError("train.lr: the loss diverged (non-finite) at step " + std::to_string(state_.step + 1) +
                     "; lower train.lr, lengthen train.warmup or set train.clip");
  AdamWStep update;
  update.lr = schedule_.at(state_.step);
  update.beta1 = job_.train.beta1;
  update.beta2 = job_.train.beta2;
  update.eps = job_.train.eps;
  update.weight_decay = job_.train.weight_decay;
  update.grad_scale = clip_scale(norm, job_.train.clip);
  update.t = state_.step + 1;
  backend_->update(update);
  const double step_s = std::chrono::duration<double>(Clock::now() - step_start).count();
  if (session_steps_ == 0) first_step_s_ = step_s;
  train_s_ += step_s;
  ++state_.step;
  ++session_steps_;

  CurvePoint point;
  point.step = state_.step;
  point.tokens = static_cast<double>(state_.step * span_);
  point.lr = update.lr;
  point.train_loss = loss;
  point.grad_norm = norm;
  if (finished() || (job_.eval.every > 0 && state_.step % job_.eval.every == 0)) {
    point.eval_loss = evaluate();
    last_eval_ = point.eval_loss;
  }
  point.elapsed_s = now_s();
  state_.curve.push_back(point);
  report(point);
  return state_.curve.back();
}

void TrainingSession::report(const CurvePoint& point) {
  if (!options_.on_progress) return;
  Progress progress;
  progress.step = state_.step;
  progress.steps = steps_total_;
  progress.tokens = point.tokens;
  progress.total_tokens = static_cast<double>(steps_total_ * span_);
  progress.train_loss = point.train_loss;
  if (point.eval_loss >= 0) progress.eval_loss = point.eval_loss;
  progress.lr = point.lr;
  progress.tokens_per_s = static_cast<double>(span_) / steady_step_s();
  progress.eta_s = static_cast<double>(steps_total_ - state_.step) * steady_step_s();
  options_.on_progress(progress);
}

bool TrainingSession::checkpoint_due() const {
  return job_.checkpoint.every > 0 && state_.step % job_.checkpoint.every == 0;
}

void TrainingSession::checkpoint() {
  state_.rng = rng_.state();
  state_.elapsed_s = now_s();
  state_.params.resize(layout_.total);
  state_.m.resize(layout_.total);
  state_.v.resize(layout_.total);
  backend_->get_parameters(state_.params.data());
  backend_->get_optimizer_state(state_.m.data(), state_.v.data());
  save_checkpoint(job_.checkpoint.path, state_);
  result_.checkpoint_path = job_.checkpoint.path;
  // The copies are only needed while encoding; release them so the footprint stays the backend's.
  state_.params = {};
  state_.m = {};
  state_.v = {};
}

TrainResult TrainingSession::finish(bool interrupted) {
  if (!last_eval_ && finished() && backend_) last_eval_ = evaluate();
  TrainResult r = std::move(result_);
  r.interrupted = interrupted;
  r.already_finished = already_finished_;
  r.resumed = r.resumed || already_finished_;
  r.job_changes = state_.changes;
  r.steps_total = steps_total_;
  r.entropy_floor = data_.entropy_rate;
  r.val_floor = data_.val_floor;
  r.entropy_floor_stderr = data_.entropy_rate_stderr;
  r.val_floor_stderr = data_.val_floor_stderr;
  r.data_description = data_.description;
  const model::Architecture arch = architecture_of(job_.model);
  const model::ParamCount count = model::count_params(arch);
  r.params = count.total();
  r.non_embedding_params = count.non_embedding();
  r.flops_per_token = model::chinchilla_training_flops_per_sequence(arch, job_.model.seq) / job_.model.seq;
  r.steps = state_.step;
  r.tokens = static_cast<double>(state_.step * span_);
  if (!state_.curve.empty()) r.final_train_loss = state_.curve.back().train_loss;
  r.eval_loss = last_eval_;
  r.flops = r.flops_per_token * r.tokens;
  r.flops_6nd = 6.0 * r.params * r.tokens;
  r.wall_s = already_finished_ ? state_.elapsed_s : now_s();
  r.train_s = train_s_;
  if (session_steps_ > 0) r.first_step_s = first_step_s_;
  if (const double step_s = steady_step_s(); step_s > 0) {
    r.tokens_per_s = static_cast<double>(span_) / step_s;
    r.achieved_tflops = r.flops_per_token * r.tokens_per_s / 1e12;
    if (r.peak_flops > 0) r.mfu = r.achieved_tflops * 1e12 / r.peak_flops;
  }
  r.peak_rss_bytes = peak_rss_bytes();
  r.curve = std::move(state_.curve);
  if (options_.keep_parameters && backend_) {
    r.parameters.resize(layout_.total);
    backend_->get_parameters(r.parameters.data());
  } else if (options_.keep_parameters) {
    r.parameters = state_.params;
  }
  return r;
}

}  // namespace isoflop::train
