# What both builds of cudaimage compile, and how: included by the standalone project
# (CMakeLists.txt) and by the OpenCV extra module (modules/cudaimage/CMakeLists.txt).
#
#   CUDAIMAGE_CUDA_FLAGS           nvcc options of our CUDA code
#   CUDAIMAGE_COMPILE_DEFINITIONS  definitions of every file of ours (C++ and CUDA)
#   cudaimage_glob_sources()       the library's sources: every .cpp and .cu file under src/, at any depth
#   cudaimage_module_cuda_sources() the .cu files OpenCV's module globbing leaves out
#   cudaimage_add_blur_tool()      the command-line tool cudaimage-blur
#
# Each build keeps its own way of making targets: plain targets in the standalone project (no
# global flags), OpenCV's module macros in the module (ocv_add_module ... WRAP python, accuracy and
# perf tests), which compile CUDA through FindCUDA and its CUDA_NVCC_FLAGS.

get_filename_component(CUDAIMAGE_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# --expt-relaxed-constexpr: constexpr helpers shared by host and device code;
# -lineinfo: source lines in Nsight Compute and compute-sanitizer reports;
# -Xfatbin=-compress-all: compressed device code, a smaller library.
# (scripts/ci/compile-archs.sh compiles every kernel with these too, through cudaimage_nvcc_flags.)
set(CUDAIMAGE_CUDA_FLAGS --expt-relaxed-constexpr -lineinfo -Xfatbin=-compress-all)
# CUDA 13 deprecates long4 & co., which cudev still names.
set(CUDAIMAGE_COMPILE_DEFINITIONS __NV_NO_VECTOR_DEPRECATION_DIAG)

# cudaimage_glob_sources(<src dir> <sources var> <headers var>)
# Every .cpp and .cu file under <src dir> (src/*.cpp, src/cuda/, each kernel path's folder
# src/paths/<name>/, ...), and the private headers (.hpp, .cuh, .h) for IDEs. Globbed again at
# build time when a file is added or removed.
function(cudaimage_glob_sources src_dir sources_var headers_var)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${src_dir}/*.cpp" "${src_dir}/*.cu")
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS "${src_dir}/*.hpp" "${src_dir}/*.cuh" "${src_dir}/*.h")
  list(SORT sources)
  list(SORT headers)
  set(${sources_var} ${sources} PARENT_SCOPE)
  set(${headers_var} ${headers} PARENT_SCOPE)
endfunction()

# cudaimage_module_cuda_sources(<src dir> <var>)
# The .cu files under <src dir> that OpenCV's ocv_glob_module_sources() does not take: it globs
# src/*.cpp at any depth but src/cuda/*.cu only. Pass them as ocv_glob_module_sources(SOURCES ...);
# ocv_add_library() compiles every .cu file of the module's sources.
function(cudaimage_module_cuda_sources src_dir var)
  cudaimage_glob_sources("${src_dir}" sources headers)
  set(extra)
  foreach(f ${sources})
    get_filename_component(dir "${f}" DIRECTORY)
    if(f MATCHES "\\.cu$" AND NOT dir STREQUAL "${src_dir}/cuda")
      list(APPEND extra "${f}")
    endif()
  endforeach()
  set(${var} ${extra} PARENT_SCOPE)
endfunction()

# cudaimage_nvcc_flags(<list var>)
# Appends CUDAIMAGE_CUDA_FLAGS and CUDAIMAGE_COMPILE_DEFINITIONS (as -D) to a list of nvcc options
# (the module build's CUDA_NVCC_FLAGS), each unless the list already has it (the OpenCV tree's
# configuration may: scripts/build/opencv-configure.cmake).
function(cudaimage_nvcc_flags var)
  set(flags ${${var}})
  foreach(f ${CUDAIMAGE_CUDA_FLAGS})
    if(NOT f IN_LIST flags)
      list(APPEND flags "${f}")
    endif()
  endforeach()
  foreach(d ${CUDAIMAGE_COMPILE_DEFINITIONS})
    if(NOT "-D${d}" IN_LIST flags)
      list(APPEND flags "-D${d}")
    endif()
  endforeach()
  set(${var} ${flags} PARENT_SCOPE)
endfunction()

# The OpenCV modules the tool links besides our library.
set(CUDAIMAGE_BLUR_TOOL_OPENCV_DEPS opencv_core opencv_imgproc opencv_imgcodecs)

# cudaimage_add_blur_tool(<target> LIBRARY <our library target> DESTINATION <install dir> [COMPONENT <c>])
# The command-line tool cudaimage-blur (tools/cudaimage_blur.cpp): the same program in both builds,
# linked to the build's cudaimage library (standalone: cudaimage; module: opencv_cudaimage) and
# installed with it. The caller adds what only its build needs (run paths, output folder).
function(cudaimage_add_blur_tool target)
  cmake_parse_arguments(ARG "" "LIBRARY;DESTINATION;COMPONENT" "" ${ARGN})
  if(NOT ARG_LIBRARY OR NOT ARG_DESTINATION)
    message(FATAL_ERROR "cudaimage_add_blur_tool(${target}): LIBRARY and DESTINATION are required")
  endif()
  add_executable(${target} "${CUDAIMAGE_SOURCE_ROOT}/tools/cudaimage_blur.cpp")
  set_target_properties(${target} PROPERTIES OUTPUT_NAME cudaimage-blur)
  target_compile_features(${target} PRIVATE cxx_std_17)
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARY} ${CUDAIMAGE_BLUR_TOOL_OPENCV_DEPS})
  if(ARG_COMPONENT)
    install(TARGETS ${target} RUNTIME DESTINATION "${ARG_DESTINATION}" COMPONENT ${ARG_COMPONENT})
  else()
    install(TARGETS ${target} RUNTIME DESTINATION "${ARG_DESTINATION}")
  endif()
endfunction()
