// The 32F Gaussian blur (one channel, radius 1..128; where the path's rule, tensor_core_32f_path.hpp,
// accepts it) with both passes on the tensor cores as error-compensated products, TF32 with BF16
// corrections (the arithmetic: the path's header): one kernel, no scratch image.
//
//   one block: tiles of 32 output rows x (768 - 2 halo) output pixels, 256 threads, two blocks per
//     SM taking the tiles in turn in column-major order (the tap arrays are built once per block);
//   vertical (mma.m16n8k8.tf32: A 16 output rows x 8 source rows of taps, B 8 source rows x 8
//     columns; mma.m16n8k16.bf16 for the corrections, the same 8 rows twice in K): a warp takes 32
//     columns at a time and reads the strip's source rows in 8-row blocks: per block each lane
//     loads rows t and t + 4 of the block at columns 4g..4g+3 (two 16-byte loads), which are the B
//     fragments of 4 MMA pairs, one per column phase c (fragment column n is column 4n + c). Block b
//     serves both 16-row halves: half 0 with Toeplitz entry b, half 1 with entry b - 2; entry q's
//     A fragment is taps (8q + t - g, 8q - 8 + t - g, 8q + 4 + t - g, 8q - 4 + t - g), read from the
//     tap arrays (no matrix tables). The sums go to shared memory, 16 bytes per store;
//   a tile whose sums are not all finite (NaN or Inf in its source window) is computed again by
//     exactTile() on the CUDA cores with the filter's own taps only (block-uniform branch);
//   horizontal (A 16 rows x 8 sums, B 8 sums x 8 outputs of taps): a warp takes 16 rows x 32
//     outputs (four 8-output blocks); per K chunk c it loads one new A fragment pair of sums (chunk
//     c + 3), kept with the three before it in a ring of registers, and the taps of entry c, and
//     makes 4 x 2 MMAs; the results go to the destination from the registers, 8-byte stores (8
//     outputs of a row: one 32-byte sector).
//
// MMA pairs per output at radius R: vertical 8 vChunks / 1024 x 768 / outputs (each 16-row half
// takes vChunks of the strip's blocks, four phases each, per 32 columns x 32 output rows),
// horizontal hChunks / 128: sigma 30 (R 120) 0.25 x 1.5 + 0.24 = 0.62, each pair 1024 TF32 and 2048
// BF16 multiply-adds, against 2 (2R + 1) FFMA per output in the CUDA-core kernels. 3xTF32 (three
// TF32 MMAs per pair) measured 6.73 against 5.46 ms at radius 120 (doc/design-record.md#tensor-core-32f-alternatives).
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cstdint>
#include "../../cuda_check.hpp"
#include "tensor_core_32f_path.hpp"
#include "../../cuda/border.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/batch_tap_maker.cuh"
#include "../../cuda/persistent_tiles.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;
typedef TensorCore32FTile Tile;
constexpr int kRows = Tile::kRows;
constexpr int kWarps = Tile::kThreads / 32;
constexpr int kStride = Tile::kStride;
constexpr int kTapBase = Tile::kTapBase;
constexpr int kGroups = Tile::kCols / 32;
static_assert(kRows == persistent::kTileRows && kRows == 32, "two 16-row MMA tiles per strip");

// The TF32 and BF16 conversions and MMAs need sm_80: below it they are stubs (zeros, or a trap for
// the MMAs), compiled so that every CUDA_ARCH_BIN builds; such code never runs
// (tensorCore32FCodeRuns()).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#  define CUDAIMAGE_TENSOR_32F_STUBS 1
#endif

__device__ __forceinline__ uint32_t toTf32(float x)
{
#ifdef CUDAIMAGE_TENSOR_32F_STUBS
    (void)x;
    return 0;
#else
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#endif
}

// x = hi + lo: hi x rounded to TF32, lo the rest (exact in FP32, below 2^-11 |x|)
__device__ __forceinline__ uint32_t splitHi(float x, float& lo)
{
    const uint32_t hi = toTf32(x);
    lo = x - __uint_as_float(hi);
    return hi;
}

// Two floats as a BF16 pair, `first` in the low half (the lower K index of an MMA fragment).
__device__ __forceinline__ uint32_t packBf16(float first, float second)
{
#ifdef CUDAIMAGE_TENSOR_32F_STUBS
    (void)first; (void)second;
    return 0;
#else
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(second), "f"(first));
    return r;
#endif
}

__device__ __forceinline__ void mmaTf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
#ifdef CUDAIMAGE_TENSOR_32F_STUBS
    (void)d; (void)a; (void)b0; (void)b1;
    __trap();
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ void mmaBf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
#ifdef CUDAIMAGE_TENSOR_32F_STUBS
    (void)d; (void)a; (void)b0; (void)b1;
    __trap();
#else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ bool finite(float v) { return fabsf(v) <= FLT_MAX; }

// The tap arrays of one direction in shared memory, by slot s (tap s - kTapBase - r, zero outside):
// hi: tap rounded to TF32; pairHi, pairLo: (hi, rest) of the taps at s and s + 4 as BF16 pairs.
struct TapArrays
{
    const uint32_t* hi;
    const uint32_t* pairHi;
    const uint32_t* pairLo;
};

// One warp's 32 columns (group `grp` of the tile) of a strip: vertical sums into V. x: the whole-
// image column of this lane's 4 columns 4g..4g+3. Returns whether every sum is finite.
__device__ __forceinline__ bool verticalGroup(const BlurCall& p, const TapArrays& taps, int chunks,
                                              int firstRow, bool rowsInside, int x, int grp, float* V)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    const bool vec = p.srcAligned4 && x >= 0 && x + 4 <= p.wholeWidth;
    // warp-wide MMAs: every lane takes the same branch
    const bool fast = __all_sync(0xffffffffu, vec && rowsInside);
    float d[2][4][4] = {};   // [16-row half][column phase][fragment]
    const int blocks = chunks + 2;
    // block b: rows 8b + t and 8b + t + 4 of the strip
    int offset[4];   // at an edge: the lane's columns after the row border (-1: constant zero)
    const ptrdiff_t pitch = static_cast<ptrdiff_t>(p.srcStep);
    const unsigned char* first = p.srcWhole + static_cast<ptrdiff_t>(firstRow + t) * pitch + static_cast<ptrdiff_t>(x) * 4;
    if (!fast)
    {
#pragma unroll
        for (int i = 0; i < 4; i++)
        {
            const int xs = static_cast<unsigned>(x + i) < static_cast<unsigned>(p.wholeWidth) ? x + i : mapBorder(x + i, p.wholeWidth, p.rowBorder);
            offset[i] = xs;
        }
    }
    auto load = [&](int b, float4& r0, float4& r1) {
        if (fast)
        {
            r0 = __ldg(reinterpret_cast<const float4*>(first + 8 * b * pitch));
            r1 = __ldg(reinterpret_cast<const float4*>(first + (8 * b + 4) * pitch));
        }
        else
        {
            auto edge = [&](int row) {
                const float* src = reinterpret_cast<const float*>(rowAt(p, firstRow, rowsInside, row));
                float4 v;
                v.x = src && offset[0] >= 0 ? __ldg(src + offset[0]) : 0.f;
                v.y = src && offset[1] >= 0 ? __ldg(src + offset[1]) : 0.f;
                v.z = src && offset[2] >= 0 ? __ldg(src + offset[2]) : 0.f;
                v.w = src && offset[3] >= 0 ? __ldg(src + offset[3]) : 0.f;
                return v;
            };
            r0 = edge(8 * b + t);
            r1 = edge(8 * b + t + 4);
        }
    };
    float4 cur0, cur1;
    load(0, cur0, cur1);
    // Entry q's fragment words: X(q) = tap 8q + t - g, Y(q) = tap 8q + 4 + t - g (zero outside).
    const int tap0 = kTapBase + t - g;
#pragma unroll 2
    for (int b = 0; b < blocks; b++)
    {
        float4 nxt0 = cur0, nxt1 = cur1;
        if (b + 1 < blocks)
            load(b + 1, nxt0, nxt1);
        const int at = tap0 + 8 * b;
        // half 0: entry b = {X(b), X(b - 1), Y(b), Y(b - 1)}; half 1: entry b - 2. The BF16
        // fragment's K slots 2j, 2j + 1 are rows j, j + 4 (taps hi, data lo), 2j + 8, 2j + 9 the same
        // rows (taps lo, data hi): lane (g, t) holds rows t and t + 4 in both operands.
        const uint32_t a0[4] = {taps.hi[at], taps.hi[at - 8], taps.hi[at + 4], taps.hi[at - 4]};
        const uint32_t a0c[4] = {taps.pairHi[at], taps.pairHi[at - 8], taps.pairLo[at], taps.pairLo[at - 8]};
        const uint32_t a1[4] = {taps.hi[at - 16], taps.hi[at - 24], taps.hi[at - 12], taps.hi[at - 20]};
        const uint32_t a1c[4] = {taps.pairHi[at - 16], taps.pairHi[at - 24], taps.pairLo[at - 16], taps.pairLo[at - 24]};
        const float s0[4] = {cur0.x, cur0.y, cur0.z, cur0.w}, s1[4] = {cur1.x, cur1.y, cur1.z, cur1.w};
#pragma unroll
        for (int c = 0; c < 4; c++)
        {
            float lo0, lo1;
            const uint32_t hi0 = splitHi(s0[c], lo0), hi1 = splitHi(s1[c], lo1);
            const uint32_t cLo = packBf16(lo0, lo1), cHi = packBf16(__uint_as_float(hi0), __uint_as_float(hi1));
            if (b < chunks)
            {
                mmaBf16(d[0][c], a0c, cLo, cHi);
                mmaTf32(d[0][c], a0, hi0, hi1);
            }
            if (b >= 2)
            {
                mmaBf16(d[1][c], a1c, cLo, cHi);
                mmaTf32(d[1][c], a1, hi0, hi1);
            }
        }
        cur0 = nxt0;
        cur1 = nxt1;
    }
    // d[j][c][0], [1]: row 16j + g, columns 8t + c, 8t + 4 + c; [2], [3]: row 16j + g + 8
    bool ok = true;
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
        {
            float* row = V + (16 * j + g + 8 * h) * kStride + 32 * grp + 8 * t;
            const float4 lo = make_float4(d[j][0][2 * h], d[j][1][2 * h], d[j][2][2 * h], d[j][3][2 * h]);
            const float4 hi = make_float4(d[j][0][2 * h + 1], d[j][1][2 * h + 1], d[j][2][2 * h + 1], d[j][3][2 * h + 1]);
            ok = ok && finite(lo.x) && finite(lo.y) && finite(lo.z) && finite(lo.w) && finite(hi.x) && finite(hi.y) && finite(hi.z) &&
                 finite(hi.w);
            *reinterpret_cast<float4*>(row) = lo;
            *reinterpret_cast<float4*>(row + 4) = hi;
        }
    return ok;
}

// One warp's 16 rows (half h) x 32 outputs (from output x0 of the tile) of the horizontal pass,
// stored to the destination. ws: the column of output 0's window in V.
__device__ __forceinline__ void horizontalTask(const BlurCall& p, const float* V, const TapArrays& taps, int chunks, int ws, int h, int x0, int y0, int tileX0)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    float acc[4][4] = {};
    // chunk k of the sums (8 columns from ws + x0 + 8k): a0 row g col t, a1 row g + 8, a2/a3 col t + 4
    const float* r0 = V + (16 * h + g) * kStride + ws + x0 + t;
    const float* r1 = r0 + 8 * kStride;
    // per chunk: the TF32 fragment of the sums' hi parts, and the BF16 one (K slots 2j, 2j + 1:
    // columns j, j + 4 of the lo parts; 2j + 8, 2j + 9: of the hi parts)
    uint32_t ring[4][4], ringC[4][4];
    auto loadChunk = [&](int k, uint32_t (&a)[4], uint32_t (&ac)[4]) {
        float l[4];
        a[0] = splitHi(r0[8 * k], l[0]);
        a[1] = splitHi(r1[8 * k], l[1]);
        a[2] = splitHi(r0[8 * k + 4], l[2]);
        a[3] = splitHi(r1[8 * k + 4], l[3]);
        ac[0] = packBf16(l[0], l[2]);
        ac[1] = packBf16(l[1], l[3]);
        ac[2] = packBf16(__uint_as_float(a[0]), __uint_as_float(a[2]));
        ac[3] = packBf16(__uint_as_float(a[1]), __uint_as_float(a[3]));
    };
    loadChunk(0, ring[0], ringC[0]);
    loadChunk(1, ring[1], ringC[1]);
    loadChunk(2, ring[2], ringC[2]);
    const int tap0 = kTapBase + t - g;
    // block m (outputs x0 + 8m ..) takes chunk c + m with entry c: the ring holds chunks c .. c + 3
    for (int c0 = 0; c0 < chunks; c0 += 4)
    {
#pragma unroll
        for (int s = 0; s < 4; s++)
        {
            const int c = c0 + s;
            if (c >= chunks)
                break;
            loadChunk(c + 3, ring[(s + 3) & 3], ringC[(s + 3) & 3]);
            const int at = tap0 + 8 * c;
            const uint32_t b0 = taps.hi[at], b1 = taps.hi[at + 4], bc0 = taps.pairHi[at], bc1 = taps.pairLo[at];
#pragma unroll
            for (int m = 0; m < 4; m++)
            {
                mmaBf16(acc[m], ringC[(s + m) & 3], bc0, bc1);
                mmaTf32(acc[m], ring[(s + m) & 3], b0, b1);
            }
        }
    }
    // acc[m][0], [1]: row g, outputs 8m + 2t, + 1; [2], [3]: row g + 8
#pragma unroll
    for (int k = 0; k < 2; k++)
    {
        const int y = y0 + 16 * h + g + 8 * k;
        if (y >= p.height)
            continue;
        float* row = reinterpret_cast<float*>(p.dst + static_cast<size_t>(y) * p.dstStep);
#pragma unroll
        for (int m = 0; m < 4; m++)
        {
            const int x = tileX0 + x0 + 8 * m + 2 * t;
            if (x + 1 < p.width && p.dstAligned4)
                *reinterpret_cast<float2*>(row + x) = make_float2(acc[m][2 * k], acc[m][2 * k + 1]);
            else
            {
                if (x < p.width)
                    row[x] = acc[m][2 * k];
                if (x + 1 < p.width)
                    row[x + 1] = acc[m][2 * k + 1];
            }
        }
    }
}

// The tile again on the CUDA cores with the filter's own taps only (2 ry + 1 vertical, 2 rx + 1
// horizontal), for a source window holding NaN or Inf: no zero tap meets them.
static __device__ __noinline__ void exactTile(const BlurCall& p, const TensorTaps32F& taps, float* V, int y0, int tileX0, int halo, int live)
{
    const int R = taps.r;
    for (int i = threadIdx.x; i < kRows * Tile::kCols; i += blockDim.x)
    {
        const int r = i / Tile::kCols, c = i % Tile::kCols;
        const int x = p.roiX + tileX0 - halo + c;
        const int xs = static_cast<unsigned>(x) < static_cast<unsigned>(p.wholeWidth) ? x : mapBorder(x, p.wholeWidth, p.rowBorder);
        float s = 0.f;
        for (int k = -taps.ry; k <= taps.ry; k++)
        {
            const int y = p.roiY + y0 + r + k;
            const int ys = static_cast<unsigned>(y) < static_cast<unsigned>(p.wholeHeight) ? y : mapBorder(y, p.wholeHeight, p.columnBorder);
            const float v = xs < 0 || ys < 0 ? 0.f : reinterpret_cast<const float*>(p.srcWhole + static_cast<size_t>(ys) * p.srcStep)[xs];
            s = fmaf(taps.v[R + k], v, s);
        }
        V[r * kStride + c] = s;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kRows * live; i += blockDim.x)
    {
        const int r = i / live, j = i % live;
        const int y = y0 + r, x = tileX0 + j;
        if (y >= p.height || x >= p.width)
            continue;
        float s = 0.f;
        for (int k = -taps.rx; k <= taps.rx; k++)
            s = fmaf(taps.h[R + k], V[r * kStride + halo + j + k], s);
        reinterpret_cast<float*>(p.dst + static_cast<size_t>(y) * p.dstStep)[x] = s;
    }
}

// The tap arrays of the block (vTaps, hTaps) in shared memory, behind the vertical sums.
struct Tables
{
    float* V;
    uint32_t* words;   // 6 arrays of kTapSlots: vertical hi, pairHi, pairLo, then the horizontal ones
    __device__ explicit Tables(float* smem) : V(smem), words(reinterpret_cast<uint32_t*>(smem + kRows * kStride)) {}
    __device__ TapArrays vertical() const { return TapArrays{words, words + Tile::kTapSlots, words + 2 * Tile::kTapSlots}; }
    __device__ TapArrays horizontal() const
    {
        return TapArrays{words + 3 * Tile::kTapSlots, words + 4 * Tile::kTapSlots, words + 5 * Tile::kTapSlots};
    }
};

// The tap arrays: slot kTapBase + m = tap m - R (m in 0..2R), zeros around.
__device__ __forceinline__ void prepareTables(const TensorTaps32F& taps, float* smem)
{
    const Tables tables(smem);
    const int R = taps.r;
    for (int i = threadIdx.x; i < 3 * Tile::kTapSlots; i += blockDim.x)
    {
        const int kind = i / Tile::kTapSlots, slot = i % Tile::kTapSlots;   // hi, pairHi, pairLo
        for (int dir = 0; dir < 2; dir++)
        {
            const float* t = dir == 0 ? taps.v : taps.h;
            auto tapAt = [&](int s) { return s - kTapBase >= 0 && s - kTapBase <= 2 * R ? t[s - kTapBase] : 0.f; };
            float lo0, lo4;
            const uint32_t hi0 = splitHi(tapAt(slot), lo0), hi4 = splitHi(tapAt(slot + 4), lo4);
            tables.words[(3 * dir + kind) * Tile::kTapSlots + slot] =
                kind == 0 ? hi0 : kind == 1 ? packBf16(__uint_as_float(hi0), __uint_as_float(hi4)) : packBf16(lo0, lo4);
        }
    }
}

// One tile (32 rows x the tile's output pixels at column `column`, strip `strip`).
__device__ __forceinline__ void blurTile(const BlurCall& p, const TensorTaps32F& taps, int column, int strip, float* smem)
{
    const Tables tables(smem);
    const int R = taps.r;
    const int halo = Tile::halo(R);
    const int tile = Tile::kCols - 2 * halo;   // output pixels per block (a multiple of 32)
    const int ws = halo - R;                   // column of output 0's window in V
    const int vChunks = Tile::vChunks(R), hChunks = Tile::hChunks(R);
    const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
    const int y0 = strip * kRows;
    const int tileX0 = column * tile;
    const int live = ::min(tile, (p.width - tileX0 + 31) / 32 * 32);   // outputs computed, whole tasks
    const int firstRow = p.roiY + y0 - R;
    const bool rowsInside = firstRow >= 0 && firstRow + Tile::sourceRows(R) <= p.wholeHeight;
    // every group, so that every sum a horizontal window reads (zero taps included) is this tile's
    bool ok = true;
    const TapArrays vTaps = tables.vertical();
    for (int grp = warp; grp < kGroups; grp += kWarps)
        ok = verticalGroup(p, vTaps, vChunks, firstRow, rowsInside, p.roiX + tileX0 - halo + 32 * grp + 4 * g, grp, tables.V) && ok;
    if (__syncthreads_or(!ok))
        exactTile(p, taps, tables.V, y0, tileX0, halo, live);
    else
    {
        const TapArrays hTaps = tables.horizontal();
        for (int task = warp; task < 2 * (live / 32); task += kWarps)
            horizontalTask(p, tables.V, hTaps, hChunks, ws, task & 1, 32 * (task >> 1), y0, tileX0);
    }
    __syncthreads();
}

// One kernel body, two instances: Images is persistent::OneImage<TensorTaps32F> (one image in the
// parameters) or persistent::ImageList (a batch in device memory).
template <class Images>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSM)
gaussianTensor32F(const __grid_constant__ Images images)
{
    extern __shared__ __align__(16) float smem32[];
    persistent::forEachTile<TensorTaps32F>(
        images, [](int r) { return Tile::outputs(r); }, [&](const TensorTaps32F& taps) { prepareTables(taps, smem32); },
        [&](const BlurCall& p, const TensorTaps32F& taps, int column, int strip) { blurTile(p, taps, column, strip, smem32); });
}

const persistent::Kernels<TensorTaps32F> kernels{TensorCore32FPath::kKernel, TensorCore32FPath::kBatchKernel,
                                                 gaussianTensor32F<persistent::OneImage<TensorTaps32F>>,
                                                 gaussianTensor32F<persistent::ImageList>, Tile::kThreads, Tile::maxSharedBytes()};

} // namespace

bool tensorCore32FCodeRuns() { return persistent::codeRunsTensorCores(kernels.one); }
void TensorCore32FPath::launch(const BlurCall& p, const Taps& taps, const PathChoice& c, cudaStream_t s) { kernels.launch(p, taps, c, s); }
void TensorCore32FPath::launchBatch(const BatchLaunch& b, cudaStream_t s) { kernels.launch(b, s); }

void TensorCore32FPath::makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream) { gaussian::makeBatchTaps<TensorCore32FPath>(jobs, stream); }

}}} // namespace cv::cuda::gaussian
