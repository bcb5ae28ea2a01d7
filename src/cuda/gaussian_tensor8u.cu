// The 8U Gaussian blur (1 to 4 channels, radius 1..128; where the path choice, gaussian_plan.hpp,
// takes it) with both passes on the tensor cores: one kernel, no scratch image, bit-exact with CPU
// cv::GaussianBlur. The CPU's arithmetic is integer (8-bit pixels times 8-fraction-bit taps, the
// 16-bit sums times taps again, rounded once), so any order of the same integer products gives its
// result; here they are byte products with s32 sums on the tensor cores (gaussian_imma.cuh).
//
//   one block: a strip of 32 output rows x (1024 - 2 halo) output elements, 256 threads;
//   vertical (channels do not matter: columns are elements): a warp takes 32 columns at a time; per
//     32 source rows (one K chunk) each lane loads 4 + 4 words (rows 4t..4t+3 and 16+4t..16+4t+3 of
//     columns 4g..4g+3), transposes them into the B fragments of 4 MMAs (one per column phase c:
//     column n of the fragment is column 4n + c) and multiplies them by the Toeplitz matrices of both
//     16-row halves of the strip; the next chunk's words are loaded before this chunk's MMAs. The
//     sums (< 2^16) go to shared memory as a high and a low byte plane, 8 columns per store;
//   horizontal: warps take 16 outputs x 8 rows, 2 MMAs per 32-element K chunk against a Toeplitz
//     matrix whose taps lie Cn elements apart (gaussian_imma.cuh); the rounded bytes leave through a
//     shared output tile in 16-byte stores.
//
// IMMAs per output at radius R: vertical vChunks / 128, horizontal 2 hChunks / 128 (TensorTile):
// sigma 30 (R 90), one channel, (7 + 14) / 128 = 0.16, against ~45 DP4A and ~190 FP32 instructions in
// the CUDA-core kernels (perf/NOTES.md section 16).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "../gaussian_tensor_taps.hpp"
#include "gaussian_fused_common.cuh"
#include "gaussian_imma.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;
using imma::Tile;
constexpr int kWarps = Tile::kThreads / 32;
constexpr int kRows = Tile::kRows;
static_assert(kRows == 32, "two 16-row MMA tiles per strip, one 32-row K chunk per step");

// One warp's 32 columns (group `grp` of the block's 1024 elements) of a strip: vertical sums into the planes.
template <int Cn>
__device__ __forceinline__ void verticalGroup(const SeparablePlan& p, const TensorTaps8U& taps, const uint4* vTable,
                                              int firstRow, bool rowsInside, int E, int grp, uint8_t* hi, uint8_t* lo)
{
    const int lane = threadIdx.x & 31, t = lane & 3;
    const bool vec = p.srcAligned4 && E >= 0 && E + 4 <= p.wholeWidth * Cn;
    // The MMAs below are warp-wide (mma.sync.aligned): every lane of the warp must take the same
    // branch, so the fast loads serve a warp only when all its lanes may use them.
    const bool fast = __all_sync(0xffffffffu, vec && rowsInside);
    const unsigned char* base = p.srcWhole + static_cast<ptrdiff_t>(firstRow) * static_cast<ptrdiff_t>(p.srcStep) + E;
    int d[2][4][4];   // [16-row half][column phase c][fragment]
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int c = 0; c < 4; c++)
#pragma unroll
            for (int f = 0; f < 4; f++)
                d[j][c][f] = 0;
    // Chunk q: B rows (K) of this lane are 4t..4t+3 and 16+4t..16+4t+3 of the chunk's 32 source rows.
    auto rowOf = [&](int q, int i) { return 32 * q + 4 * t + (i & 3) + (i & 4) * 4; };
    auto multiply = [&](int q, const uint32_t (&w)[8]) {
        uint32_t b0[4], b1[4];
        transpose4x4(w[0], w[1], w[2], w[3], b0);
        transpose4x4(w[4], w[5], w[6], w[7], b1);
        // Toeplitz entry 2q - j + 1 serves output half j (gaussian_imma.cuh, vertical table)
        const uint4 a0 = vTable[(2 * q + 1) * 32 + lane];
        const uint4 a1 = vTable[(2 * q) * 32 + lane];
#pragma unroll
        for (int c = 0; c < 4; c++)
        {
            imma::mmaU8(d[0][c], a0, b0[c], b1[c]);
            imma::mmaU8(d[1][c], a1, b0[c], b1[c]);
        }
    };
    if (fast)
    {
        // Interior strips: the next chunk's words are loaded before this chunk's products (latency
        // behind the MMAs, not waited for at the top of every chunk), two register sets in turn;
        // one pointer per B row, advanced 32 rows per chunk (no 64-bit multiply per load).
        const unsigned char* row[8];
#pragma unroll
        for (int i = 0; i < 8; i++)
            row[i] = base + static_cast<ptrdiff_t>(rowOf(0, i)) * static_cast<ptrdiff_t>(p.srcStep);
        const ptrdiff_t chunkStep = 32 * static_cast<ptrdiff_t>(p.srcStep);
        auto load = [&](uint32_t (&w)[8]) {
#pragma unroll
            for (int i = 0; i < 8; i++)
            {
                w[i] = __ldg(reinterpret_cast<const uint32_t*>(row[i]));
                row[i] += chunkStep;
            }
        };
        uint32_t w0[8], w1[8];
        load(w0);
        for (int q = 0; q < taps.vChunks; q += 2)
        {
            if (q + 1 < taps.vChunks)
                load(w1);
            multiply(q, w0);
            if (q + 1 >= taps.vChunks)
                break;
            if (q + 2 < taps.vChunks)
                load(w0);
            multiply(q + 1, w1);
        }
    }
    else
    {
        for (int q = 0; q < taps.vChunks; q++)
        {
            uint32_t w[8];
#pragma unroll
            for (int i = 0; i < 8; i++)
                w[i] = loadWord8U(rowAt(p, firstRow, rowsInside, rowOf(q, i)), E, vec, Cn, p.wholeWidth, p.rowBorder);
            multiply(q, w);
        }
    }
    // d[j][c][0], [1]: row 16j + g, columns 8t + c, 8t + 4 + c; [2], [3]: row 16j + g + 8
    const int g = lane >> 2;
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
        {
            const int row = 16 * j + g + 8 * h;
            const int f0 = 2 * h, f1 = 2 * h + 1;
            const int at = row * imma::kStride + 32 * grp + 8 * t;
            *reinterpret_cast<uint2*>(lo + at) =
                make_uint2(packByte(d[j][0][f0], d[j][1][f0], d[j][2][f0], d[j][3][f0], 0),
                           packByte(d[j][0][f1], d[j][1][f1], d[j][2][f1], d[j][3][f1], 0));
            *reinterpret_cast<uint2*>(hi + at) =
                make_uint2(packByte(d[j][0][f0], d[j][1][f0], d[j][2][f0], d[j][3][f0], 1),
                           packByte(d[j][0][f1], d[j][1][f1], d[j][2][f1], d[j][3][f1], 1));
        }
}

template <int Cn>
__global__ void __launch_bounds__(Tile::kThreads, 2)
gaussianTensor8U(const SeparablePlan p, const __grid_constant__ TensorTaps8U taps)
{
    extern __shared__ __align__(16) unsigned char smem[];
    uint8_t* hi = smem;
    uint8_t* lo = smem + imma::kPlaneBytes;
    uint8_t* out = smem + imma::kOutOffset;
    uint32_t* hTable = reinterpret_cast<uint32_t*>(smem + imma::kTableOffset);
    uint32_t* vTable = hTable + taps.hChunks * imma::kFragmentWords;

    const int R = taps.r;
    const int halo = Tile::halo(R, Cn);
    const int tile = Tile::kCols - 2 * halo;   // output columns per block (a multiple of 16)
    const int tileE0 = blockIdx.x * tile;
    const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
    // Horizontal: entry c = chunk c, taps Cn elements apart. Vertical: entry e = 16-row shift e - 1.
    imma::buildToeplitz(taps.h, taps.nh, Cn, taps.hChunks, 32, 0, hTable);
    imma::buildToeplitz(taps.v, 2 * R + 1, 1, 2 * taps.vChunks, 16, -16, vTable);
    __syncthreads();

    for (int y0 = blockIdx.y * kRows; y0 < p.height; y0 += gridDim.y * kRows)
    {
        const int firstRow = p.roiY + y0 - R;
        const bool rowsInside = firstRow >= 0 && firstRow + 32 * taps.vChunks <= p.wholeHeight;
        for (int grp = warp; grp < Tile::kCols / 32; grp += kWarps)
            verticalGroup<Cn>(p, taps, reinterpret_cast<const uint4*>(vTable), firstRow, rowsInside,
                              p.roiX * Cn + tileE0 - halo + 32 * grp + 4 * g, grp, hi, lo);
        __syncthreads();
        // (the planes are free again once every warp passed this barrier and the next)
        imma::horizontal(hi, lo, hTable, taps.hChunks, halo - (R + taps.lead) * Cn, tile, out);
        __syncthreads();
        imma::storeOut(p, out, y0, tileE0, tile);
    }
}

template <int Cn>
void launchTensor8U(const SeparablePlan& p, const TensorTaps8U& taps, const PathChoice& choice, cudaStream_t stream)
{
    static std::atomic<uint64_t> optedIn{0};
    // Opted in once for the largest tile this kernel can ask for (choosePath() checked that the
    // device holds it); each launch asks for its radius's own.
    optInSharedMemory(gaussianTensor8U<Cn>, Tile::maxSharedBytes(Cn), optedIn);
    const long long elements = static_cast<long long>(p.width) * Cn;
    const int strips = (p.height + kRows - 1) / kRows;
    const dim3 grid(static_cast<unsigned>((elements + choice.tileOutputs - 1) / choice.tileOutputs), ::min(strips, kMaxGridY));
    gaussianTensor8U<Cn><<<grid, Tile::kThreads, choice.sharedBytes, stream>>>(p, taps);
}

} // namespace

void runTensor8U(const SeparablePlan& p, const TensorTaps8U& taps, const PathChoice& choice, cudaStream_t stream)
{
    // choosePath() picked this path: taps built for its radius and channel count, 8-bit output.
    CV_Assert(choice.path == Path::TensorCore && taps.valid && taps.r == choice.radius && p.depth == CV_8U &&
              taps.channels == p.channels && !p.floatOutput &&
              choice.tileOutputs == geometry::tileOutputs<Tile>(taps.r, p.channels) && choice.tileOutputs >= 16 &&
              choice.sharedBytes == Tile::sharedBytes(taps.r, p.channels) &&
              taps.hChunks == Tile::hChunks(taps.r, p.channels) && taps.vChunks == Tile::vChunks(taps.r));
    forChannels(p.channels, [&](auto cn) { launchTensor8U<decltype(cn)::value>(p, taps, choice, stream); });
}

}}} // namespace cv::cuda::gaussian
