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

/** OPENCV_CUDAIMAGE_TENSOR_CORES, read at filter creation: unset, 1/on/true/yes: the tensor-core
 * path where it measured faster (gaussian_plan.hpp, tensorCoreMinRadius); 0/off/false/no: never
 * (the CUDA-core kernels, same results); all: at every radius it can take (for comparisons). */
enum class TensorCoreMode { Off, Auto, All };

inline TensorCoreMode tensorCoreMode()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_TENSOR_CORES");
    if (!v)
        return TensorCoreMode::Auto;
    const std::string s(v);
    if (s == "0" || s == "OFF" || s == "off" || s == "FALSE" || s == "false" || s == "NO" || s == "no")
        return TensorCoreMode::Off;
    return s == "all" || s == "ALL" ? TensorCoreMode::All : TensorCoreMode::Auto;
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
    const TensorCoreMode mode = tensorCoreMode();
    if (depth != CV_8U || channels < 1 || channels > 4 || R < Tile::kMinR || R > Tile::kMaxR || mode == TensorCoreMode::Off)
        return t;
    t.anyRadius = mode == TensorCoreMode::All;
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
