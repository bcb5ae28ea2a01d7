// The same test sources compile in both build modes:
//  - module build (inside OpenCV): OpenCV's ts harness (its bundled GoogleTest, CV_CUDA_TEST_MAIN);
//  - standalone build: the system GoogleTest (CUDAIMAGE_STANDALONE_TESTS is defined).
// Tests use only GoogleTest macros plus the helpers below, and live in
// `namespace opencv_test { namespace { ... } }` (OpenCV's ts requires that namespace for TEST()).
#ifndef CUDAIMAGE_TEST_PRECOMP_HPP
#define CUDAIMAGE_TEST_PRECOMP_HPP

#ifdef CUDAIMAGE_STANDALONE_TESTS
#  include <gtest/gtest.h>
#  define CUDAIMAGE_SKIP(msg) GTEST_SKIP() << (msg)
#else
#  include "opencv2/ts.hpp"
#  include "opencv2/ts/cuda_test.hpp"
#  define CUDAIMAGE_SKIP(msg) throw ::cvtest::SkipTestException(msg)
#endif

#include <string>
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"
#include "opencv2/cudaimage.hpp"

#ifdef CUDAIMAGE_STANDALONE_TESTS
namespace opencv_test { using namespace cv; }
#endif

namespace cudaimage_test {

// Why there is no usable GPU ("" when there is one); computed once.
const std::string& gpuUnavailableReason();

// A Mat of random values over the whole range of its depth (never constant data).
cv::Mat randomMat(cv::Size size, int type, cv::RNG& rng);

} // namespace cudaimage_test

// First statement of every test that needs a CUDA device: skips with the reason otherwise.
#define CUDAIMAGE_REQUIRE_GPU()                                                            \
    do {                                                                                   \
        if (!::cudaimage_test::gpuUnavailableReason().empty())                             \
            CUDAIMAGE_SKIP("needs a CUDA device: " + ::cudaimage_test::gpuUnavailableReason()); \
    } while (0)

#endif
