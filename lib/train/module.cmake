# The trainer library: CPU reference (OpenBLAS + OpenMP) always. The CUDA backend, when nvcc was found, is a
# separate module (libisoflop_cuda.so) that `train` loads with dlopen only for a job that asks for a CUDA
# device: the isoflop binary itself links no CUDA library, so every other command starts without them.
file(GLOB _train_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lib/train/*.cpp ${CMAKE_SOURCE_DIR}/lib/train/cpu/*.cpp)
add_library(isoflop_train STATIC ${_train_src})
target_include_directories(isoflop_train PUBLIC ${CMAKE_SOURCE_DIR}/lib)
target_compile_options(isoflop_train PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ISOFLOP_WARNINGS}>)
find_path(ISOFLOP_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas x86_64-linux-gnu/openblas-pthread)
if(ISOFLOP_CBLAS_INCLUDE)
  # PUBLIC: the CPU benchmark (tests/bench/train_cpu.cpp) times cblas_sgemm itself for the machine's peak.
  target_include_directories(isoflop_train PUBLIC ${ISOFLOP_CBLAS_INCLUDE})
endif()
# OpenBLAS is not linked: cpu/openblas_loader.cpp opens it on the first CBLAS call (only `train` makes one), so
# no other command pays for loading it. BLAS_LIBRARIES (FindBLAS) only tells the loader where it is.
list(GET BLAS_LIBRARIES 0 _openblas_path)
set_source_files_properties(${CMAKE_SOURCE_DIR}/lib/train/cpu/openblas_loader.cpp PROPERTIES COMPILE_DEFINITIONS
                            "ISOFLOP_OPENBLAS_PATH=\"${_openblas_path}\"")
target_link_libraries(isoflop_train PUBLIC isoflop_core isoflop_units isoflop_model isoflop_catalog
                      OpenMP::OpenMP_CXX ${CMAKE_DL_LIBS})

# Where the installed binary finds the module: ${CMAKE_INSTALL_LIBDIR}/isoflop, relative to ${CMAKE_INSTALL_BINDIR}.
include(GNUInstallDirs)
set(ISOFLOP_CUDA_MODULE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/isoflop)
file(RELATIVE_PATH _module_rel ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${ISOFLOP_CUDA_MODULE_INSTALL_DIR})
set_source_files_properties(${CMAKE_SOURCE_DIR}/lib/train/backend.cpp PROPERTIES COMPILE_DEFINITIONS
                            "ISOFLOP_CUDA_MODULE_RELDIR=\"${_module_rel}\"")

if(ISOFLOP_HAVE_CUDA)
  # The kernels and the backend, compiled once (position-independent) for the module and for tests/gpu, which
  # links them directly to test the kernels against the CPU layers. module_entry.cu is the module's C entry.
  file(GLOB _train_cuda_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lib/train/cuda/*.cu)
  list(FILTER _train_cuda_src EXCLUDE REGEX "/module_entry\\.cu$")
  add_library(isoflop_train_cuda OBJECT ${_train_cuda_src}
              ${CMAKE_SOURCE_DIR}/lib/train/layout.cpp ${CMAKE_SOURCE_DIR}/lib/train/config.cpp)
  target_include_directories(isoflop_train_cuda PUBLIC ${CMAKE_SOURCE_DIR}/lib)
  target_link_libraries(isoflop_train_cuda PUBLIC CUDA::cudart CUDA::cublasLt CUDA::cublas
                        nlohmann_json::nlohmann_json)
  # Device code: sm_80 and sm_90 (CMAKE_CUDA_ARCHITECTURES); warnings in host code of .cu files are errors too.
  target_compile_options(isoflop_train_cuda PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${ISOFLOP_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${ISOFLOP_WERROR}>>:-Werror=all-warnings>)
  set_target_properties(isoflop_train_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                        POSITION_INDEPENDENT_CODE ON)

  add_library(isoflop_cuda MODULE ${CMAKE_SOURCE_DIR}/lib/train/cuda/module_entry.cu
              $<TARGET_OBJECTS:isoflop_train_cuda>)
  target_link_libraries(isoflop_cuda PRIVATE isoflop_train_cuda)
  target_compile_options(isoflop_cuda PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${ISOFLOP_WERROR}>>:-Werror=all-warnings>)
  # Built next to the binary (found there in the build tree); keeps its RPATH to the CUDA libraries installed.
  set_target_properties(isoflop_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} INSTALL_RPATH_USE_LINK_PATH ON)
  target_link_options(isoflop_cuda PRIVATE -Wl,--no-undefined)
  install(TARGETS isoflop_cuda LIBRARY DESTINATION ${ISOFLOP_CUDA_MODULE_INSTALL_DIR})
endif()

# tests/train also drives the real binary (bad jobs, SIGINT, --resume); build it before the tests. `train` on a
# cuda job needs the module next to it.
function(isoflop_train_test_deps)
  if(TARGET test_train AND TARGET isoflop)
    add_dependencies(test_train isoflop)
  endif()
  if(TARGET isoflop_cuda AND TARGET isoflop)
    add_dependencies(isoflop isoflop_cuda)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL isoflop_train_test_deps)
