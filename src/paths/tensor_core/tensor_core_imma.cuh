// Building blocks of the 8U tensor-core Gaussian (tensor_core_kernel.cu): its shared-memory layout
// and its horizontal pass (the MMA and the Toeplitz matrices: src/cuda/imma.cuh). B holds 32 window
// elements (K) of 8 independent lines (N): for the vertical pass 32 source rows of 8 columns (4-byte
// loads of 4 rows, transposed: byte r of a register = row r), for the horizontal pass 32 columns of
// 8 rows of the vertical sums. Vertical sums are below 2^16, so the horizontal pass splits them into
// a high and a low byte plane: out = 256 (A * hi) + (A * lo).
//
// doc/design-record.md#tensor-core-8u-arithmetic has how the fragment layout and the exactness were established, and
// the counts and measurements.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_IMMA_CUH
#define CUDAIMAGE_PATHS_TENSOR_CORE_IMMA_CUH

#include <cstdint>
#include "../../gaussian_tile.hpp"
#include "tensor_core_path.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/imma.cuh"

namespace cv { namespace cuda { namespace gaussian { namespace imma {

typedef TensorCoreTile Tile;

// Shared memory (bytes) of a block for Cn channels, the layout TensorCoreTile::sharedBytes()
// counts: the two byte planes [kRows][kPlaneStride], 64 bytes of slack behind them, the output
// bytes [kRows][kStride], then the A fragments, 512 bytes per matrix (32 lanes x 4 words): the
// horizontal matrices, then the vertical ones. A plane row holds the tile's vertical sums channel-
// planar: channel c's kPixels pixels from column c kPixels on.
//
// The planes are read 4 bytes per lane (8 rows x 16 bytes per warp) and written 8 bytes per lane
// for one channel (8 rows x 32 bytes per warp, in two half-warp phases of 4 rows; 2 and 4 channels
// 4 and 2 bytes per lane and channel, 3 channels bytes). A row stride of 8 words (mod 32 banks) keeps
// the writes' 4 rows apart, one of 4 words the reads' 8 rows; no stride does both. So the stride
// is 8 words mod 32 and rows 4..7 of every 8 swap the 16-byte halves of each 32 bytes
// (planeOffset()): the reads' rows r and r + 4 then fall on different banks too. A column's swap
// moves it within its aligned 32 bytes, so a row's columns stay in the row.
// The output rows keep a stride of 4 words mod 32: the epilogue's byte stores of rows 2t, 2t + 1
// (t = 0..3) fall on 8 different banks.
constexpr int kRows = Tile::kRows;
template <int Cn>
struct Layout
{
    static constexpr int kCols = Tile::cols(Cn);
    static constexpr int kPixels = Tile::pixels(Cn);
    static constexpr int kPlaneStride = Tile::planeStride(Cn);
    static constexpr int kStride = Tile::outStride(Cn);
    static constexpr int kPlaneBytes = kRows * kPlaneStride;
    static constexpr int kOutOffset = 2 * kPlaneBytes + 64;
    static constexpr int kTableOffset = kOutOffset + kRows * kStride;
    static_assert(kPlaneStride % 128 == 32 && kStride % 128 == 16, "bank-conflict-free plane and output strides");
    static_assert(kTableOffset == Tile::fixedBytes(Cn) && kFragmentWords * 4 == 512, "the path choice's shared memory is this layout's");
};

/** Byte offset of (row, column) in a plane: the 16-byte halves of each 32 bytes swap in rows 4..7 of
 * every 8 (the swizzle above). */
__device__ __forceinline__ int planeSwizzle(int row) { return (row & 4) << 2; }
template <int Cn>
__device__ __forceinline__ int planeOffset(int row, int column) { return row * Layout<Cn>::kPlaneStride + (column ^ planeSwizzle(row)); }

// The horizontal pass of one strip: `pixels` outputs (a multiple of 16) per channel of kRows rows,
// the window of output 0 starting at column windowStart (a multiple of 4) of each channel's plane
// segment; rounded bytes into `out`, interleaved again: (256 hi + lo + 2^15) >> 16, the CPU's rounding
// of its 16 fraction bits (the 2^15 is the low sums' starting value). Warps take (channel, 16
// outputs x 16 rows) tasks in turn: per K chunk one 16-byte A load, 8 four-byte B loads, 4 MMAs.
template <int Cn>
__device__ __forceinline__ void horizontal(const uint8_t* hi, const uint8_t* lo, const uint32_t* table, int chunks,
                                           int windowStart, int pixels, uint8_t* out)
{
    typedef Layout<Cn> L;
    constexpr int kHalves = kRows / 16;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const uint4* aTable = reinterpret_cast<const uint4*>(table) + lane;
    // task = (16-output block, channel, half): divisions by constants only (a division by the
    // run-time block count per task measured 6 % slower at sigma 5, where a task is 2 K chunks)
    const int tasks = (pixels / 16) * Cn * kHalves;
    for (int task = warp; task < tasks; task += warps)
    {
        const int half = task % kHalves, rest = task / kHalves;
        const int channel = rest % Cn, o0 = (rest / Cn) * 16, row0 = half * 16;
        // this lane's rows row0 + 8n + g (n = 0, 1): columns c0 + 32 c and c0 + 16 + 32 c (the
        // swizzle depends on bit 2 of the row, which is g's, and moves only bit 4 of a column,
        // which + 32 c leaves alone)
        const int c0 = channel * L::kPixels + windowStart + o0 + 4 * t;
        const int at0 = planeOffset<Cn>(row0 + g, c0), at1 = planeOffset<Cn>(row0 + g, c0 + 16);
        int dh[2][4] = {}, dl[2][4];
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                dl[n][q] = 32768;
#pragma unroll 1
        for (int c = 0; c < chunks; c++)
        {
            const uint4 a = aTable[c * 32];
#pragma unroll
            for (int n = 0; n < 2; n++)
            {
                const int r = n * 8 * L::kPlaneStride + 32 * c;
                mmaU8(dh[n], a, *reinterpret_cast<const uint32_t*>(hi + at0 + r), *reinterpret_cast<const uint32_t*>(hi + at1 + r));
                mmaU8(dl[n], a, *reinterpret_cast<const uint32_t*>(lo + at0 + r), *reinterpret_cast<const uint32_t*>(lo + at1 + r));
            }
        }
        // d[n][0], [1]: output o0 + g of rows row0 + 8n + 2t, + 1; d[n][2], [3]: output o0 + g + 8
#pragma unroll
        for (int n = 0; n < 2; n++)
        {
            uint8_t* o = out + (row0 + 8 * n + 2 * t) * L::kStride + (o0 + g) * Cn + channel;
#pragma unroll
            for (int q = 0; q < 4; q++)
                o[(q & 1) * L::kStride + (q & 2) * 4 * Cn] =
                    static_cast<uint8_t>((static_cast<uint32_t>(dh[n][q]) * 256u + static_cast<uint32_t>(dl[n][q])) >> 16);
        }
    }
}

}}}} // namespace cv::cuda::gaussian::imma

#endif
