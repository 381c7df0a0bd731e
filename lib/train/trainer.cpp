// The training run: checks everything first (backend, data, checkpoint), then a step loop that allocates
// nothing, with evaluation, checkpoints, interruption and the FLOP/throughput accounting of the result.
#include "train/trainer.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/params.hpp"
#include "train/backend.hpp"
#include "train/data.hpp"
#include "train/optimizer.hpp"
#include "train/rng.hpp"
#include "units/format.hpp"

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The trainer's model in the planner's vocabulary, so parameters and FLOPs are counted by lib/model.
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

std::vector<std::string> name_tokens(const std::string& text) {
  std::vector<std::string> tokens;
  std::string current;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!current.empty()) {
      tokens.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

bool is_form_factor(const std::string& t) { return t == "pcie" || t == "nvl" || t.rfind("sxm", 0) == 0; }

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The checkpoint must belong to this job: same model, batch, seed, schedule length and corpus.
void check_checkpoint_matches(const CheckpointState& s, const Job& job, const Dataset& data, size_t total_params) {
  const std::string what = "checkpoint '" + job.checkpoint.path + "' belongs to a different job: ";
  if (!(s.model == job.model)) throw InputError(what + "model " + describe(s.model) + ", the job has " + describe(job.model));
  if (s.batch != job.train.batch)
    throw InputError(what + "train.batch " + std::to_string(s.batch) + ", the job has " + std::to_string(job.train.batch));
  if (s.seed != job.train.seed)
    throw InputError(what + "train.seed " + std::to_string(s.seed) + ", the job has " + std::to_string(job.train.seed));
  if (s.steps_total != job.steps())
    throw InputError(what + std::to_string(s.steps_total) + " planned steps, the job plans " +
                     std::to_string(job.steps()) + " (train.tokens changed)");
  if (s.data_fingerprint != data.fingerprint) throw InputError(what + "it was trained on different data");
  if (s.params.size() != total_params)
    throw InputError("checkpoint '" + job.checkpoint.path + "' is corrupt: " + std::to_string(s.params.size()) +
                     " parameters, the model has " + std::to_string(total_params));
  if (s.step < 0 || s.step > s.steps_total || s.train_position > data.train.size() ||
      s.curve.size() != static_cast<size_t>(s.step))
    throw InputError("checkpoint '" + job.checkpoint.path + "' is corrupt: inconsistent position");
}

void require_batch_fits(const std::vector<int32_t>& split, const char* name, const Job& job, const Dataset& data) {
  const long long span = job.tokens_per_step();
  if (static_cast<long long>(split.size()) < span + 1)
    throw InputError("model.seq: one batch of train.batch " + std::to_string(job.train.batch) + " x model.seq " +
                     std::to_string(job.model.seq) + " = " + std::to_string(span) + " tokens (+1 target) does not fit in the " +
                     name + " split of " + std::to_string(split.size()) + " tokens of " + data.description +
                     "; use more data, another data.val_fraction, or a smaller batch or seq");
}

void make_parent_dirs(const std::string& path, const std::string& what) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw InputError(what + ": cannot create '" + parent.string() + "': " + ec.message());
}

}  // namespace

const catalog::Accelerator* accelerator_for_device(const std::string& device_name, const catalog::Catalog& catalog) {
  // Driver names ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA H200") share the chip token with the
  // catalog id (h100-sxm5-80gb); other id tokens (memory size, form factor) break ties, and a form factor the
  // driver names that differs from the id's (a PCIe card against an SXM entry: different peaks) rules it out.
  const auto device = name_tokens(device_name);
  const catalog::Accelerator* best = nullptr;
  int best_score = -1;
  for (const auto& a : catalog.accelerators) {
    const auto id = name_tokens(a.name);
    if (id.empty() || !contains(device, id[0])) continue;
    bool conflict = false;
    int score = 0;
    for (const auto& d : device)
      if (is_form_factor(d)) {
        bool same = false;
        for (const auto& t : id)
          if (is_form_factor(t) && (t == d || (t.rfind("sxm", 0) == 0 && d.rfind("sxm", 0) == 0))) same = true;
        if (!same) conflict = true;
      }
    if (conflict) continue;
    for (size_t i = 1; i < id.size(); ++i) score += contains(device, id[i]) ? 1 : 0;
    if (score > best_score) best = &a, best_score = score;
  }
  return best;
}

std::string curve_csv(const std::vector<CurvePoint>& curve) {
  std::string out = "step,tokens,lr,train_loss,eval_loss,grad_norm,elapsed_s\n";
  char line[256];
  for (const auto& p : curve) {
    char eval[40] = "";
    if (p.eval_loss >= 0) std::snprintf(eval, sizeof eval, "%.9g", p.eval_loss);
    std::snprintf(line, sizeof line, "%lld,%.0f,%.9g,%.9g,%s,%.9g,%.6f\n", p.step, p.tokens, p.lr, p.train_loss, eval,
                  p.grad_norm, p.elapsed_s);
    out += line;
  }
  return out;
}

TrainResult run_training(const Job& job, const RunOptions& options) {
  const auto session_start = Clock::now();
  auto note = [&](const std::string& text) {
    if (options.on_note) options.on_note(text);
  };
  job.validate();

  // ---- everything that can be wrong with the job, before anything is written ----------------------
  BackendChoice choice = choose_backend(job.backend, job.precision ? &*job.precision : nullptr);
  choice.cpu_threads = job.threads;
  const Dataset data = load_dataset(job.data, job.model.vocab);
  require_batch_fits(data.train, "training", job, data);
  require_batch_fits(data.val, "validation", job, data);
  const ParameterLayout layout = parameter_layout(job.model);
  const long long steps_total = job.steps();
  const long long span = job.tokens_per_step();
  std::optional<CheckpointState> resumed;
  if (options.resume) {
    resumed = load_checkpoint(job.checkpoint.path);
    check_checkpoint_matches(*resumed, job, data, layout.total);
  } else if (std::error_code ec; fs::exists(job.checkpoint.path, ec) || ec) {
    if (ec) throw InputError("checkpoint.path: cannot check '" + job.checkpoint.path + "': " + ec.message());
    throw InputError("checkpoint.path: '" + job.checkpoint.path +
                     "' exists from an earlier run; give --resume to continue it, or remove it to start afresh");
  }
  const catalog::Accelerator* accelerator = nullptr;
  if (options.catalog && !job.peak_device.empty()) accelerator = &options.catalog->accelerator(job.peak_device, "peak_device");

  // ---- set up ---------------------------------------------------------------------------------------
  note("training " + describe(job.model) + " on " + units::format_count(static_cast<double>(steps_total * span)) +
       " tokens (" + (options.resume ? "resuming from " + job.checkpoint.path : std::string("from initialisation")) + ")");
  if (!choice.note.empty()) note(choice.note);
  if (static_cast<double>(steps_total * span) != job.train.tokens)
    note("train.tokens " + std::to_string(static_cast<long long>(job.train.tokens)) + " is not a whole number of " +
         std::to_string(span) + "-token steps; training " + std::to_string(steps_total) + " steps = " +
         std::to_string(steps_total * span) + " tokens");
  std::unique_ptr<Backend> backend = make_backend(choice, job.model, job.train.batch);
  make_parent_dirs(job.checkpoint.path, "checkpoint.path");

  TrainResult result;
  result.backend = backend->kind();
  result.precision = backend->precision();
  result.device = backend->device();
  result.steps_total = steps_total;
  result.entropy_floor = data.entropy_rate;
  result.val_floor = data.val_floor;
  result.data_description = data.description;
  const model::Architecture arch = architecture_of(job.model);
  const model::ParamCount count = model::count_params(arch);
  result.params = count.total();
  result.non_embedding_params = count.non_embedding();
  result.flops_per_token = model::chinchilla_training_flops_per_sequence(arch, job.model.seq) / job.model.seq;
  if (options.catalog && !accelerator && result.backend == BackendKind::kCuda)
    accelerator = accelerator_for_device(result.device, *options.catalog);
  if (accelerator) {
    result.accelerator = accelerator->name;
    result.peak_flops = result.precision == Precision::kBf16 ? accelerator->peak_16bit_flops : accelerator->peak_fp32_flops;
  }

  CheckpointState state;
  state.model = job.model;
  state.batch = job.train.batch;
  state.seed = job.train.seed;
  state.steps_total = steps_total;
  state.data_fingerprint = data.fingerprint;
  state.device = result.device;
  // Reserved for stochastic parts of training (none yet: the data is walked in order); saved for exactness.
  Rng rng(job.train.seed ^ 0x7261696e5eedULL);
  if (resumed) {
    backend->set_parameters(resumed->params.data());
    backend->set_optimizer_state(resumed->m.data(), resumed->v.data());
    rng.set_state(resumed->rng);
    state.step = resumed->step;
    state.train_position = resumed->train_position;
    state.elapsed_s = resumed->elapsed_s;
    // Another thread count, BLAS kernel set or GPU sums in another order: the run goes on, not bit for bit.
    if (resumed->device != result.device)
      note("the checkpoint was written on " + resumed->device + " and resumes on " + result.device +
           ": the losses will not repeat bit for bit");
    state.curve = std::move(resumed->curve);
    result.resumed = true;
    resumed.reset();
  } else {
    std::vector<float> params(layout.total);
    init_parameters(job.model, layout, job.train.seed, params.data());
    backend->set_parameters(params.data());
  }
  const double elapsed_before_s = state.elapsed_s;

  auto save = [&] {
    state.rng = rng.state();
    state.elapsed_s = elapsed_before_s + seconds_since(session_start);
    state.params.resize(layout.total);
    state.m.resize(layout.total);
    state.v.resize(layout.total);
    backend->get_parameters(state.params.data());
    backend->get_optimizer_state(state.m.data(), state.v.data());
    save_checkpoint(job.checkpoint.path, state);
    result.checkpoint_path = job.checkpoint.path;
    // The copies are only needed while encoding; release them so the loop's footprint stays the backend's.
    state.params = {};
    state.m = {};
    state.v = {};
  };

  // Batch buffers, the curve and the validation cursor are allocated here, once: the loop allocates nothing.
  std::vector<int32_t> inputs(static_cast<size_t>(span)), targets(static_cast<size_t>(span));
  state.curve.reserve(static_cast<size_t>(steps_total));
  const long long val_batches = std::clamp<long long>(static_cast<long long>(job.eval.tokens / static_cast<double>(span)), 1,
                                                      static_cast<long long>(data.val.size() - 1) / span);
  auto evaluate = [&] {
    uint64_t position = 0;
    double total = 0;
    for (long long b = 0; b < val_batches; ++b) {
      next_batch(data.val, job.train.batch, job.model.seq, &position, inputs.data(), targets.data());
      total += backend->evaluate(inputs.data(), targets.data());
    }
    return total / static_cast<double>(val_batches);
  };
  const LrSchedule schedule{job.train.lr, job.warmup_steps(), steps_total, job.train.min_lr_fraction};
  result.memory_bytes = static_cast<double>(backend->memory_bytes() + 2 * sizeof(int32_t) * inputs.size() +
                                            sizeof(CurvePoint) * state.curve.capacity() + sizeof(int32_t) *
                                            (data.train.capacity() + data.val.capacity()));

  // ---- the loop ---------------------------------------------------------------------------------
  double train_s = 0;
  long long session_steps = 0;
  std::optional<double> last_eval;
  for (const auto& p : state.curve)
    if (p.eval_loss >= 0) last_eval = p.eval_loss;
  const auto stop_requested = [&] {
    return (options.stop && options.stop->load()) ||
           (options.stop_after_steps > 0 && session_steps >= options.stop_after_steps);
  };
  while (state.step < steps_total) {
    const auto step_start = Clock::now();
    next_batch(data.train, job.train.batch, job.model.seq, &state.train_position, inputs.data(), targets.data());
    const double loss = backend->forward_backward(inputs.data(), targets.data());
    const double norm = backend->grad_norm();
    if (!std::isfinite(loss) || !std::isfinite(norm))
      throw InputError("train.lr: the loss diverged (non-finite) at step " + std::to_string(state.step + 1) +
                       "; lower train.lr, lengthen train.warmup or set train.clip");
    AdamWStep update;
    update.lr = schedule.at(state.step);
    update.beta1 = job.train.beta1;
    update.beta2 = job.train.beta2;
    update.eps = job.train.eps;
    update.weight_decay = job.train.weight_decay;
    update.grad_scale = clip_scale(norm, job.train.clip);
    update.t = state.step + 1;
    backend->update(update);
    train_s += seconds_since(step_start);
    ++state.step;
    ++session_steps;

    CurvePoint point;
    point.step = state.step;
    point.tokens = static_cast<double>(state.step * span);
    point.lr = update.lr;
    point.train_loss = loss;
    point.grad_norm = norm;
    const bool last = state.step == steps_total;
    if (last || (job.eval.every > 0 && state.step % job.eval.every == 0)) {
      point.eval_loss = evaluate();
      last_eval = point.eval_loss;
    }
    point.elapsed_s = elapsed_before_s + seconds_since(session_start);
    state.curve.push_back(point);

    if (options.on_progress) {
      Progress progress;
      progress.step = state.step;
      progress.steps = steps_total;
      progress.tokens = point.tokens;
      progress.total_tokens = static_cast<double>(steps_total * span);
      progress.train_loss = loss;
      if (point.eval_loss >= 0) progress.eval_loss = point.eval_loss;
      progress.lr = update.lr;
      progress.tokens_per_s = static_cast<double>(session_steps * span) / train_s;
      progress.eta_s = static_cast<double>(steps_total - state.step) * train_s / static_cast<double>(session_steps);
      options.on_progress(progress);
    }
    if (last) break;
    if (stop_requested()) {
      result.interrupted = true;
      break;
    }
    if (job.checkpoint.every > 0 && state.step % job.checkpoint.every == 0) save();
  }
  save();  // on interruption, and at the end (so a finished run can be re-reported with --resume)

  // A resumed run that was already complete re-evaluates nothing new; its last evaluation stands.
  if (!last_eval && state.step == steps_total) last_eval = evaluate();

  // ---- the result -------------------------------------------------------------------------------
  result.steps = state.step;
  result.tokens = static_cast<double>(state.step * span);
  if (!state.curve.empty()) result.final_train_loss = state.curve.back().train_loss;
  result.eval_loss = last_eval;
  result.flops = result.flops_per_token * result.tokens;
  result.flops_6nd = 6.0 * result.params * result.tokens;
  result.wall_s = elapsed_before_s + seconds_since(session_start);
  result.train_s = train_s;
  if (train_s > 0) {
    const double session_tokens = static_cast<double>(session_steps * span);
    result.tokens_per_s = session_tokens / train_s;
    result.achieved_tflops = result.flops_per_token * session_tokens / train_s / 1e12;
    if (result.peak_flops > 0) result.mfu = result.achieved_tflops * 1e12 / result.peak_flops;
  }
  result.curve = std::move(state.curve);
  if (options.keep_parameters) {
    result.parameters.resize(layout.total);
    backend->get_parameters(result.parameters.data());
  }
  return result;
}

}  // namespace isoflop::train
