// Tile arithmetic shared by the single-kernel Gaussian paths (src/paths/tensor_core, fused,
// fused_large) and the host's path choice, which must agree on it: the host decides from these
// numbers whether a kernel has a valid tile and fits the device's shared memory. Each path's own
// tile (its halo) lives in its folder; the sizes come from src/gaussian_tuning.hpp.
//
//   one block, one strip of rows:
//
//   |<- halo ->|<------------- tile (outputs) ------------->|<- halo ->|     kCols elements
//   vertical pass: all kCols columns -> shared memory
//   horizontal pass: the tile's outputs, an item (itemOutputs) of consecutive elements at a time
//
// Invariants the kernels rely on (checked by the path choice, tested in test_gaussian_plan.cpp):
// tile >= one item, tile a multiple of the item, and one block's shared memory within the device's
// opt-in limit.
#ifndef CUDAIMAGE_GAUSSIAN_TILE_HPP
#define CUDAIMAGE_GAUSSIAN_TILE_HPP

#include <cstddef>
#include "opencv2/core/hal/interface.h"

#if defined(__CUDACC__)
#  define CUDAIMAGE_HOST_DEVICE __host__ __device__
#else
#  define CUDAIMAGE_HOST_DEVICE
#endif

namespace cv { namespace cuda { namespace gaussian { namespace tile {

constexpr int kPad = 4;   // work elements after each shared row (conflict-free 16-byte shared loads)

CUDAIMAGE_HOST_DEVICE constexpr int roundUp(int v, int m) { return (v + m - 1) / m * m; }

// Per source depth. 16U and 64F work in double, so a strip has half the rows of the float depths
// (same shared memory per block); 8U items are 16 outputs (one 16-byte store), the others 8.
CUDAIMAGE_HOST_DEVICE constexpr bool worksInDouble(int depth) { return depth == CV_16U || depth == CV_64F; }
CUDAIMAGE_HOST_DEVICE constexpr int stripRows(int depth) { return worksInDouble(depth) ? 8 : 16; }
CUDAIMAGE_HOST_DEVICE constexpr int workBytes(int depth) { return worksInDouble(depth) ? 8 : 4; }
/** Bytes of one source element (a channel of a pixel). */
CUDAIMAGE_HOST_DEVICE constexpr int elementBytes(int depth) { return depth == CV_8U ? 1 : depth == CV_16U || depth == CV_16S ? 2 : depth == CV_32F ? 4 : 8; }
CUDAIMAGE_HOST_DEVICE constexpr int itemOutputs(int depth) { return depth == CV_8U ? 16 : 8; }

/** Zero taps in front of a horizontal window so that (r + lead) * cn is a multiple of 4: every
 * window then starts on a whole group of 4 elements (DP4A words, IMMA K chunks). */
CUDAIMAGE_HOST_DEVICE constexpr int windowLead(int r, int cn) { return (r * cn) % 4 == 0 ? 0 : windowLead(r + 1, cn) + 1; }

/** Output elements per block row (may be zero or negative: no valid tile): Tile::outputs(r, cn)
 * where the tile defines it (a tile whose width depends on the channel count), else kCols less
 * both halos (elements). */
template <class Tile>
CUDAIMAGE_HOST_DEVICE constexpr auto tileOutputsOf(int r, int cn, int) -> decltype(Tile::outputs(r, cn)) { return Tile::outputs(r, cn); }
template <class Tile>
CUDAIMAGE_HOST_DEVICE constexpr int tileOutputsOf(int r, int cn, long) { return Tile::kCols - 2 * Tile::halo(r, cn); }
template <class Tile>
CUDAIMAGE_HOST_DEVICE constexpr int tileOutputs(int r, int cn) { return tileOutputsOf<Tile>(r, cn, 0); }

/** Dynamic shared memory of one block of the CUDA-core fused kernels (bytes): stripRows x
 * (kCols + kPad) working elements. */
template <class Tile>
constexpr size_t sharedBytes(int depth)
{
    return static_cast<size_t>(stripRows(depth)) * static_cast<size_t>(Tile::kCols + kPad) * static_cast<size_t>(workBytes(depth));
}

}}}} // namespace cv::cuda::gaussian::tile

#endif
