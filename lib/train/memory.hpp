// What a job needs in memory, counted before anything is allocated, and what the machine has: a job that
// cannot fit is refused with the figures instead of ending in bad_alloc (or the OOM killer) mid-run.
#pragma once

#include <string>

#include "train/job.hpp"

namespace isoflop::train {

// Host memory of a run in bytes, by what holds it (doubles: a hostile job's sizes overflow 64-bit integers).
struct MemoryEstimate {
  double weights_bytes = 0;      // fp32 parameters (CPU backend)
  double gradients_bytes = 0;    // fp32 gradients (CPU backend)
  double optimizer_bytes = 0;    // AdamW first and second moments (CPU backend)
  double activations_bytes = 0;  // forward activations and their gradients for one batch (CPU backend)
  double data_bytes = 0;         // the corpus while it is read and split, and the markov source's tables
  double checkpoint_bytes = 0;   // parameter and moment copies and their encoding while a checkpoint is saved

  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + data_bytes + checkpoint_bytes;
  }
  // "52.3 GiB (weights 4.1 GiB, gradients 4.1 GiB, …)" — the parts that are not zero.
  std::string describe() const;
};

// The elements of one activation buffer set of the CPU reference model for batches of `batch` sequences
// (cpu::Gpt allocates this twice: activations and their gradients). The one source of those sizes.
double activation_elements(const ModelConfig& config, int batch);

// The host memory `job` needs on `backend` (kCpu or kCuda: on CUDA the model lives in device memory, which the
// backend checks; the host still holds the data and the checkpoint copies). Reads only the size of a data file.
MemoryEstimate estimate_memory(const Job& job, BackendKind backend);

// What the process may still use, in bytes, and where the figure comes from ("MemAvailable", "the cgroup
// limit"): the least of /proc/meminfo's MemAvailable (else sysconf's available pages) and the room left under
// a cgroup v2 memory.max. 0 when nothing can be read.
struct AvailableMemory {
  double bytes = 0;
  std::string source;
};
AvailableMemory available_memory();

// What would make `job` fit in `limit_bytes` beside the `held_bytes` the process holds already, in words that
// follow "use ": the corpus when it is the largest part; else the batch nearest the job's that fits (smaller when
// the activations are the excess, larger when the checkpoint's curve is); else the deepest model that fits at the
// job's batch; else a narrower one.
std::string memory_advice(const Job& job, BackendKind backend, double limit_bytes, double held_bytes);

// Throws FieldError("max_memory", …) when the estimate exceeds `max_memory_bytes` (> 0), else InputError when
// it exceeds what is available; both give the figures and name what to shrink.
void require_memory(const Job& job, BackendKind backend, double max_memory_bytes);

}  // namespace isoflop::train
