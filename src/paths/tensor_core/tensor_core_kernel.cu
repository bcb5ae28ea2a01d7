// The 8U Gaussian blur (1 to 4 channels, radius 1..128; where the path's rule, tensor_core_path.hpp,
// accepts it) with both passes on the tensor cores: one kernel, no scratch image, bit-exact with CPU
// cv::GaussianBlur. The CPU's arithmetic is integer (8-bit pixels times 8-fraction-bit taps, the
// 16-bit sums times taps again, rounded once), so any order of the same integer products gives its
// result; here they are byte products with s32 sums on the tensor cores (tensor_core_imma.cuh).
//
//   one block: tiles of 32 output rows x (pixels - 2 halo) output pixels (TensorCoreTile: 1024
//     pixels, 256 threads, two blocks per SM for one channel; 2048 or 1536 elements, 512 threads,
//     one block per SM for 2-4), taken in turn in column-major order (the tap matrices are built
//     once per block);
//   vertical (channels do not matter: columns are elements): a warp takes 32 columns at a time and
//     reads the strip's source rows in 16-row blocks: per block each lane loads 4 words (rows 4t..
//     4t+3 of the block, columns 4g..4g+3) and transposes them into one half of the B fragments of
//     4 MMAs (one per column phase c: column n of the fragment is column 4n + c). Output half j
//     (rows 16j..16j+15) multiplies blocks (2q + j, 2q + j + 1) by Toeplitz matrix q, so every block
//     serves both halves and radius <= 8 needs 3 blocks and 8 MMAs per 32 x 32 outputs; the next
//     step's blocks are loaded before this step's MMAs. The sums (< 2^16) go to shared memory as a
//     high and a low byte plane, channel-planar (storeSums);
//   horizontal: warps take one channel's 16 outputs x 16 rows, 4 MMAs per 32-pixel K chunk against
//     a one-channel Toeplitz matrix (tensor_core_imma.cuh); the rounded bytes leave through a shared
//     output tile, interleaved again, a warp per row in 16-byte stores.
//
// IMMAs per output at radius R: vertical vChunks / 128 times the tile's columns per output column,
// horizontal 2 hChunks / 128 (TensorCoreTile): sigma 30 (R 90), one channel, 7 / 128 x 1024 / 832 +
// 14 / 128 = 0.18, four channels 7 / 128 x 512 / 320 + 14 / 128 = 0.20, against ~45 DP4A and ~190
// FP32 instructions in the CUDA-core kernels (doc/design-record.md#tensor-core-8u-numbers-and-bounds).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include "../../cuda_check.hpp"
#include "tensor_core_path.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/batch_tap_maker.cuh"
#include "../../cuda/persistent_tiles.cuh"
#include "tensor_core_imma.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;
typedef TensorCoreTile Tile;
constexpr int kRows = Tile::kRows;
static_assert(kRows == persistent::kTileRows && kRows == 32, "two 16-row MMA tiles per strip, one 32-row K chunk per step");

// One lane's vertical sums of one row into the planes: elements e0..e0 + 7 of the tile row (e0 a
// multiple of 8), element e0 + k being d[k & 3][f + (k >> 2)] (f: 0 or 2, the fragment's row).
// Element e is pixel e / Cn of channel e % Cn, at column (e % Cn) kPixels + e / Cn of a plane row:
// one channel 8 bytes per plane, two channels 4 bytes per channel (pixels 4 apart per phase pair),
// four 2 bytes per channel, three byte by byte.
template <int Cn>
__device__ __forceinline__ void storeSums(const int (&d)[4][4], int f, int row, int e0, uint8_t* hi, uint8_t* lo)
{
    typedef imma::Layout<Cn> L;
    auto sum = [&](int k) { return static_cast<uint32_t>(d[k & 3][f + (k >> 2)]); };
    if (Cn == 1)
    {
        const int at = imma::planeOffset<Cn>(row, e0);
        *reinterpret_cast<uint2*>(lo + at) = make_uint2(packByte(sum(0), sum(1), sum(2), sum(3), 0), packByte(sum(4), sum(5), sum(6), sum(7), 0));
        *reinterpret_cast<uint2*>(hi + at) = make_uint2(packByte(sum(0), sum(1), sum(2), sum(3), 1), packByte(sum(4), sum(5), sum(6), sum(7), 1));
    }
    else if (Cn == 2)
    {
#pragma unroll
        for (int c = 0; c < 2; c++)
        {
            const int at = imma::planeOffset<Cn>(row, c * L::kPixels + e0 / 2);
            *reinterpret_cast<uint32_t*>(lo + at) = packByte(sum(c), sum(c + 2), sum(c + 4), sum(c + 6), 0);
            *reinterpret_cast<uint32_t*>(hi + at) = packByte(sum(c), sum(c + 2), sum(c + 4), sum(c + 6), 1);
        }
    }
    else if (Cn == 4)
    {
#pragma unroll
        for (int c = 0; c < 4; c++)
        {
            const int at = imma::planeOffset<Cn>(row, c * L::kPixels + e0 / 4);
            *reinterpret_cast<uint16_t*>(lo + at) = static_cast<uint16_t>(__byte_perm(sum(c), sum(c + 4), 0x0040));
            *reinterpret_cast<uint16_t*>(hi + at) = static_cast<uint16_t>(__byte_perm(sum(c), sum(c + 4), 0x0051));
        }
    }
    else
    {
#pragma unroll
        for (int k = 0; k < 8; k++)
        {
            const int e = e0 + k;
            const int at = imma::planeOffset<Cn>(row, (e % Cn) * L::kPixels + e / Cn);
            lo[at] = static_cast<uint8_t>(sum(k));
            hi[at] = static_cast<uint8_t>(sum(k) >> 8);
        }
    }
}

// One warp's 32 columns (group `grp` of the block's 1024 elements) of a strip: vertical sums into the planes.
template <int Cn>
__device__ __forceinline__ void verticalGroup(const BlurCall& p, const TensorTaps8U& taps, const uint4* vTable,
                                              int firstRow, bool rowsInside, int E, int grp, uint8_t* hi, uint8_t* lo)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    const bool vec = p.srcAligned4 && E >= 0 && E + 4 <= p.wholeWidth * Cn;
    // The MMAs below are warp-wide (mma.sync.aligned): every lane of the warp must take the same
    // branch, so the fast loads serve a warp only when all its lanes may use them.
    const bool fast = __all_sync(0xffffffffu, vec && rowsInside);
    int d[2][4][4] = {};   // [16-row half][column phase c][fragment]
    // Step q: half 0 takes blocks 2q, 2q + 1, half 1 blocks 2q + 1, 2q + 2, both Toeplitz entry q.
    // b0: block 2q transposed (kept from the step before), w: the raw words of blocks 2q + 1, 2q + 2.
    uint32_t b0[4];
    auto multiply = [&](int q, const uint32_t (&w)[8]) {
        uint32_t b1[4], b2[4];
        transpose4x4(w[0], w[1], w[2], w[3], b1);
        transpose4x4(w[4], w[5], w[6], w[7], b2);
        const uint4 a = vTable[q * 32 + lane];
#pragma unroll
        for (int c = 0; c < 4; c++)
        {
            imma::mmaU8(d[0][c], a, b0[c], b1[c]);
            imma::mmaU8(d[1][c], a, b1[c], b2[c]);
            b0[c] = b2[c];
        }
    };
    // At an image edge: this lane's 4 columns mapped through the border once (the byte offset of
    // element E + i in a row, -1 for a constant border), then byte loads (stripWords maps the rows).
    int offset[4];
    imma::stripWords(
        p, fast, firstRow, rowsInside, t, E, taps.vChunks,
        [&](uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) { transpose4x4(w0, w1, w2, w3, b0); }, multiply,
        [&] {
#pragma unroll
            for (int i = 0; i < 4; i++)
            {
                const int e = E + i;
                const int x = e >= 0 ? e / Cn : -((-e + Cn - 1) / Cn);
                const int xs = static_cast<unsigned>(x) < static_cast<unsigned>(p.wholeWidth) ? x : mapBorder(x, p.wholeWidth, p.rowBorder);
                offset[i] = xs < 0 ? -1 : xs * Cn + (e - x * Cn);
            }
        },
        [&](const unsigned char* row) {
            uint32_t word = 0;
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (row && offset[i] >= 0)
                    word |= static_cast<uint32_t>(__ldg(row + offset[i])) << (8 * i);
            return word;
        });
    // d[j][c][0], [1]: row 16j + g, columns 8t + c, 8t + 4 + c; [2], [3]: row 16j + g + 8
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            storeSums<Cn>(d[j], 2 * h, 16 * j + g + 8 * h, 32 * grp + 8 * t, hi, lo);
}

// One tile (32 rows x `tile` output pixels at column `column`, strip `strip`) of an image with the
// block's tap tables (built by prepareTables from the same taps).
template <int Cn>
__device__ __forceinline__ void blurTile(const BlurCall& p, const TensorTaps8U& taps, int column, int strip, unsigned char* smem)
{
    typedef imma::Layout<Cn> L;
    constexpr int kWarps = Tile::threads(Cn) / 32;
    uint8_t* hi = smem;
    uint8_t* lo = smem + L::kPlaneBytes;
    uint8_t* out = smem + L::kOutOffset;
    const uint32_t* hTable = reinterpret_cast<const uint32_t*>(smem + L::kTableOffset);
    const uint32_t* vTable = hTable + taps.hChunks * imma::kFragmentWords;
    const int R = taps.r;
    const int halo = Tile::halo(R, Cn);               // pixels
    const int tile = L::kPixels - 2 * halo;           // output pixels per block (a multiple of 16)
    const int windowStart = halo - (R + taps.lead);   // column of output 0's window in its channel's segment
    const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
    const int y0 = strip * kRows;
    const int tileX0 = column * tile;
    // Outputs of this tile inside the row, to a multiple of 16, and the column groups of the pixels
    // their taps reach, up to pixel halo + live + R of each channel (a row's last tile skips the
    // groups past them: at the image edge, the costly ones; the horizontal windows' reads past them
    // meet zero taps).
    const int live = ::min(tile, (p.width - tileX0 + 15) / 16 * 16);
    const int groups = ::min(L::kCols / 32, ((halo + live + R) * Cn + 31) / 32);
    const int firstRow = p.roiY + y0 - R;
    const bool rowsInside = firstRow >= 0 && firstRow + Tile::sourceRows(R) <= p.wholeHeight;
    for (int grp = warp; grp < groups; grp += kWarps)
        verticalGroup<Cn>(p, taps, reinterpret_cast<const uint4*>(vTable), firstRow, rowsInside,
                          (p.roiX + tileX0 - halo) * Cn + 32 * grp + 4 * g, grp, hi, lo);
    __syncthreads();
    // (the planes are free again once every warp passed this barrier and the next)
    imma::horizontal<Cn>(hi, lo, hTable, taps.hChunks, windowStart, live, out);
    __syncthreads();
    imma::storeOut(p, out, L::kStride, kRows, p.width * Cn, y0, tileX0 * Cn, live * Cn);
}

// The tap matrices of `taps` into shared memory. Horizontal: entry c = chunk c of a channel's
// window. Vertical: entry q = chunk q of a half.
template <int Cn>
__device__ __forceinline__ void prepareTables(const TensorTaps8U& taps, unsigned char* smem)
{
    typedef imma::Layout<Cn> L;
    uint32_t* hTable = reinterpret_cast<uint32_t*>(smem + L::kTableOffset);
    uint32_t* vTable = hTable + taps.hChunks * imma::kFragmentWords;
    imma::buildToeplitz<1>(taps.h, taps.nh, taps.hChunks, 32, 0, hTable);
    imma::buildToeplitz<1>(taps.v, 2 * taps.r + 1, taps.vChunks, 32, 0, vTable);
}

// One kernel body, two instances: Images is persistent::OneImage<TensorTaps8U> (one image in the
// parameters) or persistent::ImageList (a batch in device memory).
template <int Cn, class Images>
__global__ void __launch_bounds__(Tile::threads(Cn), Tile::blocksPerSM(Cn))
gaussianTensor8U(const __grid_constant__ Images images)
{
    extern __shared__ __align__(16) unsigned char smem[];
    persistent::forEachTile<TensorTaps8U>(
        images, [](int r) { return Tile::outputs(r, Cn) / Cn; }, [&](const TensorTaps8U& taps) { prepareTables<Cn>(taps, smem); },
        [&](const BlurCall& p, const TensorTaps8U& taps, int column, int strip) { blurTile<Cn>(p, taps, column, strip, smem); });
}

template <int Cn>
const persistent::Kernels<TensorTaps8U> kernels{TensorCorePath::kKernel, TensorCorePath::kBatchKernel, gaussianTensor8U<Cn, persistent::OneImage<TensorTaps8U>>,
                                                gaussianTensor8U<Cn, persistent::ImageList>, Tile::threads(Cn), Tile::maxSharedBytes(Cn)};

} // namespace

bool tensorCoreCodeRuns() { return persistent::codeRunsTensorCores(kernels<1>.one); }

void TensorCorePath::launch(const BlurCall& p, const TensorTaps8U& taps, const PathChoice& choice, cudaStream_t stream)
{
    forChannels(p.channels, [&](auto cn) { kernels<decltype(cn)::value>.launch(p, taps, choice, stream); });
}

void TensorCorePath::launchBatch(const BatchLaunch& b, cudaStream_t stream)
{
    forChannels(b.channels, [&](auto cn) { kernels<decltype(cn)::value>.launch(b, stream); });
}

void TensorCorePath::makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream) { gaussian::makeBatchTaps<TensorCorePath>(jobs, stream); }

}}} // namespace cv::cuda::gaussian
