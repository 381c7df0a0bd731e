# The trainer library: CPU reference (OpenBLAS + OpenMP) always, the CUDA backend when nvcc was found.
file(GLOB _train_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lib/train/*.cpp ${CMAKE_SOURCE_DIR}/lib/train/cpu/*.cpp)
add_library(isoflop_train STATIC ${_train_src})
target_include_directories(isoflop_train PUBLIC ${CMAKE_SOURCE_DIR}/lib)
target_compile_options(isoflop_train PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ISOFLOP_WARNINGS}>)
find_path(ISOFLOP_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas x86_64-linux-gnu/openblas-pthread)
if(ISOFLOP_CBLAS_INCLUDE)
  # PUBLIC: the CPU benchmark (tests/bench/train_cpu.cpp) times cblas_sgemm itself for the machine's peak.
  target_include_directories(isoflop_train PUBLIC ${ISOFLOP_CBLAS_INCLUDE})
endif()
target_link_libraries(isoflop_train PUBLIC isoflop_model isoflop_catalog BLAS::BLAS OpenMP::OpenMP_CXX)

if(ISOFLOP_HAVE_CUDA)
  file(GLOB _train_cuda_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lib/train/cuda/*.cu)
  target_sources(isoflop_train PRIVATE ${_train_cuda_src})
  target_compile_definitions(isoflop_train PUBLIC ISOFLOP_TRAIN_CUDA=1)
  # Device code: sm_80 and sm_90 (CMAKE_CUDA_ARCHITECTURES); warnings in host code of .cu files are errors too.
  target_compile_options(isoflop_train PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${ISOFLOP_WERROR}>>:-Werror=all-warnings>)
  set_target_properties(isoflop_train PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_link_libraries(isoflop_train PUBLIC CUDA::cublasLt CUDA::cublas CUDA::cudart)
endif()

# tests/train also drives the real binary (bad jobs, SIGINT, --resume); build it before the tests.
function(isoflop_train_test_deps)
  if(TARGET test_train AND TARGET isoflop)
    add_dependencies(test_train isoflop)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL isoflop_train_test_deps)
