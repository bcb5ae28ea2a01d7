// Fused Gaussian blur for larger radii (FusedLargeTapsT::kMinR..kMaxR, i.e. sigma ~3 to ~42 at 8U;
// for 4 channels up to 122, where the halo of a 1024-element block leaves no tile: the path's rule,
// fused_large_path.hpp, declines larger radii): the structure of src/paths/fused (vertical pass first from registers, horizontal pass from shared memory, one
// kernel, no scratch image) with the radius a run-time value, so one kernel per depth and channel
// count serves every radius:
//
//   vertical: a thread owns 4 elements x kRows output rows; the input rows stream through it. 8U
//     takes them 4 at a time (4x4 byte transpose, then DP4A against tap words vw[g - a + 3][ph],
//     kept in a 4-entry register ring unrolled by 4); the other depths load kLoadBatch rows ahead
//     of their arithmetic (one row at a time at the image's edges), tap j - v for output row v
//     read from the zero-padded parameter array; 16U sums in 32-bit integers (taps `vi`).
//     Float sources (32F, 64F) multiply only the ry-kernel's own taps, so that a NaN or an Inf
//     reaches exactly the CPU's pixels (0 x NaN is NaN): output row v sums rows v + lo ..
//     v + lo + n - 1 (lo = R - ry, n = 2ry + 1), in three runs of rows:
//
//       rows lo .. lo+kRows-2          head: row lo+u meets output rows 0..u      (unrolled triangle)
//       rows lo+kRows-1 .. lo+n-1      body: every output row                     (run-time loop)
//       rows lo+n .. lo+n+kRows-2      tail: row lo+n-1+u meets rows u..kRows-1   (unrolled triangle)
//
//     which reads n + kRows - 1 rows instead of 2R + kRows and multiplies no zero; a short kernel
//     (n < kRows - 1) and the image's edges take one guarded loop over the same rows.
//   horizontal, float sources: the ring runs over the chunks of 4 taps wholly inside
//     h[hFirst .. hLast] (no guard in the loop); the chunk partly inside before them (the lead
//     zeros, or the padding of rx < R) and the one after (trailing zeros) are summed on their own
//     from shared memory, their taps inside only.
//   horizontal: an item is kItem consecutive outputs of one row; the taps go 4 at a time; the
//     window lives in a register ring of kItem + 4*Cn elements that advances 4*Cn elements per
//     chunk, unrolled so that every ring index is a constant (no moves).
// (8U with byte taps takes src/paths/tensor_core instead, where its rule accepts it.)
//
// Taps are one __grid_constant__ parameter (no copy; run-time indices are uniform constant loads).
// Zero taps pad the ends: `lead` in front of the horizontal taps makes every window start a
// multiple of 4 elements, and the halo covers the padded extent, so every shared element read was
// written by the vertical pass. Arithmetic and exactness as src/paths/fused.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../../cuda_check.hpp"
#include "fused_large_path.hpp"
#include "../../cuda/border.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/batch_tap_maker.cuh"
#include "../../cuda/gaussian_tap_packer.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;

// 256 threads x 4 elements (fused_large_path.hpp, whose rule declines a radius whose halo leaves no
// tile: 4 channels above 122).
typedef FusedLargeTile Tile;
constexpr int kThreads = Tile::kThreads;
constexpr int kCols = Tile::kCols;   // vertical results per block row, halo included

template <class W> struct LargeTapsFor;
template <> struct LargeTapsFor<float>  { typedef FusedLargeTapsT<float> type; };
template <> struct LargeTapsFor<double> { typedef FusedLargeTapsT<double> type; };

constexpr int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

template <int Depth, int Cn>
struct LargeGeometry
{
    typedef typename DepthPolicy<Depth>::Work W;
    static constexpr int kRows = DepthPolicy<Depth>::kRows;
    static constexpr int kItem = tile::itemOutputs(Depth);
    static constexpr int kStride = kCols + kPad;
    static constexpr int kRing = kItem + 4 * Cn;                  // window elements held per chunk
    static constexpr int kUnroll = kRing / gcd(kRing, 4 * Cn);    // chunks until the ring repeats
    static constexpr int kVec = 16 / static_cast<int>(sizeof(W)); // elements per 16-byte shared load
    static constexpr int kLoadBatch = 4;                          // source rows loaded ahead (non-8U vertical)
    static_assert(kRing % kVec == 0 && (4 * Cn) % kVec == 0, "ring loads are whole vectors");
    static_assert(kRows <= FusedLargeTapsT<W>::kRows, "tap ring");
    // Halo (elements each side): covers the padded tap extent (lead + 2r + 1 + trailing zeros).
    __host__ __device__ static int halo(int r) { return Tile::halo(r, Cn); }
};

template <int Depth> using LargeTapsOf = typename LargeTapsFor<typename DepthPolicy<Depth>::Work>::type;

// One block's tiles of one image. Inlined into the single-image kernel (call and taps are kernel
// parameters) and into the batched one (item blockIdx.z's, from device memory).
template <int Depth, int Cn>
__device__ __forceinline__ void fusedLargeTileBody(const BlurCall& p, const LargeTapsOf<Depth>& taps)
{
    typedef DepthPolicy<Depth> D;
    typedef typename D::Src Src;
    typedef typename D::Work W;
    typedef LargeGeometry<Depth, Cn> G;
    constexpr int kRows = G::kRows;
    constexpr int kLoadBatch = G::kLoadBatch;
    constexpr bool kSkipPadding = D::kRealSource;   // NaN and Inf: see the header
    extern __shared__ __align__(16) unsigned char smemBytes[];
    W* vert = reinterpret_cast<W*>(smemBytes);   // [kRows][kStride]

    const int R = taps.r;
    const int halo = G::halo(R);
    const int tile = kCols - 2 * halo;              // output elements per block (a multiple of 16)
    const int elements = p.width * Cn;
    const int wholeElems = p.wholeWidth * Cn;
    const int tileE0 = blockIdx.x * tile;
    const int E = p.roiX * Cn + tileE0 - halo + 4 * threadIdx.x;
    const bool vec = p.srcAligned4 && E >= 0 && E + 4 <= wholeElems;
    const EdgeColumns cols = edgeColumns(E, vec, Cn, p.wholeWidth, p.rowBorder);
    // Columns that no output of the tile reads (past the image's last item and its halo) are not
    // summed: in a narrow image's tile most threads would otherwise take the bordered loads for
    // nothing while the block waits for them at its barrier.
    const int needEnd = ::min(tileE0 + tile, roundUp(elements, G::kItem)) + halo;
    const bool needed = tileE0 - halo + 4 * static_cast<int>(threadIdx.x) < needEnd;

    for (int y0 = blockIdx.y * kRows; y0 < p.height; y0 += gridDim.y * kRows)
    {
        const int firstRow = p.roiY + y0 - R;
        const int rowsRead = roundUp(kRows + 2 * R, 4);
        const bool rowsInside = firstRow >= 0 && firstRow + rowsRead <= p.wholeHeight;
        const bool fast = vec && rowsInside;
        const unsigned char* base = p.srcWhole + static_cast<ptrdiff_t>(firstRow) * static_cast<ptrdiff_t>(p.srcStep);

        // 1. vertical
        if (needed)
        {
            if constexpr (Depth == CV_8U)
            {
                const int groups = rowsRead / 4;
                uint32_t acc[kRows][4];
                fillAcc(acc, kDp4aBias);
                // ring[(g - a) & 3] = vw[g - a + 3]: the words of output rows 4a..4a+3 for group g.
                uint4 ring[4];
    #pragma unroll
                for (int a = 1; a < 4; a++)
                    ring[(4 - a) & 3] = *reinterpret_cast<const uint4*>(taps.vw[3 - a]);
                for (int g0 = 0; g0 < groups; g0 += 4)
                {
    #pragma unroll
                    for (int u = 0; u < 4; u++)
                    {
                        const int g = g0 + u;
                        if (g >= groups)
                            break;
                        ring[u] = *reinterpret_cast<const uint4*>(taps.vw[g + 3]);
                        uint32_t w[4], x[4];
                        if (fast)
                        {
    #pragma unroll
                            for (int i = 0; i < 4; i++)
                                w[i] = __ldg(reinterpret_cast<const uint32_t*>(base + static_cast<ptrdiff_t>(4 * g + i) * static_cast<ptrdiff_t>(p.srcStep) + E));
                        }
                        else
                        {
    #pragma unroll
                            for (int i = 0; i < 4; i++)
                                w[i] = loadWord8U(rowAt(p, firstRow, rowsInside, 4 * g + i), E, vec, cols);
                        }
                        transpose4x4(w[0], w[1], w[2], w[3], x);
    #pragma unroll
                        for (int a = 0; a < kRows / 4; a++)
                        {
                            const uint4 t = ring[(u - a) & 3];
                            const uint32_t tw[4] = {t.x, t.y, t.z, t.w};
    #pragma unroll
                            for (int ph = 0; ph < 4; ph++)
    #pragma unroll
                                for (int c = 0; c < 4; c++)
                                    acc[4 * a + ph][c] = __dp4a(x[c], tw[ph], acc[4 * a + ph][c]);
                        }
                    }
                }
                storeVertical<G::kStride>(acc, reinterpret_cast<float*>(vert));
            }
            else if constexpr (kSkipPadding)
            {
                W acc[kRows][4];
                fillAcc(acc, W(0));
                const int lo = R - taps.ry, n = 2 * taps.ry + 1;
                const W* tv = taps.v + FusedLargeTapsT<W>::kRows;   // tv[k] = tap k of the padded 2R+1
                const Src* row0 = reinterpret_cast<const Src*>(base);
                auto fastRow = [&](int j, W (&x)[4]) {
                    load4Vec<Depth>(reinterpret_cast<const Src*>(reinterpret_cast<const unsigned char*>(row0) + static_cast<ptrdiff_t>(j) * static_cast<ptrdiff_t>(p.srcStep)), E, x);
                };
                auto add = [&](int v, int j, const W (&x)[4]) {
                    const W t = tv[j - v];
    #pragma unroll
                    for (int c = 0; c < 4; c++)
                        acc[v][c] += t * x[c];
                };
                if (fast && n >= kRows - 1)
                {
    #pragma unroll
                    for (int u = 0; u < kRows - 1; u++)
                    {
                        W x[4];
                        fastRow(lo + u, x);
    #pragma unroll
                        for (int v = 0; v <= u; v++)
                            add(v, lo + u, x);
                    }
                    int j = lo + kRows - 1;
                    for (; j + kLoadBatch <= lo + n; j += kLoadBatch)
                    {
                        W x[kLoadBatch][4];
    #pragma unroll
                        for (int i = 0; i < kLoadBatch; i++)
                            fastRow(j + i, x[i]);
    #pragma unroll
                        for (int i = 0; i < kLoadBatch; i++)
    #pragma unroll
                            for (int v = 0; v < kRows; v++)
                                add(v, j + i, x[i]);
                    }
                    for (; j < lo + n; j++)
                    {
                        W x[4];
                        fastRow(j, x);
    #pragma unroll
                        for (int v = 0; v < kRows; v++)
                            add(v, j, x);
                    }
    #pragma unroll
                    for (int u = 1; u < kRows; u++)
                    {
                        W x[4];
                        fastRow(lo + n - 1 + u, x);
    #pragma unroll
                        for (int v = u; v < kRows; v++)
                            add(v, lo + n - 1 + u, x);
                    }
                }
                else
                {
                    for (int j = lo; j < lo + n + kRows - 1; j++)
                    {
                        W x[4];
                        load4<Depth>(rowAt(p, firstRow, rowsInside, j), E, vec, cols, x);
    #pragma unroll
                        for (int v = 0; v < kRows; v++)
                            if (static_cast<unsigned>(j - lo - v) < static_cast<unsigned>(n))
                                add(v, j, x);
                    }
                }
                storeVertical<G::kStride>(acc, vert);
            }
            else
            {
                typedef typename D::VerticalAcc A;   // 16U: uint32 (exact), else W
                const int rows = kRows + 2 * R;
                A acc[kRows][4];
                fillAcc(acc, A(0));
                // taps.v[kRows + k] = tap k, zero for k < 0 and k > 2R: row j meets output row v at tap j - v.
                const A* tv = verticalTaps<A>(taps) + FusedLargeTapsT<W>::kRows;
                int j = 0;
                if (fast)
                {
                    // kLoadBatch rows' loads in flight before their arithmetic (the kernel is latency-
                    // bound at 16 warps per SM); each sum still takes its rows in order j = 0, 1, ...
                    const Src* row0 = reinterpret_cast<const Src*>(base);
                    for (; j + kLoadBatch <= rows; j += kLoadBatch)
                    {
                        A x[kLoadBatch][4];
    #pragma unroll
                        for (int i = 0; i < kLoadBatch; i++)
                            load4Vec<Depth>(reinterpret_cast<const Src*>(reinterpret_cast<const unsigned char*>(row0) + static_cast<ptrdiff_t>(j + i) * static_cast<ptrdiff_t>(p.srcStep)), E, x[i]);
    #pragma unroll
                        for (int i = 0; i < kLoadBatch; i++)
    #pragma unroll
                            for (int v = 0; v < kRows; v++)
                            {
                                const A t = tv[j + i - v];
    #pragma unroll
                                for (int c = 0; c < 4; c++)
                                    acc[v][c] += t * x[i][c];
                            }
                    }
                }
                for (; j < rows; j++)
                {
                    A x[4];
                    load4<Depth>(rowAt(p, firstRow, rowsInside, j), E, vec, cols, x);
    #pragma unroll
                    for (int v = 0; v < kRows; v++)
                    {
                        const A t = tv[j - v];
    #pragma unroll
                        for (int c = 0; c < 4; c++)
                            acc[v][c] += t * x[c];
                    }
                }
                storeVertical<G::kStride>(acc, vert);
            }
        }
        __syncthreads();

        // 2. horizontal: item it = (chunk, row), rows fastest (StripItem).
        const int chunks = tile / G::kItem;
        const int windowStart = halo - (R + taps.lead) * Cn;   // shared column of window element 0 for chunk 0
        for (int it = threadIdx.x; it < chunks * kRows; it += kThreads)
        {
            const StripItem item(it, kRows, y0, tileE0, G::kItem);
            if (!item.inside(p.height, elements))
                continue;
            const W* window = vert + item.v * G::kStride + windowStart + item.chunk * G::kItem;
            W acc[G::kItem];
            initItem<Depth>(acc, p.floatOutput);
            // The register ring over `count` (> 0) chunks of 4 taps from chunk `first`: chunk c reads
            // window elements [4cCn, 4cCn + kRing) from `first`'s, the ring slot of element f being
            // f % kRing; all but the first chunk first load their 4*Cn new elements.
            auto ringChunks = [&](int first, int count) {
                const W* base = window + 4 * first * Cn;
                W ring[G::kRing];
#pragma unroll
                for (int m = 0; m < G::kRing; m += G::kVec)
                    loadVec(base + m, ring + m);
                for (int c0 = 0; c0 < count; c0 += G::kUnroll)
                {
#pragma unroll
                    for (int u = 0; u < G::kUnroll; u++)
                    {
                        const int c = c0 + u;
                        if (c >= count)
                            break;
                        if (c > 0)
                        {
#pragma unroll
                            for (int m = 0; m < 4 * Cn; m += G::kVec)
                            {
                                W tmp[G::kVec];
                                loadVec(base + G::kRing + 4 * (c - 1) * Cn + m, tmp);
#pragma unroll
                                for (int q = 0; q < G::kVec; q++)
                                    ring[(4 * ((u + G::kUnroll - 1) % G::kUnroll) * Cn + G::kRing + m + q) % G::kRing] = tmp[q];
                            }
                        }
                        W t[4];
                        loadVec(taps.h + 4 * (first + c), t);
                        if (sizeof(W) == 8)
                            loadVec(taps.h + 4 * (first + c) + 2, t + 2);
#pragma unroll
                        for (int k = 0; k < 4; k++)
#pragma unroll
                            for (int i = 0; i < G::kItem; i++)
                                acc[i] += t[k] * ring[(4 * u * Cn + i + k * Cn) % G::kRing];
                    }
                }
            };
            if constexpr (kSkipPadding)
            {
                // Float sources: the ring over the chunks wholly inside h[hFirst .. hLast]; a chunk
                // partly inside, before or after them, summed on its own, its taps inside only.
                auto partialChunk = [&](int c) {
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        if (4 * c + k >= taps.hFirst && 4 * c + k <= taps.hLast)
                        {
                            const W t = taps.h[4 * c + k];
#pragma unroll
                            for (int i = 0; i < G::kItem; i++)
                                acc[i] += t * window[4 * c * Cn + i + k * Cn];
                        }
                };
                const int c0 = taps.hFirst / 4, c1 = taps.hLast / 4;   // the chunks of the first and last tap
                const bool headPartial = taps.hFirst % 4 != 0, tailPartial = taps.hLast % 4 != 3;
                if (c0 == c1 && (headPartial || tailPartial))
                    partialChunk(c0);
                else
                {
                    if (headPartial)
                        partialChunk(c0);
                    const int first = headPartial ? c0 + 1 : c0, last = tailPartial ? c1 - 1 : c1;
                    if (last >= first)
                        ringChunks(first, last - first + 1);
                    if (tailPartial)
                        partialChunk(c1);
                }
            }
            else
                ringChunks(0, taps.nh / 4);
            storeItem<Depth, G::kItem, W>(p, item.y, item.e0, acc);
        }
        __syncthreads();
    }
}

template <int Depth, int Cn>
__global__ void __launch_bounds__(kThreads, 2)
fusedLargeTile(const BlurCall p, const __grid_constant__ LargeTapsOf<Depth> taps)
{
    fusedLargeTileBody<Depth, Cn>(p, taps);
}

// A batch: blockIdx.z is the image; the grid covers the largest image of the launch.
template <int Depth, int Cn>
__global__ void __launch_bounds__(kThreads, 2) fusedLargeTileBatch(const BatchItem* __restrict__ items)
{
    const BatchItem& item = items[blockIdx.z];
    const BlurCall p = item.call;
    const LargeTapsOf<Depth>& taps = *static_cast<const LargeTapsOf<Depth>*>(item.taps);
    // The grid covers the widest image of the launch.
    if (static_cast<long long>(blockIdx.x) * (kCols - 2 * LargeGeometry<Depth, Cn>::halo(taps.r)) >= static_cast<long long>(p.width) * Cn)
        return;
    fusedLargeTileBody<Depth, Cn>(p, taps);
}

template <int Depth, int Cn>
void launchLargeBatch(const BatchLaunch& b, cudaStream_t stream)
{
    typedef LargeGeometry<Depth, Cn> G;
    const size_t smem = tile::sharedBytes<Tile>(Depth);
    static std::atomic<uint64_t> optedIn{0};
    launchStrips(FusedLargePath::kBatchKernel, fusedLargeTileBatch<Depth, Cn>, optedIn, kThreads, smem, b, G::kRows, 1, stream);
}

template <int Depth, int Cn>
void launchLarge(const BlurCall& p, const typename LargeTapsFor<typename DepthPolicy<Depth>::Work>::type& taps,
                 const PathChoice& choice, cudaStream_t stream)
{
    typedef LargeGeometry<Depth, Cn> G;
    typedef typename DepthPolicy<Depth>::Work W;
    const size_t smem = static_cast<size_t>(G::kRows) * G::kStride * sizeof(W);
    static_assert(static_cast<size_t>(G::kRows) * G::kStride * sizeof(W) == tile::sharedBytes<Tile>(Depth),
                  "the path choice's shared memory is this kernel's");
    static std::atomic<uint64_t> optedIn{0};
    // The kernel computes the same tile from taps.r (G::halo); the path's rule made sure it holds an item.
    const int tile = choice.tileOutputs;
    const long long across = (static_cast<long long>(p.width) * Cn + tile - 1) / tile;
    launchStrips(FusedLargePath::kKernel, fusedLargeTile<Depth, Cn>, optedIn, kThreads, smem, across, p.height, G::kRows, stream, p, taps);
}

} // namespace

template <int Depth>
CUDAIMAGE_HOST_DEVICE void FusedLargePath::prepareBatch(const KernelTaps& k, unsigned char* out)
{
    typedef typename DepthPolicy<Depth>::Work W;
    FusedLargeTapsT<W>& w = *reinterpret_cast<FusedLargeTapsT<W>*>(out);
    const int R = k.radius();
    w.r = R;
    w.rx = k.x.radius();
    w.ry = k.y.radius();
    w.lead = tile::windowLead(R, k.channels);
    w.nh = tile::roundUp(w.lead + 2 * R + 1, 4);
    w.hFirst = w.lead + R - w.rx;
    w.hLast = w.lead + R + w.rx;
    packCentred<Depth>(k.x, TapUse::FusedHorizontal, R, w.h + w.lead);
    packCentred<Depth>(k.y, TapUse::FusedVertical, R, w.v + FusedLargeTapsT<W>::kRows);
    if constexpr (Depth == CV_16U)
        packCentred<CV_16U>(k.y, TapUse::FusedVertical, R, w.vi + FusedLargeTapsT<W>::kRows);
    if constexpr (Depth == CV_8U)
    {
        uint32_t ty[2 * FusedLargeTapsT<W>::kMaxR + 1];
        if (!centredByteTaps(k.y, R, ty))
            halveIdentityColumn(ty, 2 * R + 1, w.h, w.nh);
        for (int row = 0; row < FusedLargeTapsT<W>::kWordRows; row++)
            for (int ph = 0; ph < 4; ph++)
                w.vw[row][ph] = dp4aTapWord(ty, 2 * R + 1, row - 3, ph);
    }
}

FusedLargeTaps FusedLargePath::prepare(const FilterTaps& f)
{
    FusedLargeTaps t;
    const KernelTaps k = spansOf(f);
    const int R = k.radius();
    if (R < Tile::kMinR || R > Tile::kMaxR || f.channels < 1 || f.channels > 4)
        return t; // no taps for this radius: the path declines it
    forDepth(f.depth, [&](auto d) {
        constexpr int Depth = decltype(d)::value;
        prepareBatch<Depth>(k, reinterpret_cast<unsigned char*>(&WorkTaps<typename DepthPolicy<Depth>::Work>::pick(t.f, t.d)));
    });
    return t;
}

void FusedLargePath::launch(const BlurCall& p, const FusedLargeTaps& taps, const PathChoice& choice, cudaStream_t stream)
{
    forDepth(p.depth, [&](auto depth) {
        constexpr int Depth = decltype(depth)::value;
        const auto& t = WorkTaps<typename DepthPolicy<Depth>::Work>::pick(taps.f, taps.d);
        forChannels(p.channels, [&](auto cn) { launchLarge<Depth, decltype(cn)::value>(p, t, choice, stream); });
    });
}

BatchTapsLayout FusedLargePath::batchLayout(int depth, int, int, int)
{
    BatchTapsLayout l;
    forDepth(depth, [&](auto d) { l.bytes = static_cast<int>(sizeof(BatchTapsOf<decltype(d)::value>)); });
    return l;
}

void FusedLargePath::prepareBatchOnHost(const KernelTaps& k, unsigned char* out)
{
    forDepth(k.depth, [&](auto d) { prepareBatch<decltype(d)::value>(k, out); });
}

void FusedLargePath::makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream)
{
    gaussian::makeBatchTaps<FusedLargePath>(jobs, stream);
}

void FusedLargePath::launchBatch(const BatchLaunch& b, cudaStream_t stream)
{
    forDepth(b.depth, [&](auto depth) {
        constexpr int Depth = decltype(depth)::value;
        forChannels(b.channels, [&](auto cn) { launchLargeBatch<Depth, decltype(cn)::value>(b, stream); });
    });
}

}}} // namespace cv::cuda::gaussian
