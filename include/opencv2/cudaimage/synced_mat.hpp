#ifndef OPENCV_CUDAIMAGE_SYNCED_MAT_HPP
#define OPENCV_CUDAIMAGE_SYNCED_MAT_HPP
#include "opencv2/core/cuda.hpp"
#endif
