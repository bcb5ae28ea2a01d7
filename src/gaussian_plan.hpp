// Which kernel path blurs one call, decided in one function from the filter's parameters, the
// call's image geometry and the device's shared-memory limit. A pure function (no CUDA call), so
// test_gaussian_plan.cpp checks every boundary without a GPU; header-only, so the tests compile the
// same code as the library (whose internal symbols are hidden).
//
//   path        kernel file                       radius R = max(rx, ry)   one launch, no scratch
//   TensorCore  src/cuda/gaussian_tensor8u.cu     tensorCoreMinRadius(cn)..128 (8U)  yes
//   Fused       src/cuda/gaussian_fused.cu        1 .. 8 (template)        yes
//   FusedLarge  src/cuda/gaussian_fused_large.cu  9 .. 128 (run time)      yes
//   TwoPass     src/cuda/gaussian_separable.cu    any, in place            no: a stream-ordered scratch image
#ifndef CUDAIMAGE_GAUSSIAN_PLAN_HPP
#define CUDAIMAGE_GAUSSIAN_PLAN_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "gaussian_geometry.hpp"

namespace cv { namespace cuda { namespace gaussian {

enum class Path { TensorCore, Fused, FusedLarge, TwoPass };

inline const char* pathName(Path p)
{
    return p == Path::TensorCore ? "tensor-core" : p == Path::Fused ? "fused" : p == Path::FusedLarge ? "fused-large" : "two-pass";
}

/** What the choice depends on. */
struct PathQuery
{
    int depth = CV_8U;              //!< source depth
    int channels = 1;               //!< 1 to 4
    int rx = 0, ry = 0;             //!< the filter's radii (ksize / 2)
    bool verticalTapsFitByte = true; //!< 8U: every vertical fixed-point tap is at most 255 (verticalTapsFitByte())
    bool tensorCoreTaps = false;    //!< 8U, byte taps both ways, switch on (TensorTaps8U::valid), 8-bit dst
    bool tensorCoreAnyRadius = false; //!< OPENCV_CUDAIMAGE_TENSOR_CORES=all: the tensor cores from radius 1 (comparisons)
    bool tensorCoreCode = false;    //!< the tensor-core kernel's code for this device is for sm_80 or later (tensorCoreCodeRuns())
    bool unitRowOrColumn = false;   //!< this image is one row or column that is not filtered across
    bool dstInSrcAllocation = false; //!< in place, or dst inside the source's allocation
    size_t sharedMemOptIn = 0;      //!< the device's cudaDevAttrMaxSharedMemoryPerBlockOptin (bytes)
    int multiprocessors = 0;        //!< the device's SMs (0: unknown)
};

/** The decision, with the geometry the fused launchers use. */
struct PathChoice
{
    Path path = Path::TwoPass;
    int radius = 0;           //!< R = max(rx, ry)
    int tileOutputs = 0;      //!< fused paths: output elements per block row
    size_t sharedBytes = 0;   //!< fused paths: dynamic shared memory per block
    int residentBlocks = 0;   //!< tensor-core path: blocks the grid holds (its blocks take tiles in turn); 0: one block per tile
    const char* reason = "";  //!< the rule that decided
};

/** 8U vertical taps (fixed point, 8 fraction bits) all fit a byte, as DP4A needs. */
inline bool verticalTapsFitByte(int depth, const std::vector<uint32_t>& fixedTaps)
{
    return depth != CV_8U || std::all_of(fixedTaps.begin(), fixedTaps.end(), [](uint32_t t) { return t <= 255u; });
}

/** Smallest radius at which an 8U filter with byte taps takes the tensor-core path
 * (src/cuda/gaussian_tensor8u.cu) instead of the CUDA-core fused kernels, by channel count: where it
 * measured at least as fast (H200, session 9, perf/NOTES.md section 17). One channel: from radius 6
 * (sweep, 8UC1: 0.411 against 0.414 ms at 16384^2 and 41 against 49 us at 3840x2160; 0.53 against
 * 1.01 ms at 9, 1.75 against 7.42 ms at 128; at radius 1..5 the small CUDA-core kernel is faster
 * at 16384^2, 0.28-0.39 against ~0.41 ms). More channels: from radius 9, where it replaces the
 * large-radius CUDA-core kernel (8UC3/8UC4 at sigma 5, 10, 30 faster); at radius 6 (sigma 2) it
 * measured slower (8UC3 1.32 against ~1.05 ms, 8UC4 1.81 against ~1.36 ms). */
constexpr int tensorCoreMinRadius(int channels) { return channels == 1 ? 6 : geometry::LargeTile::kMinR; }

/** The path for one call. Every rule is a limit of a kernel; the first that applies decides. */
inline PathChoice choosePath(const PathQuery& q)
{
    using namespace geometry;
    PathChoice c;
    c.radius = std::max(q.rx, q.ry);
    const int R = c.radius;
    auto twoPass = [&](const char* why) { c.path = Path::TwoPass; c.tileOutputs = 0; c.sharedBytes = 0; c.reason = why; return c; };

    // The fused taps hold the filter's kernel in both directions; a single row or column (not
    // filtered across) uses a one-tap kernel in one direction, which the two-pass kernels take at
    // run time. Such an image is one row or column: no speed to win.
    if (q.unitRowOrColumn)
        return twoPass("one row or column, not filtered across");
    // A fused block reads 2R halo rows and columns that its neighbours overwrite when dst is (in)
    // src's memory; the two-pass path reads the whole source into scratch before it writes dst.
    if (q.dstInSrcAllocation)
        return twoPass("dst in the source's allocation (in place)");
    // A 1x1 kernel: the fused kernels are instantiated from radius 1.
    if (R < SmallTile::kMinR)
        return twoPass("radius 0 (1x1 kernel)");
    // 8U vertical sums are DP4A byte products: a tap of 256 (a 1-tap column, or a sigma so small that
    // the centre tap takes all the weight) does not fit.
    if (!q.verticalTapsFitByte && q.depth == CV_8U)
        return twoPass("8U vertical tap above 255 (DP4A multiplies bytes)");

    // 8U, 8-bit taps and results: both passes as exact byte products on the tensor cores, where the
    // tile holds an item after its halo (4 channels: radius <= 122), the device holds the kernel's
    // largest tile (108-120 KiB by channel count: sm_80, sm_90; not sm_75/86/89) and the kernel's
    // code for it is for sm_80 or later: otherwise the CUDA-core kernels below.
    if (q.tensorCoreTaps && q.tensorCoreCode && R >= (q.tensorCoreAnyRadius ? TensorTile::kMinR : tensorCoreMinRadius(q.channels)) &&
        R <= TensorTile::kMaxR && tileOutputs<TensorTile>(R, q.channels) >= 16 &&
        TensorTile::maxSharedBytes(q.channels) <= q.sharedMemOptIn)
    {
        c.tileOutputs = tileOutputs<TensorTile>(R, q.channels);
        c.sharedBytes = TensorTile::sharedBytes(R, q.channels);
        // Two blocks per SM (the kernel's launch bounds; one where its shared memory allows only
        // one, then two rounds of equal size).
        c.residentBlocks = 2 * q.multiprocessors;
        c.path = Path::TensorCore;
        c.reason = "8U, byte taps: tensor cores";
        return c;
    }
    if (R <= SmallTile::kMaxR)
    {
        // Radius as a template parameter: 8 instances per depth and channel count; more would
        // grow the code past the instruction cache (perf/NOTES.md section 8). Every R <= 8 has a
        // tile for 4 channels (static_assert in gaussian_geometry.hpp).
        c.tileOutputs = tileOutputs<SmallTile>(R, q.channels);
        c.sharedBytes = sharedBytes<SmallTile>(q.depth);
        // 33,024 bytes: below the 48 KiB every GPU gives without opt-in.
        if (c.sharedBytes > q.sharedMemOptIn)
            return twoPass("fused tile exceeds the device's shared memory");
        c.path = Path::Fused;
        c.reason = "radius 1..8";
        return c;
    }
    if (R <= LargeTile::kMaxR)
    {
        // The taps are one kernel parameter sized for radius 128 (FusedLargeTapsT). The halo grows
        // with R * channels while the block stays 1024 elements wide: for 4 channels the tile
        // falls below one item after R = 122 (every depth: 1024 - 2 * roundUp((R + 4) * 4, 8) < 16).
        // This rule is validity only: near that limit a block computes 1024 vertical columns for a
        // few outputs, and where the two-pass path gets faster has not been measured.
        c.tileOutputs = tileOutputs<LargeTile>(R, q.channels);
        c.sharedBytes = sharedBytes<LargeTile>(q.depth);
        if (c.tileOutputs < itemOutputs(q.depth))
            return twoPass("large-radius tile has no room after the halo (4 channels, radius above 122)");
        // 65,792 bytes: above sm_75's 64 KiB opt-in limit, within sm_80/86/89/90's.
        if (c.sharedBytes > q.sharedMemOptIn)
            return twoPass("large-radius tile exceeds the device's shared memory");
        c.path = Path::FusedLarge;
        c.reason = "radius 9..128";
        return c;
    }
    return twoPass("radius above 128");
}

}}} // namespace cv::cuda::gaussian

#endif
