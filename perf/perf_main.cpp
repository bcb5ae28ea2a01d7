#include "perf_precomp.hpp"

// CV_PERF_TEST_CUDA_MAIN, except that a machine without a CUDA device gets a message and skipped
// tests instead of an abort in perf::printCudaInfo().
static void printDeviceOrReason()
{
    const int n = cv::cuda::getCudaEnabledDeviceCount();
    if (n > 0)
        perf::printCudaInfo();
    else
        printf("[----------]\n[ GPU INFO ] \tno CUDA device (getCudaEnabledDeviceCount() = %d): GPU perf tests skip\n[----------]\n", n);
}

int main(int argc, char** argv)
{
    // Without a device the "cuda" implementation would abort in the harness's set-up
    // (cv::cuda::DeviceInfo); run as "plain" instead, so GPU tests skip (PERF_RUN_CUDA() is false).
    std::vector<char*> args(argv, argv + argc);
    static char plain[] = "--perf_impl=plain";
    if (cv::cuda::getCudaEnabledDeviceCount() <= 0)
        args.push_back(plain);
    args.push_back(nullptr);
    argc = static_cast<int>(args.size()) - 1;
    argv = args.data();
    const char* impls[] = { "cuda", "plain" };
    CV_PERF_TEST_MAIN_INTERNALS(cudaimage, impls, printDeviceOrReason())
}
