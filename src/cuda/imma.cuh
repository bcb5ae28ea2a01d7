// Exact integer sums as products of bytes on the tensor cores (mma.m16n8k32.u8.u8.s32: integer, so
// bit-exact by construction) against banded (Toeplitz) matrices of the taps: the building blocks
// the tensor-core paths share (src/paths/tensor_core: 8U; src/paths/tensor_core_16u: 16U).
//
// A 1-D convolution out[i] = sum_k tap[k] in[i + k] of 16 consecutive outputs is a 16 x 32 matrix
// times a 32-element window per K chunk: A[i][kk] = tap[32 c + kk - i] (zero outside the taps), the
// same matrix for every tile, so each block builds the A fragments once into shared memory. B holds
// 32 window bytes (K) of 8 independent lines (N).
//
// doc/design-record.md#tensor-core-8u-arithmetic has how the fragment layout and the exactness were
// established.
#ifndef CUDAIMAGE_CUDA_IMMA_CUH
#define CUDAIMAGE_CUDA_IMMA_CUH

#include <cstdint>
#include "../gaussian_blur_call.hpp"
#include "gaussian_fused_common.cuh"

namespace cv { namespace cuda { namespace gaussian { namespace imma {

constexpr int kFragmentWords = 32 * 4;   // one A fragment set: 32 lanes x 4 words (512 bytes)

__device__ __forceinline__ void mmaU8(int (&d)[4], const uint4& a, uint32_t b0, uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // m16n8k32 needs sm_80. Code for older targets only keeps the library building for every
    // CUDA_ARCH_BIN: it never runs, as the path choice takes the tensor cores only where the code
    // the driver loaded was compiled for sm_80 or later (tensorCoreCodeRuns(), src/paths/tensor_core).
    (void)d; (void)a; (void)b0; (void)b1;
    __trap();
#else
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
#endif
}

// A fragments of `entries` Toeplitz matrices for a line of interleaved elements, Stride apart per
// tap (the channel count; 1 for columns): entry e has A[i][kk] = taps[k / Stride] where k = step e +
// offset + kk - i is a multiple of Stride and k / Stride in [0, n), else zero. Word q of lane (g, t)
// holds row g (+8 for odd q) and columns 4t..4t+3 (+16 for q >= 2), byte b = column + b: the
// m16n8k32 A layout. The whole block builds them (Stride a constant: no division at run time).
template <int Stride>
__device__ __forceinline__ void buildToeplitz(const uint8_t* taps, int n, int entries, int step, int offset, uint32_t* table)
{
    for (int i = threadIdx.x; i < entries * kFragmentWords; i += blockDim.x)
    {
        const int e = i >> 7, lane = (i >> 2) & 31, q = i & 3;
        const int row = (lane >> 2) + ((q & 1) ? 8 : 0), col0 = 4 * (lane & 3) + ((q & 2) ? 16 : 0);
        uint32_t w = 0;
#pragma unroll
        for (int b = 0; b < 4; b++)
        {
            const int k = step * e + offset + col0 + b - row;
            if (k >= 0 && k % Stride == 0 && k / Stride < n)
                w |= static_cast<uint32_t>(taps[k / Stride]) << (8 * b);
        }
        table[i] = w;
    }
}

// The vertical pass's source words for one warp's columns of a strip: the rows in 16-row blocks,
// each lane the rows 4t..4t+3 of a block at byte E of the row (one 4-byte word each). `start(w0..w3)`
// gets block 0's words, then `step(q, w)` the 8 words of blocks 2q + 1 and 2q + 2, q < steps.
// fast (every row of the strip inside the image, the 4 bytes inside the row, 4-byte aligned): the
// next step's words are loaded before this step's `step` (latency behind the MMAs, not waited for at
// the top of every step), two register sets in turn; one pointer per row of blocks 2q + 1 and
// 2q + 2, advanced 32 rows per step after the step's work (no 64-bit multiply per load, no pointer
// copies). Otherwise `edgeSetup()` first (the lane's columns mapped through the row border), then
// each word is `edgeWord(row)` of the row mapped through the column border (rowAt: null for a
// constant border's row outside), block by block. The same words either way.
template <class Start, class Step, class EdgeSetup, class EdgeWord>
__device__ __forceinline__ void stripWords(const BlurCall& p, bool fast, int firstRow, bool rowsInside, int t, int E, int steps,
                                           Start&& start, Step&& step, EdgeSetup&& edgeSetup, EdgeWord&& edgeWord)
{
    if (fast)
    {
        const ptrdiff_t pitch = static_cast<ptrdiff_t>(p.srcStep);
        const unsigned char* first = p.srcWhole + static_cast<ptrdiff_t>(firstRow + 4 * t) * pitch + E;
        const unsigned char* rowA[4];
        const unsigned char* rowB[4];
        uint32_t w0[8], w1[8];
#pragma unroll
        for (int i = 0; i < 4; i++)
        {
            w1[i] = __ldg(reinterpret_cast<const uint32_t*>(first + i * pitch));   // block 0
            rowA[i] = first + (16 + i) * pitch;
            rowB[i] = first + (32 + i) * pitch;
        }
        auto load = [&](uint32_t (&w)[8]) {
#pragma unroll
            for (int i = 0; i < 4; i++)
            {
                w[i] = __ldg(reinterpret_cast<const uint32_t*>(rowA[i]));
                w[4 + i] = __ldg(reinterpret_cast<const uint32_t*>(rowB[i]));
            }
        };
        // (after the step's work: a pointer overwritten right after its load is copied first)
        auto advance = [&] {
#pragma unroll
            for (int i = 0; i < 4; i++)
            {
                rowA[i] += 32 * pitch;
                rowB[i] += 32 * pitch;
            }
        };
        load(w0);
        start(w1[0], w1[1], w1[2], w1[3]);   // block 0, once blocks 1 and 2 are on their way
        advance();
        for (int q = 0; q < steps; q += 2)
        {
            if (q + 1 < steps)
                load(w1);
            step(q, w0);
            if (q + 1 >= steps)
                break;
            advance();
            if (q + 2 < steps)
                load(w0);
            step(q + 1, w1);
            advance();
        }
    }
    else
    {
        edgeSetup();
        auto load = [&](int block, uint32_t* w) {
#pragma unroll
            for (int k = 0; k < 4; k++)
                w[k] = edgeWord(fused::rowAt(p, firstRow, rowsInside, 16 * block + 4 * t + k));
        };
        uint32_t w[8];
        load(0, w);
        start(w[0], w[1], w[2], w[3]);
        for (int q = 0; q < steps; q++)
        {
            load(2 * q + 1, w);
            load(2 * q + 2, w + 4);
            step(q, w);
        }
    }
}

// A strip's `bytes` output bytes per row (a multiple of 16, cut at the row's end, rowBytes) from a
// shared tile of `rows` rows `stride` bytes apart to the destination, from byte tileB0 of each row:
// a warp per row at a time, 16 bytes per lane along it (one 16-byte store where the row allows it;
// whole 32-byte sectors where the tile starts on one).
__device__ __forceinline__ void storeOut(const BlurCall& p, const uint8_t* out, int stride, int rows, int rowBytes, int y0,
                                         int tileB0, int bytes)
{
    const int elements = rowBytes;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int chunks = bytes / 16;
    for (int v = warp; v < rows && y0 + v < p.height; v += warps)
    {
        uint8_t* row = p.dst + static_cast<size_t>(y0 + v) * p.dstStep;
        for (int chunk = lane; chunk < chunks; chunk += 32)
        {
            const int e0 = tileB0 + chunk * 16;
            if (e0 >= elements)
                break;
            const uint4 q = *reinterpret_cast<const uint4*>(out + v * stride + chunk * 16);
            if (e0 + 16 <= elements && p.dstAligned16)
                *reinterpret_cast<uint4*>(row + e0) = q;
            else
            {
                // byte by byte up to the row's end (words picked by compare, not by a run-time
                // index into an array, which would live in local memory)
#pragma unroll
                for (int i = 0; i < 16; i++)
                {
                    const uint32_t w = i < 4 ? q.x : i < 8 ? q.y : i < 12 ? q.z : q.w;
                    if (e0 + i < elements)
                        row[e0 + i] = static_cast<uint8_t>(w >> (8 * (i % 4)));
                }
            }
        }
    }
}

}}}} // namespace cv::cuda::gaussian::imma

#endif
