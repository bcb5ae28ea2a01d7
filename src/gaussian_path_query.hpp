// The vocabulary every Gaussian kernel path speaks (src/paths/<name>/<name>_path.hpp): what a
// path is asked (PathQuery), what it answers (Verdict), what it prepares from (FilterTaps), and the
// decision the list of paths reaches (PathChoice, src/gaussian_paths.hpp). Pure host code, no CUDA
// call: the tests check every rule without a GPU.
#ifndef CUDAIMAGE_GAUSSIAN_PATH_QUERY_HPP
#define CUDAIMAGE_GAUSSIAN_PATH_QUERY_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include "opencv2/core/hal/interface.h"
#include "gaussian_taps.hpp"
#include "gaussian_tile.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** OPENCV_CUDAIMAGE_TENSOR_CORES, read at filter creation: unset, 1/on/true/yes: the tensor-core
 * path where it measured faster (gaussian_tuning.hpp); 0/off/false/no: never (the CUDA-core
 * kernels, same results); all: at every radius it can take (for comparisons). */
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

/** 8U fixed-point taps (8 fraction bits) all fit a byte, as byte products (DP4A, IMMA) need; true
 * for the other depths, which do not multiply bytes. */
inline bool tapsFitByte(int depth, const std::vector<uint32_t>& fixedTaps)
{
    return depth != CV_8U || std::all_of(fixedTaps.begin(), fixedTaps.end(), [](uint32_t t) { return t <= 255u; });
}

/** What a filter gives every path to prepare its taps from, once, at creation (host only). */
struct FilterTaps
{
    int depth = CV_8U;
    int channels = 1;
    Taps1D x, y;
    TensorCoreMode tensorCores = TensorCoreMode::Auto;
};

/** What the choice of a path depends on: the filter, the call's images, the device. */
struct PathQuery
{
    int depth = CV_8U;              //!< source depth
    int channels = 1;               //!< 1 to 4
    int rx = 0, ry = 0;             //!< the filter's radii (ksize / 2)
    bool floatOutput = false;       //!< dst is CV_32F from a source of another depth
    bool horizontalTapsFitByte = true; //!< tapsFitByte() of the horizontal taps
    bool verticalTapsFitByte = true;   //!< tapsFitByte() of the vertical taps
    TensorCoreMode tensorCores = TensorCoreMode::Auto; //!< the switch, as read at filter creation
    bool unitRowOrColumn = false;   //!< this image is one row or column that is not filtered across
    bool dstInSrcAllocation = false; //!< in place, or dst inside the source's allocation
    size_t sharedMemOptIn = 0;      //!< the device's cudaDevAttrMaxSharedMemoryPerBlockOptin (bytes)
    int multiprocessors = 0;        //!< the device's SMs (0: unknown)
    int computeCapability = 90;     //!< 10 * major + minor: the row of gaussian_tuning.hpp
    bool tensorCoreCode = false;    //!< the tensor-core kernel's loaded code is for sm_80 or later (tensorCoreCodeRuns())

    int radius() const { return std::max(rx, ry); }
};

/** A path's answer to a query: whether it takes the call, why (or why not), and the launch
 * geometry it would use. */
struct Verdict
{
    bool accepted = false;
    const char* reason = "";
    int tileOutputs = 0;      //!< single-kernel paths: output elements per block row
    size_t sharedBytes = 0;   //!< single-kernel paths: dynamic shared memory per block
    int residentBlocks = 0;   //!< persistent grids: blocks the grid holds; 0: one block per tile

    static Verdict decline(const char* why) { Verdict v; v.reason = why; return v; }
    static Verdict accept(const char* why, int tileOutputs = 0, size_t sharedBytes = 0, int residentBlocks = 0)
    {
        Verdict v;
        v.accepted = true;
        v.reason = why;
        v.tileOutputs = tileOutputs;
        v.sharedBytes = sharedBytes;
        v.residentBlocks = residentBlocks;
        return v;
    }
};

/** The decision for one call: the path (its position in the list and its name), its verdict, and
 * why each path before it declined. */
struct PathChoice : Verdict
{
    static constexpr int kMaxPaths = 8;
    int index = -1;           //!< position of the path in the list (src/gaussian_paths.hpp)
    const char* name = "";    //!< the path's name
    int radius = 0;           //!< R = max(rx, ry)
    const char* declined[kMaxPaths] = {}; //!< declined[i]: why path i did not take the call (i < index)
};

/** The limits every single-kernel path shares (no scratch image: it reads rows other blocks
 * write, and its taps hold the filter's kernel in both directions), or nullptr when none applies. */
inline const char* singleKernelLimit(const PathQuery& q)
{
    // A single row or column (not filtered across) uses a one-tap kernel in one direction, which
    // the two-pass kernels take at run time. Such an image is one row or column: no speed to win.
    if (q.unitRowOrColumn)
        return "one row or column, not filtered across";
    // A block reads 2R halo rows and columns that its neighbours overwrite when dst is (in) src's
    // memory; the two-pass path reads the whole source into scratch before it writes dst.
    if (q.dstInSrcAllocation)
        return "dst in the source's allocation (in place)";
    if (q.radius() < 1)
        return "radius 0 (1x1 kernel)";
    return nullptr;
}

/** The rule of the CUDA-core single kernels (src/paths/fused, src/paths/fused_large), one rule over
 * their tiles: singleKernelLimit(); 8U vertical taps that fit a byte (the vertical sums are DP4A
 * byte products: a tap of 256, from a 1-tap column or a sigma so small that the centre tap takes
 * all the weight, does not fit); the radius within the tile's range; a tile of at least one item
 * after the halo; the tile's shared memory within the device's. Tile gives kMinR, kMaxR, halo()
 * and the four reasons kBelow, kAbove, kNoRoom and kTooLarge. */
template <class Tile>
Verdict acceptCudaCoreTile(const PathQuery& q, const char* accepted)
{
    if (const char* limit = singleKernelLimit(q))
        return Verdict::decline(limit);
    if (q.depth == CV_8U && !q.verticalTapsFitByte)
        return Verdict::decline("8U vertical tap above 255 (DP4A multiplies bytes)");
    const int R = q.radius();
    if (R < Tile::kMinR)
        return Verdict::decline(Tile::kBelow);
    if (R > Tile::kMaxR)
        return Verdict::decline(Tile::kAbove);
    const int outputs = tile::tileOutputs<Tile>(R, q.channels);
    if (outputs < tile::itemOutputs(q.depth))
        return Verdict::decline(Tile::kNoRoom);
    const size_t bytes = tile::sharedBytes<Tile>(q.depth);
    if (bytes > q.sharedMemOptIn)
        return Verdict::decline(Tile::kTooLarge);
    return Verdict::accept(accepted, outputs, bytes);
}

}}} // namespace cv::cuda::gaussian

#endif
