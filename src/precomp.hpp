// Host sources' common includes. Only public OpenCV headers, so the same sources build inside
// OpenCV (module build) and against an installed OpenCV (standalone build): do not include
// opencv2/core/private.cuda.hpp (it refuses to compile outside the OpenCV tree).
#ifndef CUDAIMAGE_PRECOMP_HPP
#define CUDAIMAGE_PRECOMP_HPP
#include "opencv2/cudaimage.hpp"
#include "opencv2/core/utility.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"
#include "cuda_check.hpp"
#endif
