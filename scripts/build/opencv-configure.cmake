# Initial CMake cache for OpenCV 5.1 / 4.14 + contrib CUDA modules (cmake -C this file);
# scripts/build/build-module.sh adds cudaimage to the same tree.
# Only what cudaimage, its tests, its Python bindings and its peers need; everything else off.
set(CMAKE_BUILD_TYPE Release CACHE STRING "")
set(CMAKE_CXX_STANDARD 17 CACHE STRING "")               # CUDA 13's CCCL needs C++17
set(BUILD_LIST "core,imgproc,imgcodecs,videoio,highgui,ts,python3,cudev,cudaarithm,cudafilters,cudaimage" CACHE STRING "")
set(WITH_CUDA ON CACHE BOOL "")
set(CUDA_ARCH_PTX "" CACHE STRING "")                    # SASS only: smaller bundle, no JIT at start-up
# --std=c++17: CCCL; no vector deprecation spam (CUDA 13 long4 etc.); compressed fatbins.
set(CUDA_NVCC_FLAGS "--std=c++17;-D__NV_NO_VECTOR_DEPRECATION_DIAG;-Xfatbin=-compress-all" CACHE STRING "")
foreach(opt CUBLAS CUFFT CUDNN NVCUVID NVCUVENC OPENCL IPP ITT LAPACK EIGEN TBB OPENMP OPENEXR WEBP TIFF
            JASPER OPENJPEG AVIF FFMPEG GSTREAMER V4L 1394 GTK QT VTK OPENGL VA VA_INTEL GDAL GDCM
            PROTOBUF ADE QUIRC FLATBUFFERS OBSENSOR CAROTENE IMGCODEC_HDR IMGCODEC_SUNRASTER
            IMGCODEC_PXM IMGCODEC_PFM)
  set(WITH_${opt} OFF CACHE BOOL "")
endforeach()
# PNG, JPEG and zlib come from Debian's -dev packages (smaller, faster build than 3rdparty/).
foreach(lib ZLIB PNG JPEG TIFF WEBP OPENJPEG)
  set(BUILD_${lib} OFF CACHE BOOL "")
endforeach()
set(BUILD_TESTS ON CACHE BOOL "")
set(BUILD_PERF_TESTS ON CACHE BOOL "")
# OpenCV's own tests of the NPP-backed modules (cudaarithm, cudafilters), not cudev's slow ones
set(OPENCV_BUILD_TEST_MODULES_LIST "cudaimage;cudaarithm;cudafilters" CACHE STRING "")
set(OPENCV_BUILD_PERF_TEST_MODULES_LIST "cudaimage" CACHE STRING "")
foreach(off EXAMPLES DOCS opencv_apps JAVA opencv_python2 opencv_js)
  set(BUILD_${off} OFF CACHE BOOL "")
endforeach()
set(BUILD_opencv_python3 ON CACHE BOOL "")
set(PYTHON3_LIMITED_API ON CACHE BOOL "")                # abi3: one cv2 for Python 3.11 and 3.12
set(CPU_DISPATCH "" CACHE STRING "")
set(OPENCV_GENERATE_PKGCONFIG ON CACHE BOOL "")
set(INSTALL_TESTS OFF CACHE BOOL "")
