// Building blocks of the 8U tensor-core Gaussian (gaussian_tensor8u.cu): exact integer sums as
// products of bytes on the tensor cores (mma.m16n8k32.u8.u8.s32: integer, so bit-exact by
// construction) against banded (Toeplitz) matrices of the taps.
//
// A 1-D convolution out[i] = sum_k tap[k] in[i + k] of 16 consecutive outputs is a 16 x 32 matrix
// times a 32-element window per K chunk: A[i][kk] = tap[32 c + kk - i] (zero outside the taps), the
// same matrix for every tile, so each block builds the A fragments once into shared memory. B holds
// 32 window elements (K) of 8 independent lines (N): for the vertical pass 32 source rows of 8
// columns (4-byte loads of 4 rows, transposed: byte r of a register = row r), for the horizontal
// pass 32 columns of 8 rows of the vertical sums. Vertical sums are below 2^16, so the horizontal
// pass splits them into a high and a low byte plane: out = 256 (A * hi) + (A * lo).
//
// perf/imma_probe.cu checks the fragment layout and the exactness on its own; perf/NOTES.md
// sections 13, 14 and 16 have the counts and the measurements.
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_IMMA_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_IMMA_CUH

#include <cstdint>
#include "../gaussian_geometry.hpp"
#include "../gaussian_launch.hpp"
#include "gaussian_fused_common.cuh"

namespace cv { namespace cuda { namespace gaussian { namespace imma {

typedef geometry::TensorTile Tile;

// Shared memory (bytes), the layout TensorTile::sharedBytes() counts: the two byte planes
// [kRows][kStride] (a stride 16 bytes off a multiple of 128: the 8 rows x 4 words of a B fragment
// hit 32 different banks), 64 bytes of slack for the last chunk's reads past the last column (they
// meet zero taps), the output bytes [kRows][kStride] (the same stride: the byte stores of 4 rows of
// a fragment fall in different banks), then the A fragments, 512 bytes per matrix (32 lanes x 4
// words): the horizontal matrices, then the vertical ones.
constexpr int kRows = Tile::kRows;
constexpr int kStride = Tile::kStride;
constexpr int kPlaneBytes = kRows * kStride;
constexpr int kOutOffset = 2 * kPlaneBytes + 64;
constexpr int kTableOffset = kOutOffset + kRows * kStride;
constexpr int kFragmentWords = 32 * 4;
static_assert(kStride % 128 == 16, "conflict-free B fragment loads");
static_assert(kTableOffset == Tile::kFixedBytes && kFragmentWords * 4 == 512, "the path choice's shared memory is this layout's");

__device__ __forceinline__ void mmaU8(int (&d)[4], const uint4& a, uint32_t b0, uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

// A fragments of `entries` Toeplitz matrices for a line of interleaved elements, `stride` apart per
// tap (the channel count; 1 for columns): entry e has A[i][kk] = taps[k / stride] where k = step e +
// offset + kk - i is a multiple of stride and k / stride in [0, n), else zero. Word q of lane (g, t)
// holds row g (+8 for odd q) and columns 4t..4t+3 (+16 for q >= 2), byte b = column + b: the
// m16n8k32 A layout. The whole block builds them.
__device__ __forceinline__ void buildToeplitz(const uint8_t* taps, int n, int stride, int entries, int step, int offset,
                                              uint32_t* table)
{
    for (int i = threadIdx.x; i < entries * kFragmentWords; i += blockDim.x)
    {
        const int e = i >> 7, lane = (i >> 2) & 31, q = i & 3;
        const int row = (lane >> 2) + ((q & 1) ? 8 : 0), col0 = 4 * (lane & 3) + ((q & 2) ? 16 : 0);
        uint32_t w = 0;
        for (int b = 0; b < 4; b++)
        {
            const int k = step * e + offset + col0 + b - row;
            if (k >= 0 && k % stride == 0 && k / stride < n)
                w |= static_cast<uint32_t>(taps[k / stride]) << (8 * b);
        }
        table[i] = w;
    }
}

// The horizontal pass of one strip: `tile` outputs (a multiple of 16) of kRows rows, the window of
// output 0 starting at plane column windowStart (a multiple of 4); rounded bytes into `out`:
// (256 hi + lo + 2^15) >> 16, the CPU's rounding of its 16 fraction bits. Warps take (16 outputs x
// 8 rows) tasks in turn: per K chunk 4 four-byte B loads, one 16-byte A load, 2 MMAs.
__device__ __forceinline__ void horizontal(const uint8_t* hi, const uint8_t* lo, const uint32_t* table, int chunks,
                                           int windowStart, int tile, uint8_t* out)
{
    constexpr int kGroups = kRows / 8;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const uint4* aTable = reinterpret_cast<const uint4*>(table) + lane;
    const int tasks = (tile / 16) * kGroups;
    for (int task = warp; task < tasks; task += warps)
    {
        const int o0 = (task / kGroups) * 16, n = task % kGroups;
        const int base = (n * 8 + g) * kStride + windowStart + o0 + 4 * t;
        int dh[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
#pragma unroll 4
        for (int c = 0; c < chunks; c++)
        {
            const uint32_t h0 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c);
            const uint32_t h1 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c + 16);
            const uint32_t l0 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c);
            const uint32_t l1 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c + 16);
            const uint4 a = aTable[c * 32];
            mmaU8(dh, a, h0, h1);
            mmaU8(dl, a, l0, l1);
        }
        // d[0], d[1]: output o0 + g of rows 2t, 2t + 1 (of the 8); d[2], d[3]: output o0 + g + 8
#pragma unroll
        for (int q = 0; q < 4; q++)
        {
            const uint32_t s = static_cast<uint32_t>(dh[q]) * 256u + static_cast<uint32_t>(dl[q]);
            out[(n * 8 + 2 * t + (q & 1)) * kStride + o0 + g + (q & 2) * 4] = static_cast<uint8_t>((s + 32768u) >> 16);
        }
    }
}

// The strip's output bytes from shared memory to the destination, 16 per thread and step (one
// 16-byte store where the row allows it).
__device__ __forceinline__ void storeOut(const SeparablePlan& p, const uint8_t* out, int y0, int tileE0, int tile)
{
    const int elements = p.width * p.channels;
    const int items = (tile / 16) * kRows;
    for (int it = threadIdx.x; it < items; it += blockDim.x)
    {
        const int v = it % kRows, chunk = it / kRows;
        const int y = y0 + v, e0 = tileE0 + chunk * 16;
        if (y >= p.height || e0 >= elements)
            continue;
        const uint4 q = *reinterpret_cast<const uint4*>(out + v * kStride + chunk * 16);
        uint8_t* dst = p.dst + static_cast<size_t>(y) * p.dstStep + e0;
        if (e0 + 16 <= elements && p.dstAligned16)
            *reinterpret_cast<uint4*>(dst) = q;
        else
        {
            const uint32_t w[4] = {q.x, q.y, q.z, q.w};
            for (int i = 0; i < 16 && e0 + i < elements; i++)
                dst[i] = static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
        }
    }
}

}}}} // namespace cv::cuda::gaussian::imma

#endif
