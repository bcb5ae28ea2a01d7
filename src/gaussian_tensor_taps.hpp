// The taps of the 8U tensor-core path (src/cuda/gaussian_tensor8u.cu) and whether the
// path can run a filter at all. Host code, header-only, so that test_gaussian_tensor_cores.cpp checks
// the same rules without a GPU (the library's internal symbols are hidden).
#ifndef CUDAIMAGE_GAUSSIAN_TENSOR_TAPS_HPP
#define CUDAIMAGE_GAUSSIAN_TENSOR_TAPS_HPP

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include "gaussian_launch.hpp"
#include "gaussian_taps.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** OPENCV_CUDAIMAGE_TENSOR_CORES (default on): whether 8U filters made from now on may take the
 * tensor-core path; 0/off/false/no gives the CUDA-core kernels (same results), for comparisons. */
inline bool tensorCoresEnabled()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_TENSOR_CORES");
    if (!v)
        return true;
    const std::string s(v);
    return !(s == "0" || s == "OFF" || s == "off" || s == "FALSE" || s == "false" || s == "NO" || s == "no");
}

/** The tensor-core path's taps; valid only for 8U, 1 to 4 channels, 1 <= max(rx, ry) <= 128, every
 * fixed-point tap at most 255 in both directions and the switch on (read here, at filter creation).
 * choosePath() (gaussian_plan.hpp) takes the path only where valid and the tile fits. */
inline TensorTaps8U makeTensorTaps8U(int depth, int channels, const Taps1D& x, const Taps1D& y)
{
    typedef geometry::TensorTile Tile;
    TensorTaps8U t;
    const int rx = static_cast<int>(x.fixed.size()) / 2, ry = static_cast<int>(y.fixed.size()) / 2;
    const int R = std::max(rx, ry);
    if (depth != CV_8U || channels < 1 || channels > 4 || R < Tile::kMinR || R > Tile::kMaxR || !tensorCoresEnabled())
        return t;
    t.r = R;
    t.channels = channels;
    t.lead = Tile::lead(R, channels);
    t.nh = Tile::taps(R, channels);
    t.hChunks = Tile::hChunks(R, channels);
    t.vChunks = Tile::vChunks(R);
    std::vector<uint32_t> cx, cy;
    t.valid = centredByteTaps(x.fixed, R, cx) && centredByteTaps(y.fixed, R, cy);
    std::copy(cx.begin(), cx.end(), t.h + t.lead);   // bytes: every tap checked above (or invalid)
    std::copy(cy.begin(), cy.end(), t.v);
    return t;
}

}}} // namespace cv::cuda::gaussian

#endif
