// The 8U horizontal pass on the tensor cores, exact (the large-radius kernel's, one channel).
//
// After the vertical pass every shared column holds a sum s < 2^16 (8-bit taps times bytes), and an
// output is (sum_k t[k] s[x + k - R] + 2^15) >> 16 with 8-bit horizontal taps t. Split s = 256 hi +
// lo: the sum is 256 (T * hi) + (T * lo), two products of bytes with s32 sums on the tensor cores
// (mma.m16n8k32.u8.u8.s32: integer, so bit-exact by construction):
//
//   A = T, 16 outputs x 32 window bytes per chunk: A[i][kk] = h[32c + kk - i] (zero outside the
//       taps), the same for every tile: built once per block into shared memory;
//   B = 32 window bytes x 8 image rows, 4-byte loads from the hi and lo planes in shared memory;
//   D = 16 outputs x 8 rows, s32.
//
// Per 16 outputs x 8 rows a warp issues 2 x chunks MMAs, chunks = ceil((16 + nh - 1) / 32) (nh: the
// zero-padded horizontal taps, at most kImmaMaxChunks), instead of 128 (2R + 1) FMAs on the FP32
// pipe. perf/imma_probe.cu checks the fragment layout and the exactness on their own; perf/NOTES.md
// sections 13 and 14 have the counts and the measurements.
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_IMMA_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_IMMA_CUH

#include <cstdint>
#include "../gaussian_launch.hpp"

namespace cv { namespace cuda { namespace gaussian { namespace imma {

// Shared memory of the tensor-core pass (inside the kernel's float buffer, which it does not use):
// the two byte planes [kRows][kPlaneStride] (a stride 16 bytes off a multiple of 128: the 8 rows x
// 4 words of a B fragment hit 32 different banks), 64 bytes of slack for the last chunk's reads
// past the last column (they meet zero taps), the output bytes [kRows][kOutStride] for the
// coalesced stores, and the A fragments [chunks][32 lanes][4 words].
constexpr int kRows = 16;
constexpr int kPlaneStride = geometry::LargeTile::kCols + 16;
constexpr int kPlaneBytes = kRows * kPlaneStride;
constexpr int kOutStride = geometry::LargeTile::kCols;
constexpr int kOutOffset = 2 * kPlaneBytes + 64;
constexpr int kTableOffset = kOutOffset + kRows * kOutStride;
constexpr int kSharedBytes = kTableOffset + FusedLargeTapsT<float>::kImmaMaxChunks * 32 * 16;
static_assert(kPlaneStride % 128 == 16, "conflict-free B fragment loads");
static_assert(static_cast<size_t>(kSharedBytes) <= geometry::sharedBytes<geometry::LargeTile>(CV_8U),
              "the tensor-core pass fits the large kernel's shared memory");

__device__ __forceinline__ void mmaU8(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The A fragments of the Toeplitz tap matrix, built by the block once: word q of lane (g, t) in
// chunk c holds rows g (+8 for odd q) and columns 4t..4t+3 (+16 for q >= 2), A[i][kk] = tap byte
// 32c + kk - i. The taps come from the parameter (fixed point x 2^-16 as floats: exact bytes).
__device__ __forceinline__ void buildTable(const FusedLargeTapsT<float>& taps, uint32_t* table)
{
    const int words = taps.immaChunks * 32 * 4;
    for (int i = threadIdx.x; i < words; i += blockDim.x)
    {
        const int c = i >> 7, lane = (i >> 2) & 31, q = i & 3;
        const int row = (lane >> 2) + ((q & 1) ? 8 : 0), col0 = 4 * (lane & 3) + ((q & 2) ? 16 : 0);
        uint32_t w = 0;
        for (int b = 0; b < 4; b++)
        {
            const int k = 32 * c + col0 + b - row;
            if (k >= 0 && k < taps.nh)
                w |= static_cast<uint32_t>(__float2uint_rn(taps.h[k] * 65536.0f)) << (8 * b);
        }
        table[i] = w;
    }
}

// This thread's 4 columns of kRows DP4A sums (biased by kDp4aBias) as bytes of the two planes.
template <int kRowsT>
__device__ __forceinline__ void storePlanes(const uint32_t (&acc)[kRowsT][4], uint8_t* hi, uint8_t* lo, uint32_t bias)
{
    static_assert(kRowsT == kRows, "planes of kRows rows");
#pragma unroll
    for (int v = 0; v < kRows; v++)
    {
        const uint32_t s0 = acc[v][0] - bias, s1 = acc[v][1] - bias, s2 = acc[v][2] - bias, s3 = acc[v][3] - bias;
        const uint32_t l = __byte_perm(__byte_perm(s0, s1, 0x0040), __byte_perm(s2, s3, 0x0040), 0x5410);
        const uint32_t h = __byte_perm(__byte_perm(s0, s1, 0x0051), __byte_perm(s2, s3, 0x0051), 0x5410);
        *reinterpret_cast<uint32_t*>(lo + v * kPlaneStride + 4 * threadIdx.x) = l;
        *reinterpret_cast<uint32_t*>(hi + v * kPlaneStride + 4 * threadIdx.x) = h;
    }
}

// The horizontal pass of one strip: `tile` outputs (a multiple of 16) of kRows rows, the window of
// output 0 starting at shared column windowStart (a multiple of 4); rounded bytes into `out`.
// Warps take (16 outputs x 8 rows) tasks in turn.
__device__ __forceinline__ void horizontal(const uint8_t* hi, const uint8_t* lo, const uint32_t* table, int chunks,
                                           int windowStart, int tile, uint8_t* out)
{
    constexpr int kMax = FusedLargeTapsT<float>::kImmaMaxChunks;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    // A fragments from shared memory per chunk (one conflict-free 16-byte load per lane; in
    // registers they would take 36 and spill the kernel's vertical pass)
    const uint4* aTable = reinterpret_cast<const uint4*>(table) + lane;
    const int tasks = (tile / 16) * (kRows / 8);
    for (int task = warp; task < tasks; task += warps)
    {
        const int o0 = (task >> 1) * 16, n = task & 1;
        const int base = (n * 8 + g) * kPlaneStride + windowStart + o0 + 4 * t;
        int dh[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
#pragma unroll
        for (int c = 0; c < kMax; c++)
            if (c < chunks)
            {
                const uint32_t h0 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c);
                const uint32_t h1 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c + 16);
                const uint32_t l0 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c);
                const uint32_t l1 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c + 16);
                const uint4 w = aTable[c * 32];
                const uint32_t a[4] = {w.x, w.y, w.z, w.w};
                mmaU8(dh, a, h0, h1);
                mmaU8(dl, a, l0, l1);
            }
        // d[0], d[1]: output o0 + g of rows 2t, 2t + 1 (of the 8); d[2], d[3]: output o0 + g + 8
#pragma unroll
        for (int q = 0; q < 4; q++)
        {
            const uint32_t s = static_cast<uint32_t>(dh[q]) * 256u + static_cast<uint32_t>(dl[q]);
            out[(n * 8 + 2 * t + (q & 1)) * kOutStride + o0 + g + (q & 2) * 4] = static_cast<uint8_t>((s + 32768u) >> 16);
        }
    }
}

// The strip's output bytes from shared memory to the destination, 16 per thread and step (one
// 16-byte store where the row allows it).
__device__ __forceinline__ void storeOut(const SeparablePlan& p, const uint8_t* out, int y0, int tileE0, int tile)
{
    const int elements = p.width;   // one channel
    const int items = (tile / 16) * kRows;
    for (int it = threadIdx.x; it < items; it += blockDim.x)
    {
        const int v = it % kRows, chunk = it / kRows;
        const int y = y0 + v, e0 = tileE0 + chunk * 16;
        if (y >= p.height || e0 >= elements)
            continue;
        const uint4 q = *reinterpret_cast<const uint4*>(out + v * kOutStride + chunk * 16);
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
