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

#include <climits>
#include <iostream>
#include <string>
#include <typeinfo>
#include <vector>
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"
#include "opencv2/cudaimage.hpp"

namespace cudaimage_test {

// Why there is no usable GPU ("" when there is one); computed once.
const std::string& gpuUnavailableReason();

// A Mat of random values over the whole range of its depth (never constant data).
cv::Mat randomMat(cv::Size size, int type, cv::RNG& rng);

// Elements (channels counted separately) where a and b differ; -1 if their sizes or types differ.
int countDifferent(const cv::Mat& a, const cv::Mat& b);
inline bool matsEqual(const cv::Mat& a, const cv::Mat& b) { return countDifferent(a, b) == 0; }

// The integer in environment variable `name`, or dflt where it is unset or empty.
int envInt(const char* name, int dflt);

// g downloaded on s, after s has finished.
cv::Mat toHost(const cv::cuda::GpuMat& g, cv::cuda::Stream& s);

// The stream argument for calls that must fail before any CUDA call. A defaulted stream argument
// is Stream::Null(), which the *caller* evaluates and which asks the driver for the current device:
// without a driver that throws GpuApiCallError before our checks run. wrapStream(0) makes no CUDA call.
cv::cuda::Stream& noCudaStream();

// Launches the CUDA graph `exec` on s `rounds` times, each on new random data (from rng) uploaded
// first into src, the buffer the graph reads: check(input, what dst then holds, round).
template <typename Check>
void replayOnNewData(cudaGraphExec_t exec, cv::cuda::Stream& s, cv::cuda::GpuMat& src, const cv::cuda::GpuMat& dst,
                     cv::RNG& rng, int rounds, Check check)
{
    for (int round = 0; round < rounds; round++)
    {
        const cv::Mat input = randomMat(src.size(), src.type(), rng);
        src.upload(input, s);
        ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, cv::cuda::StreamAccessor::getStream(s)));
        check(input, toHost(dst, s), round);
    }
}

const int kAnyCode = INT_MIN;

// f must throw cv::Exception with `code` (unless kAnyCode) whose message contains every needle.
// Prints "[ <tag> ] test | code | message": doc/errors.md quotes these lines.
template <typename F>
void expectError(F f, int code, const std::vector<std::string>& needles, const char* tag)
{
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    try
    {
        f();
        ADD_FAILURE() << test << ": no cv::Exception";
    }
    catch (const cv::Exception& e)
    {
        std::cout << "[ " << tag << " ] " << test << " | " << e.code << " | " << e.err << std::endl;
        if (code != kAnyCode)
        {
            EXPECT_EQ(code, e.code) << e.what();
        }
        for (const std::string& n : needles)
            EXPECT_NE(std::string::npos, e.err.find(n)) << "message should mention '" << n << "': " << e.err;
    }
    catch (const std::exception& e)
    {
        ADD_FAILURE() << test << ": a " << typeid(e).name() << " instead of cv::Exception: " << e.what();
    }
}

} // namespace cudaimage_test

// The library's internals (src/), which some tests include: declared here so that `gs` names them.
namespace cv { namespace cuda { namespace gaussian {} } }

// The names the tests share, declared once, for the tests' namespace only (the helpers' own code in
// namespace cudaimage_test does not see them): cv's (OpenCV's ts declares `using namespace cv` there
// itself), the CUDA and module types, the helpers above and in test/*.hpp (cudaimage_test), and
// `gs` for the library's internals.
namespace opencv_test {
#ifdef CUDAIMAGE_STANDALONE_TESTS
using namespace cv;
#endif
using cv::Mat;
using cv::Ptr;
using cv::Rect;
using cv::Scalar;
using cv::Size;
using cv::cuda::GpuMat;
using cv::cuda::Stream;
using cv::cuda::SyncedMat;
using cv::cuda::TransferStats;
using namespace cudaimage_test;
namespace gs = cv::cuda::gaussian;
} // namespace opencv_test

// First statement of every test that needs a CUDA device: skips with the reason otherwise.
#define CUDAIMAGE_REQUIRE_GPU()                                                            \
    do {                                                                                   \
        if (!::cudaimage_test::gpuUnavailableReason().empty())                             \
            CUDAIMAGE_SKIP("needs a CUDA device: " + ::cudaimage_test::gpuUnavailableReason()); \
    } while (0)

#define EXPECT_MAT_EQ(a, b) EXPECT_TRUE(::cudaimage_test::matsEqual((a), (b)))

#endif
