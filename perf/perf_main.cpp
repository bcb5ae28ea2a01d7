#include "perf_precomp.hpp"
CV_PERF_TEST_CUDA_MAIN(cudaimage)
