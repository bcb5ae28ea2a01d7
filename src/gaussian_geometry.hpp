// Tile geometry of the fused Gaussian kernels, in one place for the kernels (src/cuda/gaussian_fused*.cu)
// and for the host's path choice (gaussian_plan.hpp), which must agree on it: the host decides from
// these numbers whether a kernel has a valid tile and fits the device's shared memory.
//
//   one block, one strip of stripRows(depth) output rows:
//
//   |<- halo ->|<------------- tile (outputs) ------------->|<- halo ->|     kCols elements
//   vertical pass: all kCols columns -> shared memory [stripRows][kCols + kPad] of the working type
//   horizontal pass: the tile's outputs, kItem (itemOutputs) consecutive elements at a time
//
// Invariants the kernels rely on (checked by the path choice, tested in test_gaussian_plan.cpp):
// tile >= one item, tile a multiple of the item (halo is a multiple of 8 elements, kCols of 16),
// and the shared memory of one block within the device's opt-in limit.
#ifndef CUDAIMAGE_GAUSSIAN_GEOMETRY_HPP
#define CUDAIMAGE_GAUSSIAN_GEOMETRY_HPP

#include <cstddef>
#include "opencv2/core/hal/interface.h"

#if defined(__CUDACC__)
#  define CUDAIMAGE_HOST_DEVICE __host__ __device__
#else
#  define CUDAIMAGE_HOST_DEVICE
#endif

namespace cv { namespace cuda { namespace gaussian { namespace geometry {

constexpr int kPad = 4;   // Work elements after each shared row (conflict-free 16-byte shared loads)

CUDAIMAGE_HOST_DEVICE constexpr int roundUp(int v, int m) { return (v + m - 1) / m * m; }

// Per source depth. 16U and 64F work in double, so a strip has half the rows of the float depths
// (same shared memory per block); 8U items are 16 outputs (one 16-byte store), the others 8.
CUDAIMAGE_HOST_DEVICE constexpr bool worksInDouble(int depth) { return depth == CV_16U || depth == CV_64F; }
CUDAIMAGE_HOST_DEVICE constexpr int stripRows(int depth) { return worksInDouble(depth) ? 8 : 16; }
CUDAIMAGE_HOST_DEVICE constexpr int workBytes(int depth) { return worksInDouble(depth) ? 8 : 4; }
CUDAIMAGE_HOST_DEVICE constexpr int itemOutputs(int depth) { return depth == CV_8U ? 16 : 8; }

/** gaussian_fused.cu: radius a template parameter (1..8); 128 threads x 4 elements. */
struct SmallTile
{
    static constexpr int kThreads = 128;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 8;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return roundUp(r * cn, 8); }
};

/** gaussian_fused_large.cu: radius at run time (9..128); 256 threads x 4 elements. The halo also
 * covers the zero taps that pad the horizontal window to whole groups of 4 (up to 3 in front, 3
 * behind): (r + 4) * cn. */
struct LargeTile
{
    static constexpr int kThreads = 256;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = SmallTile::kMaxR + 1;
    static constexpr int kMaxR = 128;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return roundUp((r + 4) * cn, 8); }
};

/** gaussian_tensor8u.cu: 8U, 1 to 4 channels, radius 1..128, both passes on the tensor cores; 256
 * threads, strips of 32 rows (two 16-row MMA halves), 1024 columns (elements). The halo covers the
 * radius and the up to 3 zero taps in front that make every horizontal window start a multiple of 4
 * elements, as LargeTile's, rounded up to 32 elements where the tile keeps room for an item (every
 * block's loads and stores then start on a 32-byte sector; 4 channels above radius 116: 8).
 * Shared memory (bytes): the vertical sums as two byte planes [kRows][kPlaneStride] with 64 bytes
 * of slack behind, the output bytes [kRows][kStride], and the A fragments of the horizontal and
 * the vertical Toeplitz tap matrices, 512 bytes each. */
struct TensorTile
{
    static constexpr int kThreads = 256;
    static constexpr int kCols = 1024;
    static constexpr int kRows = 32;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 128;
    static constexpr int kPlaneStride = kCols + 32;  // plane rows (bytes; swizzled, gaussian_imma.cuh)
    static constexpr int kStride = kCols + 16;       // output rows (bytes)
    static constexpr int kFixedBytes = 2 * kRows * kPlaneStride + 64 + kRows * kStride;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn)
    {
        return kCols - 2 * roundUp((r + 4) * cn, 32) >= 16 ? roundUp((r + 4) * cn, 32) : roundUp((r + 4) * cn, 8);
    }
    /** Zero taps in front of the horizontal taps so that (r + lead) * cn is a multiple of 4. */
    CUDAIMAGE_HOST_DEVICE static constexpr int lead(int r, int cn) { return (r * cn) % 4 == 0 ? 0 : lead(r + 1, cn) + 1; }
    /** Horizontal taps with the lead: lead + 2r + 1. */
    CUDAIMAGE_HOST_DEVICE static constexpr int taps(int r, int cn) { return lead(r, cn) + 2 * r + 1; }
    /** 32-element K chunks of the horizontal pass: the window of 16 outputs, 16 + cn (taps - 1). */
    CUDAIMAGE_HOST_DEVICE static constexpr int hChunks(int r, int cn) { return (16 + cn * (taps(r, cn) - 1) + 31) / 32; }
    /** 32-row K chunks of the vertical pass per 16-row half: its 16 + 2r source rows. The halves
     * start 16 rows apart, so a strip reads 32 vChunks + 16 source rows in 16-row blocks, each block
     * shared by both halves. */
    CUDAIMAGE_HOST_DEVICE static constexpr int vChunks(int r) { return (16 + 2 * r + 31) / 32; }
    /** Source rows a strip reads (the last block's rows past 32 + 2r meet zero taps). */
    CUDAIMAGE_HOST_DEVICE static constexpr int sourceRows(int r) { return 32 * vChunks(r) + 16; }
    static constexpr size_t sharedBytes(int r, int cn)
    {
        return static_cast<size_t>(kFixedBytes + (hChunks(r, cn) + vChunks(r)) * 512);
    }
    /** The most any radius asks for with cn channels (the kernel opts in for this once). */
    static constexpr size_t maxSharedBytes(int cn) { return sharedBytes(kMaxR, cn); }
};

/** Output elements per block row (may be zero or negative: no valid tile). */
template <class Tile>
CUDAIMAGE_HOST_DEVICE constexpr int tileOutputs(int r, int cn) { return Tile::kCols - 2 * Tile::halo(r, cn); }

/** Dynamic shared memory of one block (bytes): stripRows x (kCols + kPad) working elements. */
template <class Tile>
constexpr size_t sharedBytes(int depth)
{
    return static_cast<size_t>(stripRows(depth)) * static_cast<size_t>(Tile::kCols + kPad) * static_cast<size_t>(workBytes(depth));
}

static_assert(SmallTile::kCols % 16 == 0 && LargeTile::kCols % 16 == 0 && TensorTile::kCols % 32 == 0,
              "tiles stay multiples of 16 elements (tensor tile: of a warp's 32 columns)");
static_assert(tileOutputs<TensorTile>(TensorTile::kMaxR, 3) >= 16, "every tensor-core radius has a tile for 1-3 channels");
static_assert(tileOutputs<SmallTile>(SmallTile::kMaxR, 4) >= 16, "every small radius has a tile for 4 channels");

}}}} // namespace cv::cuda::gaussian::geometry

#endif
