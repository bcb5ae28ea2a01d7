#include "opencv2/ts.hpp"
#include "opencv2/ts/cuda_perf.hpp"
CV_PERF_TEST_CUDA_MAIN(cudaimage)
