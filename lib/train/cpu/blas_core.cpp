// Re-executing with OPENBLAS_CORETYPE when OpenBLAS did not recognise the CPU (see blas_core.hpp).
#include "train/cpu/blas_core.hpp"

#include <cblas.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace isoflop::train {

void reexec_with_detected_blas_core(const std::string& command, const std::vector<std::string>& args) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const char* core = openblas_get_corename();
  if (core == nullptr || std::strcmp(core, "Prescott") != 0) return;
  __builtin_cpu_init();
  const char* better = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    better = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    better = "Haswell";
  if (better == nullptr) return;
  if (::setenv("OPENBLAS_CORETYPE", better, 0) != 0) return;
  std::vector<char*> argv;
  static char name[] = "isoflop";
  argv.push_back(name);
  argv.push_back(const_cast<char*>(command.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  ::unsetenv("OPENBLAS_CORETYPE");  // exec failed: carry on with the kernels already loaded
#else
  (void)command;
  (void)args;
#endif
}

}  // namespace isoflop::train
