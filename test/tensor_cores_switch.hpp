// The tensor-core switch for the filters of one scope, one blur on the device under it, and a
// unit's taps for given 1-D taps: what the tensor-core tests (test_gaussian_tensor_cores*.cpp) share.
#ifndef CUDAIMAGE_TEST_TENSOR_CORES_SWITCH_HPP
#define CUDAIMAGE_TEST_TENSOR_CORES_SWITCH_HPP

#include <cstdint>
#include <cstdlib>
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "../src/gaussian_filter_options.hpp"

namespace cudaimage_test {

// OPENCV_CUDAIMAGE_TENSOR_CORES for the filters created in one scope (read at creation): "1" (the
// default: where the path measured faster), "all" (every radius it can take), "0" (never). For the
// tests of the switch itself; the others give filters their options (tensorCoreOptions()).
struct TensorCoresSwitch
{
    explicit TensorCoresSwitch(const char* mode) { setenv("OPENCV_CUDAIMAGE_TENSOR_CORES", mode, 1); }
    ~TensorCoresSwitch() { unsetenv("OPENCV_CUDAIMAGE_TENSOR_CORES"); }
};

// The filter options of the switch's values ("1", "all", "0"), given to the filter at creation
// instead of through the environment.
inline cv::cuda::gaussian::GaussianPaths::Options tensorCoreOptions(const std::string& mode)
{
    namespace gs = cv::cuda::gaussian;
    return path::optionsWith(mode == "all" ? gs::TensorCoreMode::All : mode == "0" ? gs::TensorCoreMode::Off : gs::TensorCoreMode::Auto);
}

// src blurred on the device with a (2 rx + 1) x (2 ry + 1) kernel (ry < 0: square), the switch at
// `tensorCores` (its options), into dstView when given.
inline cv::Mat blurOnDevice(const cv::cuda::GpuMat& src, int dstType, int r, int border, const char* tensorCores,
                            cv::cuda::GpuMat* dstView = nullptr, int ry = -1)
{
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::gaussian::createGaussianBlurWithOptions(
        src.type(), dstType, cv::Size(2 * r + 1, 2 * (ry < 0 ? r : ry) + 1), 0, 0, border, border, tensorCoreOptions(tensorCores));
    cv::cuda::GpuMat own;
    cv::cuda::GpuMat& d = dstView ? *dstView : own;
    f->apply(src, d);
    cv::Mat out;
    d.download(out);
    return out;
}

// The taps a tensor-core unit prepares for a filter of `depth` and `channels` with these 1-D taps.
template <class Unit>
auto unitTaps(int depth, int channels, const cv::cuda::gaussian::Taps1D& x, const cv::cuda::gaussian::Taps1D& y)
{
    cv::cuda::gaussian::FilterTaps f;
    f.depth = depth;
    f.channels = channels;
    f.x = x;
    f.y = y;
    return Unit::prepare(f);
}

// 2r+1 fixed-point taps: `centre` in the middle, 1 + (m * step) % modulus at the others (their sum
// does not matter to how a unit places them).
inline cv::cuda::gaussian::Taps1D fixedTaps(int r, uint32_t centre, uint32_t step, uint32_t modulus)
{
    cv::cuda::gaussian::Taps1D t;
    for (int m = 0; m <= 2 * r; m++)
        t.fixed.push_back(m == r ? centre : 1 + static_cast<uint32_t>(m) * step % modulus);
    t.real.assign(t.fixed.size(), 0.0);
    return t;
}

// Every radius R from minR to maxR with the other direction's radius R or R / 2 (square, and wider
// than tall), either way round: check(R, rx, ry, taps(rx), taps(ry)), under a trace that names rx
// and ry. The sweep stops at the first fatal failure (an ASSERT in check), as a loop would.
template <class MakeTaps, class Check>
void forEachTapShape(int minR, int maxR, MakeTaps taps, Check check)
{
    for (int R = minR; R <= maxR; R++)
        for (int other : {R, R / 2})
        {
            const cv::cuda::gaussian::Taps1D a = taps(other), b = taps(R);
            for (bool swap : {false, true})
            {
                const int rx = swap ? R : other, ry = swap ? other : R;
                SCOPED_TRACE(cv::format("rx %d, ry %d", rx, ry));
                check(R, rx, ry, swap ? b : a, swap ? a : b);
                if (::testing::Test::HasFatalFailure())
                    return;
            }
        }
}

} // namespace cudaimage_test

#endif
