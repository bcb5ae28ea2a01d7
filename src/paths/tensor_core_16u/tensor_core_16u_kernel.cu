// The 16U Gaussian blur (one channel, radius 1..128; where the path's rule, tensor_core_16u_path.hpp,
// accepts it) with both passes on the tensor cores as byte products (src/cuda/imma.cuh): one
// kernel, no scratch image, bit-exact with CPU cv::GaussianBlur (the arithmetic: the path's header).
//
//   one block: tiles of 32 output rows x (1024 - 2 halo) output pixels, 512 threads, one block per
//     SM taking the tiles in turn in column-major order (the tap matrices are built once per block);
//   vertical: a warp takes 16 pixels (32 bytes) at a time and reads the strip's source rows in
//     16-row blocks as the 8U kernel does: per block each lane loads 4 words (rows 4t..4t+3, pixels
//     2g, 2g+1) and transposes them into the low and high bytes of both pixels (phase c: fragment
//     column n is pixel 2n + c); output half j multiplies blocks (2q + j, 2q + j + 1) by Toeplitz
//     entry q, four MMAs per phase and half (high x high, high x low and low x high into one sum,
//     low x low); the sums V < 2^32 go to shared memory as uint32, 16 bytes per store;
//   horizontal: warps take 16 outputs x 16 rows; per 32-pixel K chunk each lane loads 16 bytes
//     (4 sums) twice per row and transposes them into the four byte planes of V, eight MMAs per row
//     against the high and low tap bytes into five sums by weight 2^(8 w); the rounded 16-bit
//     results leave through a shared output tile, a warp per row in 16-byte stores.
//
// IMMAs per output at radius R: vertical 4 vChunks / 128 x 1024 / outputs, horizontal 8 hChunks /
// 128: sigma 30 (R 90) 0.27 + 0.44 = 0.71, against 2R + 1 IMAD and as many DFMA per output in the
// CUDA-core kernels (doc/design-record.md#tensor-core-16u-alternatives).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include "../../cuda_check.hpp"
#include "tensor_core_16u_path.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/batch_tap_maker.cuh"
#include "../../cuda/persistent_tiles.cuh"
#include "../../cuda/imma.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;
typedef TensorCore16UTile Tile;
constexpr int kRows = Tile::kRows;
constexpr int kWarps = Tile::kThreads / 32;
constexpr int kSumWords = kRows * Tile::kSumStride;
constexpr int kOutOffset = kSumWords * 4 + 64;
constexpr int kTableOffset = kOutOffset + kRows * Tile::kOutStride;
static_assert(kTableOffset == Tile::kFixedBytes, "the path choice's shared memory is this layout's");
static_assert(kRows == persistent::kTileRows && kRows == 32, "two 16-row MMA tiles per strip, one 32-row K chunk per step");

// One warp's 16 pixels (group `grp` of the tile's 1024) of a strip: vertical sums into `sums`.
// E: the byte offset in a source row of this lane's pixels 2g, 2g + 1.
__device__ __forceinline__ void verticalGroup(const BlurCall& p, const TensorTaps16U& taps, const uint4* vHi, const uint4* vLo,
                                              int firstRow, bool rowsInside, int E, int grp, uint32_t* sums)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    const bool vec = p.srcAligned4 && E >= 0 && E + 4 <= p.wholeWidth * 2;
    // warp-wide MMAs: every lane takes the same branch
    const bool fast = __all_sync(0xffffffffu, vec && rowsInside);
    int hh[2][2][4] = {}, mid[2][2][4] = {}, ll[2][2][4] = {};   // [16-row half][phase][fragment], weights 2^16, 2^8, 1
    // b0: block 2q transposed ([2c]: low bytes of pixel 2g + c over the block's 4 rows, [2c + 1]:
    // high bytes), kept from the step before; w: the raw words of blocks 2q + 1, 2q + 2.
    uint32_t b0[4];
    auto multiply = [&](int q, const uint32_t (&w)[8]) {
        uint32_t b1[4], b2[4];
        transpose4x4(w[0], w[1], w[2], w[3], b1);
        transpose4x4(w[4], w[5], w[6], w[7], b2);
        const uint4 ah = vHi[q * 32 + threadIdx.x % 32], al = vLo[q * 32 + threadIdx.x % 32];
#pragma unroll
        for (int c = 0; c < 2; c++)
        {
            imma::mmaU8(hh[0][c], ah, b0[2 * c + 1], b1[2 * c + 1]);
            imma::mmaU8(mid[0][c], ah, b0[2 * c], b1[2 * c]);
            imma::mmaU8(mid[0][c], al, b0[2 * c + 1], b1[2 * c + 1]);
            imma::mmaU8(ll[0][c], al, b0[2 * c], b1[2 * c]);
            imma::mmaU8(hh[1][c], ah, b1[2 * c + 1], b2[2 * c + 1]);
            imma::mmaU8(mid[1][c], ah, b1[2 * c], b2[2 * c]);
            imma::mmaU8(mid[1][c], al, b1[2 * c + 1], b2[2 * c + 1]);
            imma::mmaU8(ll[1][c], al, b1[2 * c], b2[2 * c]);
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
            b0[i] = b2[i];
    };
    // At an image edge: this lane's 2 pixels mapped through the border once (byte offsets, -1 for a
    // constant border), then 16-bit loads (stripWords maps the rows).
    int offset[2];
    imma::stripWords(
        p, fast, firstRow, rowsInside, t, E, taps.vChunks,
        [&](uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) { transpose4x4(w0, w1, w2, w3, b0); }, multiply,
        [&] {
#pragma unroll
            for (int i = 0; i < 2; i++)
            {
                const int x = (E >= 0 ? E / 2 : -((-E + 1) / 2)) + i;
                const int xs = static_cast<unsigned>(x) < static_cast<unsigned>(p.wholeWidth) ? x : mapBorder(x, p.wholeWidth, p.rowBorder);
                offset[i] = xs < 0 ? -1 : 2 * xs;
            }
        },
        [&](const unsigned char* row) {
            uint32_t word = 0;
#pragma unroll
            for (int i = 0; i < 2; i++)
                if (row && offset[i] >= 0)
                    word |= static_cast<uint32_t>(__ldg(reinterpret_cast<const uint16_t*>(row + offset[i]))) << (16 * i);
            return word;
        });
    // fragment f of phase c: row 16j + g (+ 8 for f >= 2), column n = 2t + (f & 1): pixel 2n + c,
    // so this lane holds pixels 4t..4t + 3 of each of its rows: pixel 4t + k is (f & 1, c) = (k >> 1, k & 1)
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
        {
            uint32_t v[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
            {
                const int f = 2 * h + (k >> 1), c = k & 1;
                v[k] = (static_cast<uint32_t>(hh[j][c][f]) << 16) + (static_cast<uint32_t>(mid[j][c][f]) << 8) +
                       static_cast<uint32_t>(ll[j][c][f]);   // modulo 2^32, where the exact sum lies
            }
            *reinterpret_cast<uint4*>(sums + (16 * j + g + 8 * h) * Tile::kSumStride + 16 * grp + 4 * t) = make_uint4(v[0], v[1], v[2], v[3]);
        }
}

// The horizontal pass of one strip: `outputs` (a multiple of 16) of kRows rows, the window of output
// 0 starting at column windowStart (a multiple of 4) of the sums; rounded 16-bit results into `out`:
// (sum of 2^(8 w) acc_w + 2^31) >> 32, the CPU's rounding of its 32 fraction bits.
__device__ __forceinline__ void horizontal(const uint32_t* sums, const uint4* hHi, const uint4* hLo, int chunks, int windowStart,
                                           int outputs, uint16_t* out)
{
    constexpr int kHalves = kRows / 16;
    constexpr int kOutWords = Tile::kOutStride / 2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int tasks = (outputs / 16) * kHalves;
    for (int task = warp; task < tasks; task += kWarps)
    {
        const int o0 = (task / kHalves) * 16, row0 = (task % kHalves) * 16;
        const uint32_t* at = sums + (row0 + g) * Tile::kSumStride + windowStart + o0 + 4 * t;
        int acc[5][2][4] = {};   // [weight 2^(8 w)][row n][fragment]
#pragma unroll 1
        for (int c = 0; c < chunks; c++)
        {
            const uint4 ah = hHi[c * 32 + lane], al = hLo[c * 32 + lane];
#pragma unroll
            for (int n = 0; n < 2; n++)
            {
                const uint32_t* s = at + n * 8 * Tile::kSumStride + 32 * c;
                const uint4 u0 = *reinterpret_cast<const uint4*>(s), u1 = *reinterpret_cast<const uint4*>(s + 16);
                uint32_t b0[4], b1[4];   // [j]: byte j of 4 consecutive sums
                transpose4x4(u0.x, u0.y, u0.z, u0.w, b0);
                transpose4x4(u1.x, u1.y, u1.z, u1.w, b1);
#pragma unroll
                for (int j = 0; j < 4; j++)
                {
                    imma::mmaU8(acc[j][n], al, b0[j], b1[j]);
                    imma::mmaU8(acc[j + 1][n], ah, b0[j], b1[j]);
                }
            }
        }
        // acc[w][n][0], [1]: output o0 + g of rows row0 + 8n + 2t, + 1; [2], [3]: output o0 + g + 8
#pragma unroll
        for (int n = 0; n < 2; n++)
        {
            uint16_t* o = out + (row0 + 8 * n + 2 * t) * kOutWords + o0 + g;
#pragma unroll
            for (int q = 0; q < 4; q++)
            {
                const uint64_t s = static_cast<uint64_t>(static_cast<uint32_t>(acc[0][n][q])) +
                                   (static_cast<uint64_t>(static_cast<uint32_t>(acc[1][n][q])) << 8) +
                                   (static_cast<uint64_t>(static_cast<uint32_t>(acc[2][n][q])) << 16) +
                                   (static_cast<uint64_t>(static_cast<uint32_t>(acc[3][n][q])) << 24) +
                                   (static_cast<uint64_t>(static_cast<uint32_t>(acc[4][n][q])) << 32);
                o[(q & 1) * kOutWords + (q & 2) * 4] = static_cast<uint16_t>((s + (uint64_t(1) << 31)) >> 32);
            }
        }
    }
}

// The shared-memory tables of a block: the high and the low tap bytes of the horizontal and the
// vertical Toeplitz matrices.
struct Tables
{
    uint32_t *hHi, *hLo, *vHi, *vLo;
    __device__ Tables(unsigned char* smem, const TensorTaps16U& taps)
    {
        hHi = reinterpret_cast<uint32_t*>(smem + kTableOffset);
        hLo = hHi + taps.hChunks * imma::kFragmentWords;
        vHi = hLo + taps.hChunks * imma::kFragmentWords;
        vLo = vHi + taps.vChunks * imma::kFragmentWords;
    }
};

__device__ __forceinline__ void prepareTables(const TensorTaps16U& taps, unsigned char* smem)
{
    const Tables t(smem, taps);
    imma::buildToeplitz<1>(taps.hHi, taps.nh, taps.hChunks, 32, 0, t.hHi);
    imma::buildToeplitz<1>(taps.hLo, taps.nh, taps.hChunks, 32, 0, t.hLo);
    imma::buildToeplitz<1>(taps.vHi, 2 * taps.r + 1, taps.vChunks, 32, 0, t.vHi);
    imma::buildToeplitz<1>(taps.vLo, 2 * taps.r + 1, taps.vChunks, 32, 0, t.vLo);
}

// One tile (32 rows x the tile's output pixels at column `column`, strip `strip`).
__device__ __forceinline__ void blurTile(const BlurCall& p, const TensorTaps16U& taps, int column, int strip, unsigned char* smem)
{
    uint32_t* sums = reinterpret_cast<uint32_t*>(smem);
    uint16_t* out = reinterpret_cast<uint16_t*>(smem + kOutOffset);
    const Tables t(smem, taps);
    const int R = taps.r;
    const int halo = Tile::halo(R);
    const int tile = Tile::kCols - 2 * halo;             // output pixels per block (a multiple of 32)
    const int windowStart = halo - (R + taps.lead);      // column of output 0's window
    const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
    const int y0 = strip * kRows;
    const int tileX0 = column * tile;
    // outputs inside the row (to a multiple of 16) and the groups of the pixels their taps reach
    const int live = ::min(tile, (p.width - tileX0 + 15) / 16 * 16);
    const int groups = ::min(Tile::kCols / 16, (halo + live + R + 15) / 16);
    const int firstRow = p.roiY + y0 - R;
    const bool rowsInside = firstRow >= 0 && firstRow + Tile::sourceRows(R) <= p.wholeHeight;
    for (int grp = warp; grp < groups; grp += kWarps)
        verticalGroup(p, taps, reinterpret_cast<const uint4*>(t.vHi), reinterpret_cast<const uint4*>(t.vLo), firstRow, rowsInside,
                      2 * (p.roiX + tileX0 - halo + 16 * grp + 2 * g), grp, sums);
    __syncthreads();
    horizontal(sums, reinterpret_cast<const uint4*>(t.hHi), reinterpret_cast<const uint4*>(t.hLo), taps.hChunks, windowStart, live, out);
    __syncthreads();
    imma::storeOut(p, reinterpret_cast<const uint8_t*>(out), Tile::kOutStride, kRows, p.width * 2, y0, tileX0 * 2, live * 2);
}

// One kernel body, two instances: Images is persistent::OneImage<TensorTaps16U> (one image in the
// parameters) or persistent::ImageList (a batch in device memory).
template <class Images>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSM)
gaussianTensor16U(const __grid_constant__ Images images)
{
    extern __shared__ __align__(16) unsigned char smem[];
    persistent::forEachTile<TensorTaps16U>(
        images, [](int r) { return Tile::outputs(r); }, [&](const TensorTaps16U& taps) { prepareTables(taps, smem); },
        [&](const BlurCall& p, const TensorTaps16U& taps, int column, int strip) { blurTile(p, taps, column, strip, smem); });
}

const persistent::Kernels<TensorTaps16U> kernels{TensorCore16UPath::kKernel, TensorCore16UPath::kBatchKernel,
                                                 gaussianTensor16U<persistent::OneImage<TensorTaps16U>>,
                                                 gaussianTensor16U<persistent::ImageList>, Tile::kThreads, Tile::maxSharedBytes()};

} // namespace

bool tensorCore16UCodeRuns() { return persistent::codeRunsTensorCores(kernels.one); }
void TensorCore16UPath::launch(const BlurCall& p, const Taps& taps, const PathChoice& c, cudaStream_t s) { kernels.launch(p, taps, c, s); }
void TensorCore16UPath::launchBatch(const BatchLaunch& b, cudaStream_t s) { kernels.launch(b, s); }

void TensorCore16UPath::makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream) { gaussian::makeBatchTaps<TensorCore16UPath>(jobs, stream); }

}}} // namespace cv::cuda::gaussian
