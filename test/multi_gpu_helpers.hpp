// What the tests of several GPUs share (test_batch_processor.cpp, test_synced_mat_cross_device.cpp,
// test_gaussian_cross_device.cpp): the skip without a second GPU, the other device, their error
// check, the CPU blur they compare with, and the bytes one transfer of a SyncedMat copies.
#ifndef CUDAIMAGE_TEST_MULTI_GPU_HELPERS_HPP
#define CUDAIMAGE_TEST_MULTI_GPU_HELPERS_HPP

#include <string>
#include <vector>
#include "test_precomp.hpp"

// First statement of every test that needs two CUDA devices: skips with "needs 2 GPUs" otherwise.
#define CUDAIMAGE_REQUIRE_TWO_GPUS()                                      \
    do {                                                                  \
        CUDAIMAGE_REQUIRE_GPU();                                          \
        if (cv::cuda::getCudaEnabledDeviceCount() < 2)                    \
            CUDAIMAGE_SKIP("needs 2 GPUs");                               \
    } while (0)

namespace cudaimage_test { namespace multi_gpu {

// cudaimage_test::expectError under the tag "MULTIGPU": doc/errors.md quotes these lines.
template <typename F>
void expectError(F f, int code, const std::vector<std::string>& needles)
{
    ::cudaimage_test::expectError(f, code, needles, "MULTIGPU");
}

// The second device of a two-GPU test whose current device is d.
inline int otherDevice(int d) { return d == 0 ? 1 : 0; }

// CPU cv::GaussianBlur with the kernel size derived from sigma and BORDER_REPLICATE (the GPU
// functions' default border).
inline cv::Mat cpuBlur(const cv::Mat& src, double sigma)
{
    cv::Mat dst;
    cv::GaussianBlur(src, dst, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
    return dst;
}

// The bytes of m's whole storage: what one upload, download or peer copy of it moves.
inline size_t bytesOf(const cv::cuda::SyncedMat& m) { return (size_t)m.storageSize().area() * m.elemSize(); }

}} // namespace cudaimage_test::multi_gpu

// The tests that include this header name these helpers unqualified.
namespace opencv_test { using namespace cudaimage_test::multi_gpu; }

#endif
