// Checkpoints: model, AdamW moments, RNG state, data position and the loss curve so far, in one binary file
// written atomically; a resumed run continues bit for bit where the checkpoint left off (on the CPU).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "train/config.hpp"
#include "train/job_changes.hpp"

namespace isoflop::train {

// One row of the loss curve (loss_curve.csv).
struct CurvePoint {
  long long step = 0;      // 1-based step just completed
  double tokens = 0;       // training tokens seen after this step
  double lr = 0;           // learning rate used by this step
  double train_loss = 0;   // mean loss of this step's batch (nats/token)
  double eval_loss = -1;   // validation loss after this step; < 0 when not evaluated
  double grad_norm = 0;    // global gradient norm before clipping
  double elapsed_s = 0;    // wall time since the run started (over all resumed segments)
  bool operator==(const CurvePoint&) const = default;
};

struct CheckpointState {
  // What the checkpoint belongs to; a resume compares the job's fields with `job` (train/job_changes.hpp).
  ModelConfig model;
  long long steps_total = 0;
  std::vector<JobField> job;         // the job as it was when the state was saved
  std::vector<JobChange> changes;    // changes resumed runs were allowed to make, oldest first
  // Where the run stands.
  long long step = 0;             // steps completed
  uint64_t train_position = 0;    // batch cursor into the training split
  std::array<uint64_t, 4> rng{};  // trainer RNG state (reserved for stochastic parts; saved for exactness)
  double elapsed_s = 0;
  std::string device;             // Backend::device() of the run: a resume elsewhere is exact only in exact arithmetic
  std::vector<CurvePoint> curve;
  std::vector<float> params, m, v;  // fp32 master parameters and AdamW moments, ParameterLayout order
};

// Format: "ISOFLOPC" magic, uint32 version, the fields above little-endian, then an FNV-1a 64-bit checksum of
// everything before it.
std::string encode_checkpoint(const CheckpointState& state);
// Throws InputError naming `path` for a file that is truncated, has a bad magic/version or checksum.
CheckpointState decode_checkpoint(const std::string& bytes, const std::string& path);

void save_checkpoint(const std::string& path, const CheckpointState& state);  // atomic
CheckpointState load_checkpoint(const std::string& path);

}  // namespace isoflop::train
