// The 32F Gaussian blur (one channel, radius 1..128; where the path's rule, tensor_core_32f_path.hpp,
// accepts it) with both passes on the tensor cores as error-compensated TF32 products (the
// arithmetic: the path's header): one kernel, no scratch image.
//
//   one block: tiles of 32 output rows x (768 - 2 halo) output pixels, 256 threads, two blocks per
//     SM taking the tiles in turn in column-major order (the tap halves are split once per block);
//   vertical (mma.m16n8k8: A 16 output rows x 8 source rows of taps, B 8 source rows x 8 columns):
//     a warp takes 32 columns at a time and reads the strip's source rows in 8-row blocks: per
//     block each lane loads rows t and t + 4 of the block at columns 4g..4g+3 (two 16-byte loads),
//     which are the B fragments of 4 MMAs, one per column phase c (fragment column n is column
//     4n + c). Block b serves both 16-row halves: half 0 with Toeplitz entry b, half 1 with entry
//     b - 2; entry q's A fragment is taps (8q + t - g, 8q - 8 + t - g, 8q + 4 + t - g, 8q - 4 + t - g),
//     read from the tap arrays (no matrix tables). Three MMAs per product (lo x hi, hi x lo, hi x
//     hi into one FP32 sum). The sums go to shared memory, 16 bytes per store;
//   a tile whose sums are not all finite (NaN or Inf in its source window) is computed again by
//     exactTile() on the CUDA cores with the filter's own taps only (block-uniform branch);
//   horizontal (A 16 rows x 8 sums, B 8 sums x 8 outputs of taps): a warp takes 16 rows x 32
//     outputs (four 8-output blocks); per K chunk c it loads one new A fragment of sums (chunk
//     c + 3), kept with the three before it in a ring of registers, and the taps of entry c, and
//     makes 4 x 3 MMAs; the results go to the destination from the registers, 8-byte stores (8
//     outputs of a row: one 32-byte sector).
//
// MMAs per output at radius R: vertical 3 (vChunks + 2) x 8 / 1024 x 768 / outputs (three
// products, two halves and four phases per block of 8 rows x 32 columns x 32 output rows),
// horizontal 3 hChunks / 128: sigma 30 (R 120) 0.80 x 1.5 + 0.73 = 1.93, each 1024 multiply-adds
// at the tensor cores' TF32 rate, against 2 (2R + 1) FFMA per output in the CUDA-core kernels.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cstdint>
#include "../../cuda_check.hpp"
#include "tensor_core_32f_path.hpp"
#include "../../cuda/border.hpp"
#include "../../cuda/capture_mode.hpp"
#include "../../cuda/gaussian_fused_common.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;
typedef TensorCore32FTile Tile;
constexpr int kRows = Tile::kRows;
constexpr int kWarps = Tile::kThreads / 32;
constexpr int kStride = Tile::kStride;
constexpr int kTapBase = Tile::kTapBase;
constexpr int kGroups = Tile::kCols / 32;
constexpr long long kMaxGridBlocks = 1 << 30;
static_assert(kRows == 32, "two 16-row MMA tiles per strip");

__device__ __forceinline__ uint32_t toTf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

// x = hi + lo, both TF32 (the rest of x after hi is exact in FP32)
__device__ __forceinline__ void split(float x, uint32_t& hi, uint32_t& lo)
{
    hi = toTf32(x);
    lo = toTf32(x - __uint_as_float(hi));
}

__device__ __forceinline__ void mmaTf32(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // TF32 MMAs need sm_80; older code never runs (tensorCore32FCodeRuns()).
    (void)d; (void)a0; (void)a1; (void)a2; (void)a3; (void)b0; (void)b1;
    __trap();
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

// d += A B in three products: the small ones first, then hi x hi.
__device__ __forceinline__ void mma3(float (&d)[4], const uint32_t (&aHi)[4], const uint32_t (&aLo)[4], const uint32_t (&bHi)[2],
                                     const uint32_t (&bLo)[2])
{
    mmaTf32(d, aLo[0], aLo[1], aLo[2], aLo[3], bHi[0], bHi[1]);
    mmaTf32(d, aHi[0], aHi[1], aHi[2], aHi[3], bLo[0], bLo[1]);
    mmaTf32(d, aHi[0], aHi[1], aHi[2], aHi[3], bHi[0], bHi[1]);
}

__device__ __forceinline__ bool finite(float v) { return fabsf(v) <= FLT_MAX; }

// One warp's 32 columns (group `grp` of the tile) of a strip: vertical sums into V. x: the whole-
// image column of this lane's 4 columns 4g..4g+3. Returns whether every sum is finite.
__device__ __forceinline__ bool verticalGroup(const BlurCall& p, const uint32_t* vHi, const uint32_t* vLo, int chunks,
                                              int firstRow, bool rowsInside, int x, int grp, float* V)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    const bool vec = p.srcAligned4 && x >= 0 && x + 4 <= p.wholeWidth;
    // warp-wide MMAs: every lane takes the same branch
    const bool fast = __all_sync(0xffffffffu, vec && rowsInside);
    float d[2][4][4];   // [16-row half][column phase][fragment]
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int c = 0; c < 4; c++)
#pragma unroll
            for (int f = 0; f < 4; f++)
                d[j][c][f] = 0.f;
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
        // half 0: entry b = {X(b), X(b - 1), Y(b), Y(b - 1)}; half 1: entry b - 2
        const uint32_t a0Hi[4] = {vHi[at], vHi[at - 8], vHi[at + 4], vHi[at - 4]};
        const uint32_t a0Lo[4] = {vLo[at], vLo[at - 8], vLo[at + 4], vLo[at - 4]};
        const uint32_t a1Hi[4] = {vHi[at - 16], vHi[at - 24], vHi[at - 12], vHi[at - 20]};
        const uint32_t a1Lo[4] = {vLo[at - 16], vLo[at - 24], vLo[at - 12], vLo[at - 20]};
        const float s0[4] = {cur0.x, cur0.y, cur0.z, cur0.w}, s1[4] = {cur1.x, cur1.y, cur1.z, cur1.w};
#pragma unroll
        for (int c = 0; c < 4; c++)
        {
            uint32_t bHi[2], bLo[2];
            split(s0[c], bHi[0], bLo[0]);
            split(s1[c], bHi[1], bLo[1]);
            if (b < chunks)
                mma3(d[0][c], a0Hi, a0Lo, bHi, bLo);
            if (b >= 2)
                mma3(d[1][c], a1Hi, a1Lo, bHi, bLo);
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
__device__ __forceinline__ void horizontalTask(const BlurCall& p, const float* V, const uint32_t* hHi, const uint32_t* hLo,
                                               int chunks, int ws, int h, int x0, int y0, int tileX0)
{
    const int lane = threadIdx.x & 31, t = lane & 3, g = lane >> 2;
    float acc[4][4];
#pragma unroll
    for (int m = 0; m < 4; m++)
#pragma unroll
        for (int f = 0; f < 4; f++)
            acc[m][f] = 0.f;
    // chunk k of the sums (8 columns from ws + x0 + 8k): a0 row g col t, a1 row g + 8, a2/a3 col t + 4
    const float* r0 = V + (16 * h + g) * kStride + ws + x0 + t;
    const float* r1 = r0 + 8 * kStride;
    uint32_t ringHi[4][4], ringLo[4][4];
    auto loadChunk = [&](int k, uint32_t (&hi)[4], uint32_t (&lo)[4]) {
        split(r0[8 * k], hi[0], lo[0]);
        split(r1[8 * k], hi[1], lo[1]);
        split(r0[8 * k + 4], hi[2], lo[2]);
        split(r1[8 * k + 4], hi[3], lo[3]);
    };
    loadChunk(0, ringHi[0], ringLo[0]);
    loadChunk(1, ringHi[1], ringLo[1]);
    loadChunk(2, ringHi[2], ringLo[2]);
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
            loadChunk(c + 3, ringHi[(s + 3) & 3], ringLo[(s + 3) & 3]);
            const int at = tap0 + 8 * c;
            const uint32_t bHi[2] = {hHi[at], hHi[at + 4]}, bLo[2] = {hLo[at], hLo[at + 4]};
#pragma unroll
            for (int m = 0; m < 4; m++)
                mma3(acc[m], ringHi[(s + m) & 3], ringLo[(s + m) & 3], bHi, bLo);
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

__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSM)
gaussianTensor32F(const BlurCall p, const __grid_constant__ TensorTaps32F taps)
{
    extern __shared__ __align__(16) float smem32[];
    float* V = smem32;
    uint32_t* vHi = reinterpret_cast<uint32_t*>(V + kRows * kStride);
    uint32_t* vLo = vHi + Tile::kTapSlots;
    uint32_t* hHi = vLo + Tile::kTapSlots;
    uint32_t* hLo = hHi + Tile::kTapSlots;

    const int R = taps.r;
    const int halo = Tile::halo(R);
    const int tile = Tile::kCols - 2 * halo;   // output pixels per block (a multiple of 32)
    const int ws = halo - R;                   // column of output 0's window in V
    const int vChunks = Tile::vChunks(R), hChunks = Tile::hChunks(R);
    const int columns = (p.width + tile - 1) / tile;
    const int strips = (p.height + kRows - 1) / kRows;
    const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
    // the tap halves: slot kTapBase + m = tap m - R (m in 0..2R), zeros around
    for (int i = threadIdx.x; i < Tile::kTapSlots; i += blockDim.x)
    {
        const int m = i - kTapBase;
        const bool in = m >= 0 && m <= 2 * R;
        split(in ? taps.v[m] : 0.f, vHi[i], vLo[i]);
        split(in ? taps.h[m] : 0.f, hHi[i], hLo[i]);
    }
    __syncthreads();

    // Tiles in column-major order, block b taking b, b + gridDim.x, ... (as the 8U kernel).
    const int stepColumns = gridDim.x / strips, stepStrips = gridDim.x % strips;
    int strip = blockIdx.x % strips;
    for (int column = blockIdx.x / strips; column < columns; column += stepColumns)
    {
        const int y0 = strip * kRows;
        const int tileX0 = column * tile;
        const int live = ::min(tile, (p.width - tileX0 + 31) / 32 * 32);   // outputs computed, whole tasks
        const int firstRow = p.roiY + y0 - R;
        const bool rowsInside = firstRow >= 0 && firstRow + Tile::sourceRows(R) <= p.wholeHeight;
        // every group, so that every sum a horizontal window reads (zero taps included) is this tile's
        bool ok = true;
        for (int grp = warp; grp < kGroups; grp += kWarps)
            ok = verticalGroup(p, vHi, vLo, vChunks, firstRow, rowsInside, p.roiX + tileX0 - halo + 32 * grp + 4 * g, grp, V) && ok;
        if (__syncthreads_or(!ok))
            exactTile(p, taps, V, y0, tileX0, halo, live);
        else
            for (int task = warp; task < 2 * (live / 32); task += kWarps)
                horizontalTask(p, V, hHi, hLo, hChunks, ws, task & 1, 32 * (task >> 1), y0, tileX0);
        __syncthreads();
        strip += stepStrips;
        if (strip >= strips)
        {
            strip -= strips;
            column++;
        }
    }
}

} // namespace

bool tensorCore32FCodeRuns()
{
    // As tensorCoreCodeRuns() (src/paths/tensor_core): the PTX target of the loaded code, asked in
    // relaxed capture mode; no code for the device: not runnable (the error cleared).
    cudaFuncAttributes attributes;
    RelaxedCaptureMode relaxed;
    if (cudaFuncGetAttributes(&attributes, gaussianTensor32F) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return false;
    }
    return attributes.ptxVersion >= 80;
}

void TensorCore32FPath::launch(const BlurCall& p, const TensorTaps32F& taps, const PathChoice& choice, cudaStream_t stream)
{
    (void)cudaGetLastError();   // an earlier, unrelated error is not ours (as forChannels)
    static std::atomic<uint64_t> optedIn{0};
    optInSharedMemory(gaussianTensor32F, Tile::maxSharedBytes(), optedIn);
    const long long tiles = (static_cast<long long>(p.width) + choice.tileOutputs - 1) / choice.tileOutputs * ((p.height + kRows - 1) / kRows);
    const long long blocks = choice.residentBlocks > 0 ? std::min<long long>(tiles, choice.residentBlocks) : tiles;
    const dim3 grid(static_cast<unsigned>(std::min<long long>(blocks, kMaxGridBlocks)));
    gaussianTensor32F<<<grid, Tile::kThreads, choice.sharedBytes, stream>>>(p, taps);
    CUDAIMAGE_CHECK(cudaGetLastError());
}

}}} // namespace cv::cuda::gaussian
