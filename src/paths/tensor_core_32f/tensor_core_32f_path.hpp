// Kernel path "tensor-core-32f": 32F, one channel, radius 1..128; both passes on the tensor cores
// as error-compensated products (TF32 with BF16 corrections), one kernel, no scratch image
// (tensor_core_32f_kernel.cu). This header is the path's unit: its tile, its rule (accepts), its
// taps (prepare) and its launcher. The rule and the taps are header-only host code, so tests check
// them without a GPU.
//
// The arithmetic: a float x is hi + lo, hi = x rounded to TF32 (11 significant bits), lo the rest
// (exact in FP32, below 2^-11 |x|); a product a b is hi(a) hi(b) (exact in the TF32 MMA) plus the
// corrections hi(a) lo(b) + lo(a) hi(b), each below 2^-11 of the product, in one BF16 MMA of twice
// the K (8 significant bits per factor: each correction within 2^-8 of itself, 2^-19 of the
// product); lo(a) lo(b) (below 2^-22) is dropped. Two MMAs per 8 taps instead of 3xTF32's three,
// summed in FP32: against CPU cv::GaussianBlur's float sums the results differ by a few units of
// FP32 rounding (the tests' bound is 1e-5 of the image's largest magnitude). Zero taps pad every
// Toeplitz matrix and 0 x Inf is NaN, so a tile whose vertical sums are not all finite is computed
// again with the CUDA cores, multiplying only the filter's own taps: NaN and Inf reach exactly the
// pixels the CPU gives them.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_32F_PATH_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_32F_PATH_HPP

#include "../../gaussian_path_query.hpp"
#include "tensor_core_32f_tuning.hpp"
#include "../../tensor_core_unit.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The tile: strips of 32 rows x 768 pixels, 256 threads, two blocks per SM. The halo (pixels) is
 * r + 7 rounded up to 16: the horizontal pass reads 8-pixel K chunks of four 8-output blocks at a
 * time, up to 6 pixels past an output's window, all inside the tile. Shared memory: the vertical
 * sums as float [kRows][kStride] and, per direction, three tap arrays of kTapSlots words (tap m at
 * [kTapBase + m], zeros around): the TF32 hi parts, and (hi, lo) of the taps at s and s + 4 as BF16
 * pairs. */
struct TensorCore32FTile
{
    static constexpr const char* kLabel = "tensor-core-32f";
    static constexpr int kThreads = 256;
    static constexpr int kBlocksPerSM = 2;
    static constexpr int blocksPerSM(int /*cn*/ = 1) { return kBlocksPerSM; }
    static constexpr int kCols = 768;     // pixels
    static constexpr int kRows = 32;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 128;
    /** floats per row of sums: 4 mod 32 banks (conflict-free 16-byte stores of two rows per
     * quarter warp and 4-byte fragment loads of 8 rows x 4 columns) */
    static constexpr int kStride = kCols + 4;
    static constexpr int kTapBase = 32;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int /*cn*/ = 1) { return tile::roundUp(r + 7, 16); }
    CUDAIMAGE_HOST_DEVICE static constexpr int outputs(int r, int /*cn*/ = 1) { return kCols - 2 * halo(r); }
    /** 8-row K chunks of one 16-row half's window (16 + 2r rows) */
    CUDAIMAGE_HOST_DEVICE static constexpr int vChunks(int r) { return (16 + 2 * r + 7) / 8; }
    /** 8-pixel K chunks of one 8-output block's window (8 + 2r pixels) */
    CUDAIMAGE_HOST_DEVICE static constexpr int hChunks(int r) { return (8 + 2 * r + 7) / 8; }
    /** Source rows a strip reads: vChunks + 2 blocks of 8 (the second half starts 16 rows down). */
    CUDAIMAGE_HOST_DEVICE static constexpr int sourceRows(int r) { return 8 * (vChunks(r) + 2); }
    /** Tap slots: indices kTapBase + 8 q + (-7..7) for chunk entries q = -3 .. vChunks + 1. */
    static constexpr int kTapSlots = kTapBase + 8 * ((16 + 2 * kMaxR + 7) / 8) + 16;   // 8 vChunks(kMaxR)
    static constexpr size_t sharedBytes(int /*r*/ = 0, int /*cn*/ = 1)
    {
        return static_cast<size_t>(kRows * kStride + 6 * kTapSlots) * sizeof(float);
    }
    static constexpr size_t maxSharedBytes() { return sharedBytes(); }
};
static_assert(TensorCore32FTile::kStride % 32 == 4, "conflict-free stride");
static_assert(TensorCore32FTile::outputs(TensorCore32FTile::kMaxR) >= 32 && TensorCore32FTile::outputs(1) % 32 == 0,
              "every radius has a tile of whole 32-output tasks");
// (the last block's entry: slot kTapBase + 8 (vChunks + 1) + 4 + 3; the first: kTapBase - 24 - 7)
static_assert(TensorCore32FTile::kTapBase + 8 * (TensorCore32FTile::vChunks(TensorCore32FTile::kMaxR) + 1) + 7 <
                  TensorCore32FTile::kTapSlots && TensorCore32FTile::kTapBase >= 31,
              "the tap arrays hold every chunk entry's window");

/** The taps, a __grid_constant__ kernel parameter: both directions as floats (the CPU's 32F
 * kernel), centred on the common radius r = max(rx, ry), zero beyond each direction's own radius. */
struct TensorTaps32F
{
    static constexpr int kMaxR = TensorCore32FTile::kMaxR;
    bool valid = false;   //!< 32F, one channel, 1 <= r <= kMaxR
    int r = 0;
    int rx = 0, ry = 0;   //!< the filter's radii (the exact recomputation multiplies only these taps)
    float h[2 * kMaxR + 1] = {}, v[2 * kMaxR + 1] = {};   //!< [r + k] = tap k
};

/** The kernel's code for the current device was compiled for sm_80 or later (as tensorCoreCodeRuns()). */
bool tensorCore32FCodeRuns();

struct TensorCore32FPath : TensorCoreUnit<tensorCore32FTuning, tensorCore32FCodeRuns>, TensorCoreBatchTaps<TensorCore32FPath, CV_32F>
{
    static constexpr const char* kName = "tensor-core-32f";
    static constexpr const char* kKernel = "gaussianTensor32F";   //!< its (first) kernel, as launches name it
    static constexpr const char* kBatchKernel = "gaussianTensor32FBatch";
    typedef TensorCore32FTile Tile;
    typedef TensorTaps32F Taps;

    /** 32F to 32F, one channel, radius within the tile's range and from the tuning row's minimum
     * unless the switch says `all`, the device holds the tile and the code is for sm_80 or later. */
    static Verdict accepts(const PathQuery& q, const DeviceFacts& d, const Options& o)
    {
        if (const char* limit = singleKernelLimit(q))
            return Verdict::decline(limit);
        if (q.depth != CV_32F)
            return Verdict::decline("not 32F");
        if (q.channels != 1)
            return Verdict::decline("32F tensor cores: one channel");
        if (o.mode == TensorCoreMode::Off)
            return Verdict::decline(kSwitchedOff);
        return acceptRadius<Tile>(q, d, o, Tile::maxSharedBytes(), "radius below where the 32F tensor cores measured faster",
                                  "32F, one channel: tensor cores (TF32 with BF16 corrections)");
    }

    /** The taps; not valid outside 32F, one channel, radius 1..kMaxR (accepts() then declines). */
    /** The taps (TensorCoreBatchTaps::prepare) into a default-constructed (zero) struct, on the host or on the device. */
    static CUDAIMAGE_HOST_DEVICE void prepareInto(const KernelTaps& f, Taps& t)
    {
        const int rx = f.x.radius(), ry = f.y.radius();
        const int R = f.radius();
        if (f.depth != CV_32F || f.channels != 1 || R < Tile::kMinR || R > Tile::kMaxR)
            return;
        t.r = R;
        t.rx = rx;
        t.ry = ry;
        for (int m = 0; m <= 2 * rx; m++)
            t.h[R - rx + m] = static_cast<float>(f.x.real[m]);
        for (int m = 0; m <= 2 * ry; m++)
            t.v[R - ry + m] = static_cast<float>(f.y.real[m]);
        t.valid = true;
    }

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);

    /** Batched: the same kernel body over every image's tiles (src/cuda/persistent_tiles.cuh), any
     * radius in one launch (instance 0), each image with its own taps. */
    static constexpr bool kBatched = true;
    static constexpr const char* kTapMakerKernel = "gaussianTensor32FTaps";
    /** Builds the jobs' taps on the device (src/cuda/batch_tap_maker.cuh). */
    static void makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream);
    static void launchBatch(const BatchLaunch& b, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
