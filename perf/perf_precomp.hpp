#ifndef CUDAIMAGE_PERF_PRECOMP_HPP
#define CUDAIMAGE_PERF_PRECOMP_HPP
#include "opencv2/ts.hpp"
#include "opencv2/ts/cuda_perf.hpp"
#include "opencv2/cudaimage.hpp"
#include "opencv2/cudafilters.hpp"
#include "opencv2/imgproc.hpp"
#endif
