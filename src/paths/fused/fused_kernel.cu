// Fused Gaussian blur for radii up to FusedTile::kMaxR (sigma <= ~2.6 at 8U): one kernel, no scratch
// image, so device memory sees one read of the source (plus 2R halo rows per 16-row strip, from L2)
// and one write of the destination. Vertical pass first, from registers; horizontal pass second,
// from shared memory:
//
//   block = 128 threads = 512 consecutive elements (pixel channels) of a row, incl. the halo
//   1. vertical: each thread owns 4 elements (one aligned vector load per source row) and computes
//      kRows output rows at once, every tap fully unrolled (no ring, no moves); results go to
//      shared memory as Work (float or double);
//   2. horizontal: each thread takes items of kItem consecutive outputs of one row from shared
//      memory and stores them with one or more 16-byte stores.
//
// 8U arithmetic is the CPU's fixed point, exactly: vertical sums with DP4A (four byte products per
// instruction) on 4x4-transposed source bytes against phase-shifted tap words; the sum, below
// 2^16, comes out as the bits of the float 2^23 + sum, so one FADD converts it; horizontal in FP32
// with the taps scaled by 2^-16 (every partial sum is a multiple of 2^-16 below 256: exact); the
// final (s + 2^15) >> 16 is one round-down FADD against 2^23. 16U sums its columns in 32-bit
// integers (below 2^32: exact) and its rows in double (below 2^48: exact); 16S and 32F use float,
// 64F double: same order of taps as the two-pass path up to rounding.
//
// Not in place: a block reads rows other blocks write. Radius R = max(rx, ry) is a template
// parameter (1..8); the shorter direction's taps are zero-padded to 2R+1. A rectangular kernel on a
// float source (32F, 64F) runs an instance that skips the padding taps (Padded: |k - R| > rx or ry,
// one compare per tap, not per product), so that a NaN or an Inf reaches exactly the pixels the
// CPU's kernel covers; square kernels have no padding, and integer sources hold neither NaN nor Inf
// and multiply the zeros.
#include <cstdint>
#include <algorithm>
#include <type_traits>
#include <atomic>
#include <vector>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../../cuda_check.hpp"
#include "fused_path.hpp"
#include "../../cuda/border.hpp"
#include "../../cuda/gaussian_fused_common.cuh"
#include "../../cuda/batch_tap_maker.cuh"
#include "../../cuda/gaussian_tap_packer.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using namespace fused;

// 128 threads x 4 elements: small blocks, so that four of them share an SM and one block's loads
// overlap another's arithmetic (each block works in phases separated by barriers).
typedef FusedTile Tile;

template <class W> struct TapsFor;
template <> struct TapsFor<float>  { typedef FusedTapsF type; };
template <> struct TapsFor<double> { typedef FusedTapsD type; };
constexpr int kThreads = Tile::kThreads;
constexpr int kCols = Tile::kCols;   // vertical results per block row, halo included

// The threads that share one strip's shared rows: the block (FusedTile), or one of its warps
// (FusedWarpTile: a narrow image in a batch, each warp on a strip of its own).
struct BlockTeam
{
    typedef FusedTile Tile;
    static __device__ __forceinline__ int lane() { return threadIdx.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
struct WarpTeam
{
    typedef FusedWarpTile Tile;
    static __device__ __forceinline__ int lane() { return threadIdx.x % FusedWarpTile::kThreads; }
    static __device__ __forceinline__ void sync() { __syncwarp(); }
};

// Geometry of one (Depth, Cn, R, Rows) instance on a team's tile (fused_path.hpp, which the path's
// rule reads).
template <int Depth, int Cn, int R, int Rows = DepthPolicy<Depth>::kRows, class T = FusedTile>
struct Geometry
{
    static constexpr int kRows = Rows;
    static constexpr int kHalo = T::halo(R, Cn);            // elements each side (keeps tiles 16-byte aligned)
    static constexpr int kTile = tile::tileOutputs<T>(R, Cn); // output elements per block (warp)
    static constexpr int kItem = tile::itemOutputs(Depth); // outputs per item
    static constexpr int kWinPad = roundUp(R * Cn, 4);      // aligned window start before the item
    static constexpr int kWin = kItem + 2 * kWinPad;
    static constexpr int kStride = kCols + kPad;            // shared row stride (Work elements): the block's
    static_assert(kTile % kItem == 0 && kTile > 0, "tile");
};

// ---- the kernel ----------------------------------------------------------------------------------

template <int Depth> using TapsOf = typename TapsFor<typename DepthPolicy<Depth>::Work>::type;

// One team's tiles of one image: tile `tileX` across, strips firstStrip, firstStrip + stripStep, ...
// of kRows rows; `vert` its shared rows (the block's kStride apart). Inlined into the single-image
// kernel (call and taps are kernel parameters) and into the batched one (item blockIdx.z's, from
// device memory).
template <int Depth, int Cn, int R, bool Padded, int Rows, class Team = BlockTeam>
__device__ __forceinline__ void fusedTileBody(const BlurCall& p, const TapsOf<Depth>& taps, int tileX, int firstStrip, int stripStep,
                                              typename DepthPolicy<Depth>::Work* vert)
{
    typedef DepthPolicy<Depth> D;
    typedef typename D::Src Src;
    typedef typename D::Work W;
    typedef Geometry<Depth, Cn, R, Rows, typename Team::Tile> G;
    constexpr int kRows = G::kRows;
    static_assert(!Padded || D::kRealSource, "integer sources multiply the padding (see the header)");
    const int lane = Team::lane();

    const int elements = p.width * Cn;
    const int wholeElems = p.wholeWidth * Cn;
    const int tileE0 = tileX * G::kTile;                            // ROI element of the first output
    const int E = p.roiX * Cn + tileE0 - G::kHalo + 4 * lane;       // whole-image element of my column
    const bool vec = p.srcAligned4 && E >= 0 && E + 4 <= wholeElems;
    const EdgeColumns cols = edgeColumns(E, vec, Cn, p.wholeWidth, p.rowBorder);
    // Columns that no output of the tile reads (past the image's last item and its halo) are not
    // summed: in a narrow image's tile most threads would otherwise take the bordered loads for
    // nothing while the block waits for them at its barrier.
    const int needEnd = ::min(tileE0 + G::kTile, roundUp(elements, G::kItem)) + G::kHalo;
    const bool needed = tileE0 - G::kHalo + 4 * lane < needEnd;

    for (int y0 = firstStrip * kRows; y0 < p.height; y0 += stripStep * kRows)
    {
        // Input j (0 .. kRows + 2R - 1) is whole-image row firstRow + j; mapped (out of line) only
        // in strips that touch the top or bottom border.
        const int firstRow = p.roiY + y0 - R;
        const bool rowsInside = firstRow >= 0 && firstRow + kRows + 2 * R <= p.wholeHeight;

        // 1. vertical
        if (needed)
        {
            if constexpr (Depth == CV_8U)
            {
                constexpr int kGroups = (kRows + 2 * R + 3) / 4;
                // Every source word first (memory-level parallelism), then the arithmetic.
                uint32_t w[4 * kGroups];
                if (vec && rowsInside)
                {
                    const unsigned char* base = p.srcWhole + static_cast<ptrdiff_t>(firstRow) * static_cast<ptrdiff_t>(p.srcStep) + E;
    #pragma unroll
                    for (int j = 0; j < 4 * kGroups; j++)
                        w[j] = j < kRows + 2 * R ? __ldg(reinterpret_cast<const uint32_t*>(base + static_cast<ptrdiff_t>(j) * static_cast<ptrdiff_t>(p.srcStep))) : 0u;
                }
                else
                {
    #pragma unroll
                    for (int j = 0; j < 4 * kGroups; j++)
                        w[j] = j < kRows + 2 * R ? loadWord8U(rowAt(p, firstRow, rowsInside, j), E, vec, cols) : 0u;
                }
                uint32_t acc[kRows][4];
                fillAcc(acc, kDp4aBias);
                dp4aColumnSums<kRows, R>(w, taps.vw, acc);
                storeVertical<G::kStride>(acc, reinterpret_cast<float*>(vert), lane);
            }
            else
            {
                typedef typename D::VerticalAcc A;   // 16U: uint32 (exact), else W
                A acc[kRows][4];
                fillAcc(acc, A(0));
                // Row j's four elements into the sums of the output rows it meets (in order of j). The
                // taps are read by constant index from the parameter (16U: its integer copy).
                auto accumulate = [&](int j, const A (&x)[4]) {
    #pragma unroll
                    for (int v = 0; v < kRows; v++)
                        if (j - v >= 0 && j - v <= 2 * R && (!Padded || abs(j - v - R) <= taps.ry))
                        {
                            const A t = verticalTaps<A>(taps)[j - v];
    #pragma unroll
                            for (int c = 0; c < 4; c++)
                                acc[v][c] += t * x[c];
                        }
                };
                // 64F keeps the one loop: loads ahead of its double sums spill at the 128-register cap.
                if (D::kElementBytes < 8 && vec && rowsInside)
                {
                    // Straight-line vector loads (no edge call between them), so that the compiler
                    // issues them ahead of the arithmetic, as the 8U branch does explicitly.
                    const unsigned char* base = p.srcWhole + static_cast<ptrdiff_t>(firstRow) * static_cast<ptrdiff_t>(p.srcStep);
    #pragma unroll
                    for (int j = 0; j < kRows + 2 * R; j++)
                    {
                        A x[4];
                        load4Vec<Depth>(reinterpret_cast<const Src*>(base + static_cast<ptrdiff_t>(j) * static_cast<ptrdiff_t>(p.srcStep)), E, x);
                        accumulate(j, x);
                    }
                }
                else
                {
    #pragma unroll
                    for (int j = 0; j < kRows + 2 * R; j++)
                    {
                        A x[4];
                        load4<Depth>(rowAt(p, firstRow, rowsInside, j), E, vec, cols, x);
                        accumulate(j, x);
                    }
                }
                storeVertical<G::kStride>(acc, vert, lane);
            }
        }
        Team::sync();

        // 2. horizontal: item it = (chunk, row), rows fastest (StripItem).
        constexpr int kChunks = G::kTile / G::kItem;
        for (int it = lane; it < kChunks * kRows; it += Team::Tile::kThreads)
        {
            const StripItem item(it, kRows, y0, tileE0, G::kItem);
            if (!item.inside(p.height, elements))
                continue;
            const W* base = vert + item.v * G::kStride + G::kHalo + item.chunk * G::kItem - G::kWinPad;
            W win[G::kWin];
#pragma unroll
            for (int i = 0; i < G::kWin; i += 16 / static_cast<int>(sizeof(W)))
                loadVec(base + i, win + i);
            W acc[G::kItem];
            initItem<Depth>(acc, p.floatOutput);
#pragma unroll
            for (int k = 0; k <= 2 * R; k++)
                if (!Padded || abs(k - R) <= taps.rx)
#pragma unroll
                    for (int i = 0; i < G::kItem; i++)
                        acc[i] += taps.h[k] * win[G::kWinPad - R * Cn + i + k * Cn];
            storeItem<Depth, G::kItem, W>(p, item.y, item.e0, acc);
        }
        Team::sync();
    }
}

template <int Depth>
__device__ __forceinline__ typename DepthPolicy<Depth>::Work* sharedRows()
{
    extern __shared__ __align__(16) unsigned char smemBytes[];
    return reinterpret_cast<typename DepthPolicy<Depth>::Work*>(smemBytes);   // [kRows][kStride]
}

// Blocks per SM the register budget is set for: 4 (the 8U and 16U bodies fit 96 registers, 5 per
// SM, by themselves); 8U in 8-row strips 6 (80 registers: half the vertical sums).
constexpr bool shortStrip8U(int depth, int rows) { return depth == CV_8U && rows == FusedTile::kShortRows; }

template <int Depth, int Cn, int R, bool Padded, int Rows>
__global__ void __launch_bounds__(kThreads, shortStrip8U(Depth, Rows) ? 6 : 4) fusedTile(const BlurCall p, const TapsOf<Depth> taps)
{
    fusedTileBody<Depth, Cn, R, Padded, Rows>(p, taps, blockIdx.x, blockIdx.y, gridDim.y, sharedRows<Depth>());
}

// A batch: blockIdx.z is the image; the grid covers the largest image of the launch. A launch whose
// every image is narrow (narrowLaunch: its row fits a warp's tile, FusedWarpTile::fits) takes the
// Narrow instance, whose grid has a quarter of the strips: each warp of a block in column 0 takes
// its own strips, blockIdx.y * 4 + warp, ...; the other instance gives each block one strip at a
// time, as a single image's kernel (the two are apart so that neither carries the other's body in
// its registers: together, the 8U 8-row kernel spilled, ptxas sm_90). 8U and 16U
// dispatch the radius per block (R = 0): one launch takes every radius, so a batch of random sigmas
// is one launch rather than one per radius, each ending in a partly empty wave; their bodies
// together fit 96 registers (5 blocks per SM, as their single instances). 16S, 32F and 64F keep one
// instance per radius: their bodies together spill (ptxas, sm_90: up to 1.5 KB per thread at 64F).
constexpr bool radiusPerBlock(int depth) { return depth == CV_8U || depth == CV_16U; }

template <int Depth, int Cn, int R, bool Padded, int Rows, bool Narrow>
__global__ void __launch_bounds__(kThreads, shortStrip8U(Depth, Rows) ? 6 : radiusPerBlock(Depth) ? 5 : 4)
fusedTileBatch(const BatchItem* __restrict__ items)
{
    const BatchItem& item = items[blockIdx.z];
    const BlurCall p = item.call;
    const TapsOf<Depth>& taps = *static_cast<const TapsOf<Depth>*>(item.taps);
    auto body = [&](auto radius) {
        constexpr int Rb = decltype(radius)::value;
        const long long elements = static_cast<long long>(p.width) * Cn;
        if constexpr (Narrow)
        {
            // Every image fits (narrowLaunch, from the launch's widest row and largest radius; the
            // plan's tests check both): one warp tile across, column 0.
            constexpr int kTeams = FusedWarpTile::kTeams;
            const int warp = threadIdx.x / FusedWarpTile::kThreads;
            if (blockIdx.x == 0 && FusedWarpTile::fits(elements, Rb, Cn))
                fusedTileBody<Depth, Cn, Rb, Padded, Rows, WarpTeam>(p, taps, 0, blockIdx.y * kTeams + warp, gridDim.y * kTeams,
                                                                     sharedRows<Depth>() + warp * FusedWarpTile::kCols);
        }
        else if (static_cast<long long>(blockIdx.x) * Geometry<Depth, Cn, Rb>::kTile < elements)
            fusedTileBody<Depth, Cn, Rb, Padded, Rows>(p, taps, blockIdx.x, blockIdx.y, gridDim.y, sharedRows<Depth>());
    };
    if constexpr (R > 0)
        body(std::integral_constant<int, R>());
    else
        switch (taps.r)
        {
        case 1: body(std::integral_constant<int, 1>()); break;
        case 2: body(std::integral_constant<int, 2>()); break;
        case 3: body(std::integral_constant<int, 3>()); break;
        case 4: body(std::integral_constant<int, 4>()); break;
        case 5: body(std::integral_constant<int, 5>()); break;
        case 6: body(std::integral_constant<int, 6>()); break;
        case 7: body(std::integral_constant<int, 7>()); break;
        case 8: body(std::integral_constant<int, 8>()); break;
        default: break;   // the host gives the path only radii 1..8
        }
}

template <int Depth, int Cn, int R, bool Padded, int Rows>
void launchInstanceRows(const BlurCall& p, const typename TapsFor<typename DepthPolicy<Depth>::Work>::type& taps, cudaStream_t stream)
{
    typedef Geometry<Depth, Cn, R, Rows> G;
    typedef typename DepthPolicy<Depth>::Work W;
    const size_t smem = static_cast<size_t>(G::kRows) * G::kStride * sizeof(W);
    static_assert(static_cast<size_t>(Rows) * G::kStride * sizeof(W) <= tile::sharedBytes<Tile>(Depth),
                  "the path choice's shared memory bounds this kernel's");
    static std::atomic<uint64_t> optedIn{0};
    const long long across = (static_cast<long long>(p.width) * Cn + G::kTile - 1) / G::kTile;
    launchStrips(FusedPath::kKernel, fusedTile<Depth, Cn, R, Padded, Rows>, optedIn, kThreads, smem, across, p.height, G::kRows,
                 stream, p, taps);
}

// 8U takes 8-row strips where 16-row ones leave the GPU short of blocks (FusedTile::stripRows).
template <int Depth, int Cn, int R, bool Padded>
void launchInstance(const BlurCall& p, const typename TapsFor<typename DepthPolicy<Depth>::Work>::type& taps,
                    const PathChoice& choice, cudaStream_t stream)
{
    const int multiprocessors = choice.multiprocessors, forcedRows = choice.forcedStripRows;
    if constexpr (Depth == CV_8U)
    {
        const long long across = (static_cast<long long>(p.width) * Cn + Geometry<Depth, Cn, R>::kTile - 1) / Geometry<Depth, Cn, R>::kTile;
        if (FusedTile::stripRows(Depth, across * ((p.height + FusedTile::kRows8U - 1) / FusedTile::kRows8U), multiprocessors,
                                 forcedRows) == FusedTile::kShortRows)
            return launchInstanceRows<Depth, Cn, R, Padded, FusedTile::kShortRows>(p, taps, stream);
    }
    launchInstanceRows<Depth, Cn, R, Padded, DepthPolicy<Depth>::kRows>(p, taps, stream);
}

// Every image of the launch narrow at the launch's largest radius (fits only grows narrower with
// the radius): the launch takes warp tiles, each block four strips at once.
inline bool narrowLaunch(const BatchLaunch& b, int cn) { return b.warpTiles && FusedWarpTile::fits(b.maxRowElements, b.maxRadius, cn); }

template <int Depth, int Cn, int R, bool Padded, int Rows>
void launchBatchRows(const BatchLaunch& b, cudaStream_t stream)
{
    const size_t smem = static_cast<size_t>(Rows) * Geometry<Depth, Cn, 1, Rows>::kStride * sizeof(typename DepthPolicy<Depth>::Work);
    if (narrowLaunch(b, Cn))
    {
        static std::atomic<uint64_t> optedIn{0};
        return launchStrips(FusedPath::kBatchKernel, fusedTileBatch<Depth, Cn, R, Padded, Rows, true>, optedIn, kThreads, smem, b, Rows,
                            FusedWarpTile::kTeams, stream);
    }
    static std::atomic<uint64_t> optedIn{0};
    launchStrips(FusedPath::kBatchKernel, fusedTileBatch<Depth, Cn, R, Padded, Rows, false>, optedIn, kThreads, smem, b, Rows, 1, stream);
}

template <int Depth, int Cn, int R, bool Padded>
void launchBatchInstance(const BatchLaunch& b, cudaStream_t stream)
{
    if constexpr (Depth == CV_8U)
    {
        const long long blocks16 = static_cast<long long>(b.blocksAcross) * ((b.maxHeight + FusedTile::kRows8U - 1) / FusedTile::kRows8U) * b.count;
        if (FusedTile::batchStripRows(Depth, blocks16, b.maxHeight, b.multiprocessors, b.forcedStripRows) == FusedTile::kShortRows)
            return launchBatchRows<Depth, Cn, R, Padded, FusedTile::kShortRows>(b, stream);
    }
    launchBatchRows<Depth, Cn, R, Padded, DepthPolicy<Depth>::kRows>(b, stream);
}

// A rectangular kernel on a float source takes the instance that skips its padding taps.
template <int Depth, int Cn>
void launchR(const BlurCall& p, const typename TapsFor<typename DepthPolicy<Depth>::Work>::type& taps, const PathChoice& choice,
             cudaStream_t stream)
{
    forRadius<1, FusedTapsF::kMaxR>(taps.r, [&](auto radius) {
        constexpr int R = decltype(radius)::value;
        if constexpr (DepthPolicy<Depth>::kRealSource)
            if (taps.rx != R || taps.ry != R)
                return launchInstance<Depth, Cn, R, true>(p, taps, choice, stream);
        launchInstance<Depth, Cn, R, false>(p, taps, choice, stream);
    });
}

// The batch's instance: 0 for 8U and 16U (every radius), else 2 r + padded (BatchTaps).
template <int Depth, int Cn>
void launchBatchR(const BatchLaunch& b, cudaStream_t stream)
{
    if constexpr (radiusPerBlock(Depth))
        launchBatchInstance<Depth, Cn, 0, false>(b, stream);
    else
    {
        const bool padded = (b.instance & 1) != 0;
        forRadius<1, FusedTapsF::kMaxR>(b.instance >> 1, [&](auto radius) {
            constexpr int R = decltype(radius)::value;
            if constexpr (DepthPolicy<Depth>::kRealSource)
                if (padded)
                    return launchBatchInstance<Depth, Cn, R, true>(b, stream);
            launchBatchInstance<Depth, Cn, R, false>(b, stream);
        });
    }
}

} // namespace

template <int Depth>
CUDAIMAGE_HOST_DEVICE void FusedPath::prepareBatch(const KernelTaps& k, unsigned char* out)
{
    BatchTapsOf<Depth>& w = *reinterpret_cast<BatchTapsOf<Depth>*>(out);
    const int R = k.radius();
    w.r = R;
    w.rx = k.x.radius();
    w.ry = k.y.radius();
    packCentred<Depth>(k.x, TapUse::FusedHorizontal, R, w.h);
    packCentred<Depth>(k.y, TapUse::FusedVertical, R, w.v);
    if constexpr (Depth == CV_16U)
        packCentred<CV_16U>(k.y, TapUse::FusedVertical, R, w.vi);
    if constexpr (Depth == CV_8U)
    {
        // Vertical sums by DP4A: words vw[ph][q], byte b = tapY[4q + b - ph] (centred, zero outside).
        constexpr int kMaxTaps = 2 * Tile::kMaxR + 1;
        uint32_t ty[kMaxTaps];
        if (!centredByteTaps(k.y, R, ty))
            halveIdentityColumn(ty, 2 * R + 1, w.h, 2 * R + 1);
        for (int ph = 0; ph < 4; ph++)
            for (int q = 0; q < FusedTapsF::kWords; q++)
                w.vw[ph][q] = dp4aTapWord(ty, 2 * R + 1, q, ph);
    }
}

FusedTaps FusedPath::prepare(const FilterTaps& f)
{
    FusedTaps t;
    const KernelTaps k = spansOf(f);
    const int R = k.radius();
    if (R < Tile::kMinR || R > Tile::kMaxR)
        return t; // no taps for this radius: the path declines it
    t.r = R;
    forDepth(f.depth, [&](auto d) {
        constexpr int Depth = decltype(d)::value;
        prepareBatch<Depth>(k, reinterpret_cast<unsigned char*>(&WorkTaps<typename DepthPolicy<Depth>::Work>::pick(t.f, t.d)));
    });
    return t;
}

void FusedPath::launch(const BlurCall& p, const FusedTaps& taps, const PathChoice& choice, cudaStream_t stream)
{
    forDepth(p.depth, [&](auto depth) {
        constexpr int Depth = decltype(depth)::value;
        const auto& t = WorkTaps<typename DepthPolicy<Depth>::Work>::pick(taps.f, taps.d);
        forChannels(p.channels, [&](auto cn) { launchR<Depth, decltype(cn)::value>(p, t, choice, stream); });
    });
}

BatchTapsLayout FusedPath::batchLayout(int depth, int, int rx, int ry)
{
    BatchTapsLayout l;
    forDepth(depth, [&](auto d) {
        constexpr int Depth = decltype(d)::value;
        const int r = rx > ry ? rx : ry;
        const bool padded = DepthPolicy<Depth>::kRealSource && (rx != r || ry != r);
        l.instance = radiusPerBlock(Depth) ? 0 : 2 * r + (padded ? 1 : 0);   // launchBatchR
        l.bytes = static_cast<int>(sizeof(BatchTapsOf<Depth>));
    });
    return l;
}

void FusedPath::prepareBatchOnHost(const KernelTaps& k, unsigned char* out)
{
    forDepth(k.depth, [&](auto d) { prepareBatch<decltype(d)::value>(k, out); });
}

void FusedPath::makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream) { gaussian::makeBatchTaps<FusedPath>(jobs, stream); }

void FusedPath::launchBatch(const BatchLaunch& b, cudaStream_t stream)
{
    forDepth(b.depth, [&](auto depth) {
        constexpr int Depth = decltype(depth)::value;
        forChannels(b.channels, [&](auto cn) { launchBatchR<Depth, decltype(cn)::value>(b, stream); });
    });
}

}}} // namespace cv::cuda::gaussian
