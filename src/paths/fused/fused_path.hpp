// Kernel path "fused": radius 1..8 as a template parameter, every depth and channel count; one
// kernel, no scratch image, taps as kernel parameters (fused_kernel.cu). This header is the path's
// unit: its tile, its rule (accepts), its taps and its launcher.
#ifndef CUDAIMAGE_PATHS_FUSED_PATH_HPP
#define CUDAIMAGE_PATHS_FUSED_PATH_HPP

#include <type_traits>
#include "../../gaussian_path_query.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The tile: 128 threads x 4 elements, so that four blocks share an SM and one block's loads
 * overlap another's arithmetic. Radius 1..8 as a template parameter: 8 radius instances per depth
 * and channel count; more grew the code past the instruction cache (H200,
 * doc/design-record.md#fused-alternatives). The halo is the radius, rounded up to 8 elements (tiles stay 16-byte aligned). */
struct FusedTile
{
    static constexpr const char* kLabel = "fused";
    static constexpr int kThreads = 128;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 8;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return tile::roundUp(r * cn, 8); }

    /** 8U strips: 16 rows (tile::stripRows), or 8 where 16-row strips give the GPU fewer than
     * kShortStripWaves x 5 blocks per SM (a small image, or a small batch): half the shared memory
     * and vertical sums per block (80 registers: 6 blocks per SM instead of 5) and half the chain
     * of dependent work per block, for (8 + 2R) / 8 rather than (16 + 2R) / 16 source rows per
     * output row. Other depths: tile::stripRows. */
    static constexpr int kRows8U = 16;
    static constexpr int kShortRows = 8;
    static constexpr int kShortStripWaves = 2;
    /** The strip rows of a launch of `blocks16` blocks in 16-row strips on `multiprocessors` SMs;
     * `forced` (8 or 16, fusedRowsOverride()) wins. */
    static int stripRows(int depth, long long blocks16, int multiprocessors, int forced)
    {
        if (depth != CV_8U)
            return tile::stripRows(depth);
        if (forced == kShortRows || forced == kRows8U)
            return forced;
        return blocks16 < static_cast<long long>(kShortStripWaves) * 5 * std::max(multiprocessors, 1) ? kShortRows : kRows8U;
    }
    /** A batch's images up to this many rows take 8-row strips however many blocks the batch
     * has: measured faster for every batch of such images (H100, doc/design-record.md#strip-rows: back to back
     * -1 to -11 % for 256 x 224², 64 x 512², 1024 x 64², variable sizes 32..640), the shorter
     * chain per block outweighing the extra halo rows. 640: the tallest image measured. */
    static constexpr int kShortStripBatchRows = 640;
    /** The strip rows of a batched launch: as stripRows, and 8 for images of at most
     * kShortStripBatchRows rows (`maxHeight`: the launch's tallest image). */
    static int batchStripRows(int depth, long long blocks16, int maxHeight, int multiprocessors, int forced)
    {
        const int rows = stripRows(depth, blocks16, multiprocessors, forced);
        return depth == CV_8U && forced == 0 && maxHeight <= kShortStripBatchRows ? kShortRows : rows;
    }
};

/** A narrow image's tile in a batch: one warp of FusedTile's block, 32 threads x 4 elements, with
 * FusedTile's halo. An image whose row fits it (fits) gives each of the block's four warps a strip
 * of its own, where a whole block per strip would leave most of its threads past the row waiting at
 * its barriers (a 64-pixel gray image: 24 of 128 threads load). The warps share the block's shared
 * rows, a quarter each, and synchronise by warp. */
struct FusedWarpTile
{
    static constexpr int kThreads = 32;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kTeams = FusedTile::kThreads / kThreads;   //!< warps (strips at once) per block
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return FusedTile::halo(r, cn); }
    /** Whether a row of `elements` (width x channels) at radius r is one warp's tile. */
    CUDAIMAGE_HOST_DEVICE static constexpr bool fits(long long elements, int r, int cn) { return elements <= kCols - 2 * halo(r, cn); }
};
static_assert(FusedWarpTile::kTeams * FusedWarpTile::kCols == FusedTile::kCols, "the warps' tiles share the block's shared rows");
static_assert(FusedWarpTile::kCols - 2 * FusedWarpTile::halo(FusedTile::kMaxR, 4) >= 16, "every radius has a warp tile for 4 channels");

/** OPENCV_CUDAIMAGE_FUSED_ROWS, read at filter creation into its options: 8 or 16 force the 8U
 * strips of the fused kernels (for comparisons; results are the same); unset or anything else:
 * FusedTile::stripRows. */
inline int fusedRowsOverride()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_FUSED_ROWS");
    const int n = v ? std::atoi(v) : 0;
    return n == FusedTile::kShortRows || n == FusedTile::kRows8U ? n : 0;
}

/** OPENCV_CUDAIMAGE_FUSED_WARP_TILES, read at filter creation into its options: 1 gives a batch's
 * narrow launches warp tiles (FusedWarpTile); unset or anything else: a block per strip, as for
 * wide images (the same results). */
inline bool fusedWarpTiles()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_FUSED_WARP_TILES");
    return v && std::string(v) == "1";
}
static_assert(FusedTile::kCols % 16 == 0, "tiles stay multiples of 16 elements");
static_assert(FusedTile::kRows8U == tile::stripRows(CV_8U) && FusedTile::kShortRows % 4 == 0,
              "8U strips: the default, and a multiple of the DP4A row group");
static_assert(tile::tileOutputs<FusedTile>(FusedTile::kMaxR, 4) >= 16, "every radius has a tile for 4 channels");

/** Taps passed by value as kernel parameters: both directions zero-padded to the common radius
 * r = max(rx, ry). rx and ry bound the footprint: the float sources' kernels (32F, 64F) multiply no
 * padding tap into a sum, so that a NaN or an Inf reaches exactly the CPU's pixels (0 x NaN is NaN). */
struct FusedTapsF
{
    static constexpr int kMaxR = FusedTile::kMaxR;
    static constexpr int kWords = kMaxR / 2 + 1;
    int r = 0;
    float h[2 * kMaxR + 1] = {};  //!< horizontal; 8U: fixed-point taps * 2^-16
    float v[2 * kMaxR + 1] = {};  //!< vertical (FMA path)
    uint32_t vw[4][kWords] = {};  //!< 8U vertical DP4A words: vw[ph][q] byte b = tapY[4q + b - ph]
    int rx = 0, ry = 0;           //!< the filter's radii (r = max(rx, ry)); last: the others keep their offsets
};
struct FusedTapsD
{
    int r = 0;
    double h[2 * FusedTapsF::kMaxR + 1] = {}; //!< 16U: fixed-point taps * 2^-32; 64F: the CPU's taps
    double v[2 * FusedTapsF::kMaxR + 1] = {};
    uint32_t vi[2 * FusedTapsF::kMaxR + 1] = {};  //!< 16U: the vertical taps as integers (DepthPolicy::VerticalAcc)
    int rx = 0, ry = 0;           //!< the filter's radii (r = max(rx, ry)); last: the others keep their offsets
};
struct FusedTaps
{
    int r = 0;
    FusedTapsF f;         //!< 8U, 16S, 32F
    FusedTapsD d;         //!< 16U, 64F
};

struct FusedPath : PathUnit
{
    static constexpr const char* kName = "fused";
    static constexpr const char* kKernel = "fusedTile";   //!< its (first) kernel, as launches name it
    static constexpr const char* kBatchKernel = "fusedTileBatch";
    typedef FusedTile Tile;
    typedef FusedTaps Taps;

    /** The 8U strip rows, read at filter creation (fusedRowsOverride()); 0: FusedTile::stripRows.
     * Warp tiles for a batch's narrow images (fusedWarpTiles()). */
    struct Options
    {
        int stripRows = 0;
        bool warpTiles = false;
    };
    static Options options() { return Options{fusedRowsOverride(), fusedWarpTiles()}; }

    /** Radius kMinR..kMaxR (acceptCudaCoreTile); the tile takes 33,024 bytes of shared memory, below
     * the 48 KiB every GPU gives without opt-in, and always has room for an item. */
    static Verdict accepts(const PathQuery& q, const DeviceFacts&, const Options& o)
    {
        Verdict v = acceptCudaCoreTile<Tile>(q);
        v.forcedStripRows = o.stripRows;
        v.warpTiles = o.warpTiles;
        return v;
    }

    /** The taps for the filter's radius (r = 0 when no radius of the path fits). */
    static Taps prepare(const FilterTaps& f);

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);

    /** Batched: the same kernel body, blockIdx.z the image, call and taps read from device memory;
     * 8U and 16U dispatch the radius per block (one launch takes every radius). */
    static constexpr bool kBatched = true;
    static constexpr const char* kTapMakerKernel = "fusedTaps";
    /** The struct of one depth that the kernels read (the single-image kernel as a parameter, the
     * batched one from device memory). */
    template <int Depth>
    using BatchTapsOf = typename std::conditional<tile::worksInDouble(Depth), FusedTapsD, FusedTapsF>::type;
    /** Its layout and instance (8U, 16U: 0; else 2 r + 1 when a float source skips padding taps, 2 r otherwise). */
    static BatchTapsLayout batchLayout(int depth, int channels, int rx, int ry);
    /** The taps of kernel `k` (radius kMinR..kMaxR) into the zero-filled struct at `out`, on the
     * host (prepare) or on the device (makeBatchTaps). */
    template <int Depth>
    static CUDAIMAGE_HOST_DEVICE void prepareBatch(const KernelTaps& k, unsigned char* out);
    /** prepareBatch for k.depth, on the host. */
    static void prepareBatchOnHost(const KernelTaps& k, unsigned char* out);
    /** Builds the jobs' taps on the device (src/cuda/batch_tap_maker.cuh). */
    static void makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream);
    /** Enqueues one launch per 65,535 images of `b` (all of one instance) on `stream`. */
    static void launchBatch(const BatchLaunch& b, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
