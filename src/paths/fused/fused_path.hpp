// Kernel path "fused": radius 1..8 as a template parameter, every depth and channel count; one
// kernel, no scratch image, taps as kernel parameters (fused_kernel.cu). This header is the path's
// unit: its tile, its rule (accepts), its taps and its launcher.
#ifndef CUDAIMAGE_PATHS_FUSED_PATH_HPP
#define CUDAIMAGE_PATHS_FUSED_PATH_HPP

#include <cstdint>
#include <cuda_runtime_api.h>
#include "../../gaussian_blur_call.hpp"
#include "../../gaussian_path_query.hpp"
#include "../../gaussian_tile.hpp"
#include "../../gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** 128 threads x 4 elements; the halo is the radius, rounded up to 8 elements (tiles stay 16-byte
 * aligned). */
struct FusedTile : tuning::FusedTileSize
{
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return tile::roundUp(r * cn, 8); }
    static constexpr const char* kBelow = "radius 0 (1x1 kernel)";
    static constexpr const char* kAbove = "radius above 8";
    static constexpr const char* kNoRoom = "fused tile has no room after the halo";
    static constexpr const char* kTooLarge = "fused tile exceeds the device's shared memory";
};
static_assert(FusedTile::kCols % 16 == 0, "tiles stay multiples of 16 elements");
static_assert(tile::tileOutputs<FusedTile>(FusedTile::kMaxR, 4) >= 16, "every radius has a tile for 4 channels");

/** Taps passed by value as kernel parameters: both directions zero-padded to the common radius
 * r = max(rx, ry). rx and ry bound the footprint: the float sources' kernels (32F, 64F) multiply no
 * padding tap into a sum, so that a NaN or an Inf reaches exactly the CPU's pixels (0 x NaN is NaN). */
struct FusedTapsF
{
    static constexpr int kMaxR = FusedTile::kMaxR;
    static constexpr int kWords = kMaxR / 2 + 1;
    int r = 0;
    int rx = 0, ry = 0;           //!< the filter's radii (r = max(rx, ry))
    float h[2 * kMaxR + 1] = {};  //!< horizontal; 8U: fixed-point taps * 2^-16
    float v[2 * kMaxR + 1] = {};  //!< vertical (FMA path)
    uint32_t vw[4][kWords] = {};  //!< 8U vertical DP4A words: vw[ph][q] byte b = tapY[4q + b - ph]
};
struct FusedTapsD
{
    int r = 0;
    int rx = 0, ry = 0;           //!< the filter's radii (r = max(rx, ry))
    double h[2 * FusedTapsF::kMaxR + 1] = {}; //!< 16U: fixed-point taps * 2^-32; 64F: the CPU's taps
    double v[2 * FusedTapsF::kMaxR + 1] = {};
    uint32_t vi[2 * FusedTapsF::kMaxR + 1] = {};  //!< 16U: the vertical taps as integers (DepthPolicy::VerticalAcc)
};
struct FusedTaps
{
    int r = 0;
    FusedTapsF f;         //!< 8U, 16S, 32F
    FusedTapsD d;         //!< 16U, 64F
};

struct FusedPath
{
    static constexpr const char* kName = "fused";
    typedef FusedTile Tile;
    typedef FusedTaps Taps;

    /** Radius 1..8 (acceptCudaCoreTile); the tile takes 33,024 bytes of shared memory, below the
     * 48 KiB every GPU gives without opt-in, and always has room for an item. */
    static Verdict accepts(const PathQuery& q, const tuning::ArchTuning&) { return acceptCudaCoreTile<Tile>(q, "radius 1..8"); }

    /** The taps for the filter's radius (r = 0 when no radius of the path fits). */
    static Taps prepare(const FilterTaps& f);

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
