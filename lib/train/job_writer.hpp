// The inverse of parse_job: a Job as the YAML a job file holds, so programs that make jobs (validate's sweeps)
// write them through the Job type rather than by pasting text.
#pragma once

#include <string>

#include "train/job.hpp"

namespace isoflop::train {

// YAML that parse_job(text, job_file) reads back as `job` (with file = job_file): paths (output, checkpoint,
// data) written relative to job_file's folder when they lie under it, the checkpoint only when it is not the
// default <output>/checkpoint.bin.
std::string job_yaml(const Job& job, const std::string& job_file);

}  // namespace isoflop::train
