// OpenBLAS picks its kernels from the CPU model; under a hypervisor that masks the model it falls back to its
// oldest x86-64 kernels (Prescott, SSE3), 2–3× slower than the AVX-512 or AVX2 ones the CPU can run.
#pragma once

#include <string>
#include <vector>

namespace isoflop::train {

// When OpenBLAS fell back to Prescott, OPENBLAS_CORETYPE is unset, and the CPU reports AVX-512 (SkylakeX
// kernels) or AVX2+FMA (Haswell kernels): sets OPENBLAS_CORETYPE and re-executes this process with
// `isoflop <command> <args>` (OpenBLAS reads it once, when it is loaded). Returns only when nothing needs doing or
// the re-execution failed; either way the run goes on.
void reexec_with_detected_blas_core(const std::string& command, const std::vector<std::string>& args);

}  // namespace isoflop::train
