// Kernel path "tensor-core-16u": 16U, one channel, taps below 1.0 (16 fraction bits: two bytes),
// radius 1..128; both passes as exact byte products on the tensor cores, one kernel, no scratch
// image (tensor_core_16u_kernel.cu). This header is the path's unit: its tile, its rule (accepts),
// its taps (prepare) and its launcher. The rule and the taps are header-only host code, so tests
// check them without a GPU.
//
// The CPU's 16U arithmetic is integer: 16-bit pixels times 16-fraction-bit taps, the vertical sums
// below 2^32, times taps again below 2^48, one rounding (s + 2^31) >> 32. Split into bytes (pixel
// p = 256 p1 + p0, tap t = 256 t1 + t0, vertical sum V = sum of 2^(8 j) V_j): the vertical pass
// is four u8 x u8 products per tap (t1 p1, t1 p0 + t0 p1, t0 p0 at weights 2^16, 2^8, 1, each sum of
// s32 products exact, recombined modulo 2^32 where the true V lies), the horizontal pass eight
// (V_j t_i at weight 2^(8 (i + j)), five s32 sums recombined in 64 bits): every product and sum is an
// integer below its type's range, so the result is the CPU's, bit for bit.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_16U_PATH_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_16U_PATH_HPP

#include "../../gaussian_path_query.hpp"
#include "tensor_core_16u_tuning.hpp"
#include "../../tensor_core_unit.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The tile: strips of 32 rows x 1024 pixels, 512 threads, one block per SM. The halo (pixels) is
 * (r + 4) rounded up to 16 pixels (32 bytes: every block's loads and stores start on a sector).
 * Shared memory (bytes): the vertical sums as uint32 [kRows][kSumStride] (horizontal windows read
 * up to 26 pixels past the tile: zero taps), 64 bytes of slack, the 16-bit outputs
 * [kRows][kOutStride], and the A fragments: the high and the low tap bytes of each horizontal and
 * each vertical Toeplitz matrix, 512 bytes each. */
struct TensorCore16UTile
{
    static constexpr const char* kLabel = "tensor-core-16u";
    static constexpr int kThreads = 512;
    static constexpr int kBlocksPerSM = 1;
    static constexpr int blocksPerSM(int /*cn*/ = 1) { return kBlocksPerSM; }
    static constexpr int kCols = 1024;    // pixels (one channel)
    static constexpr int kRows = 32;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 128;
    /** uint32 sums: 1072 (1024 + 48) per row, 16 words mod 32 banks apart (conflict-free 16-byte
     * loads and stores of two rows per quarter warp). */
    static constexpr int kSumStride = kCols + 48;
    static constexpr int kOutStride = 2064;   // bytes: 4 words mod 32 banks, >= 2 x 992 outputs
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int /*cn*/ = 1) { return tile::roundUp(r + 4, 16); }
    CUDAIMAGE_HOST_DEVICE static constexpr int outputs(int r, int /*cn*/ = 1) { return kCols - 2 * halo(r); }
    CUDAIMAGE_HOST_DEVICE static constexpr int taps(int r) { return tile::windowLead(r, 1) + 2 * r + 1; }
    CUDAIMAGE_HOST_DEVICE static constexpr int hChunks(int r) { return (16 + taps(r) - 1 + 31) / 32; }
    CUDAIMAGE_HOST_DEVICE static constexpr int vChunks(int r) { return (16 + 2 * r + 31) / 32; }
    CUDAIMAGE_HOST_DEVICE static constexpr int sourceRows(int r) { return 32 * vChunks(r) + 16; }
    static constexpr int kFixedBytes = kRows * kSumStride * 4 + 64 + kRows * kOutStride;
    static constexpr size_t sharedBytes(int r, int /*cn*/ = 1) { return static_cast<size_t>(kFixedBytes + 2 * (hChunks(r) + vChunks(r)) * 512); }
    static constexpr size_t maxSharedBytes() { return sharedBytes(kMaxR); }
};
static_assert(TensorCore16UTile::kSumStride * 4 % 128 == 64 && TensorCore16UTile::kOutStride % 128 == 16 &&
              TensorCore16UTile::kOutStride >= 2 * TensorCore16UTile::outputs(TensorCore16UTile::kMinR),
              "conflict-free strides that hold every radius's outputs");
static_assert(TensorCore16UTile::outputs(TensorCore16UTile::kMaxR) >= 16, "every radius has a tile");

/** The taps, a __grid_constant__ kernel parameter: both directions as the CPU's 16-bit fixed-point
 * taps, split into high and low bytes, centred on the common radius r = max(rx, ry), zero-padded. */
struct TensorTaps16U
{
    static constexpr int kMaxR = TensorCore16UTile::kMaxR;
    bool valid = false;   //!< 16U, one channel, 1 <= r <= kMaxR, every tap below 2^16
    int r = 0;
    int lead = 0;     //!< zeros in front of h: r + lead is a multiple of 4 (16-byte window loads)
    int nh = 0;       //!< taps in h: lead + 2r + 1
    int hChunks = 0;  //!< 32-pixel K chunks of the horizontal pass
    int vChunks = 0;  //!< 32-row K chunks of each 16-row half of the vertical pass
    uint8_t hHi[2 * kMaxR + 4] = {}, hLo[2 * kMaxR + 4] = {};   //!< horizontal: [lead + r + k] = tap k's bytes
    uint8_t vHi[2 * kMaxR + 1] = {}, vLo[2 * kMaxR + 1] = {};   //!< vertical: [r + k]
};

/** The kernel's code for the current device was compiled for sm_80 or later (as tensorCoreCodeRuns()). */
bool tensorCore16UCodeRuns();

struct TensorCore16UPath : TensorCoreUnit<tensorCore16UTuning, tensorCore16UCodeRuns>, TensorCoreBatchTaps<TensorCore16UPath, CV_16U>
{
    static constexpr const char* kName = "tensor-core-16u";
    static constexpr const char* kKernel = "gaussianTensor16U";   //!< its (first) kernel, as launches name it
    static constexpr const char* kBatchKernel = "gaussianTensor16UBatch";
    typedef TensorCore16UTile Tile;
    typedef TensorTaps16U Taps;

    /** 16U to 16U, one channel, every tap below 1.0 (a tap of 2^16, all the weight on one, does not
     * split into two bytes), radius within the tile's range and from the tuning row's minimum
     * unless the switch says `all`, the device holds the tile (218 KiB: sm_90) and the code is for
     * sm_80 or later. */
    static Verdict accepts(const PathQuery& q, const DeviceFacts& d, const Options& o)
    {
        if (const char* limit = singleKernelLimit(q))
            return Verdict::decline(limit);
        if (q.depth != CV_16U || q.floatOutput)
            return Verdict::decline("not 16U to 16U");
        if (q.channels != 1)
            return Verdict::decline("16U tensor cores: one channel");
        if (o.mode == TensorCoreMode::Off)
            return Verdict::decline(kSwitchedOff);
        if (!q.horizontalTapsBelowOne || !q.verticalTapsBelowOne)
            return Verdict::decline("a tap of 1.0 (2^16 does not split into two bytes)");
        return acceptRadius<Tile>(q, d, o, Tile::maxSharedBytes(), "radius below where the 16U tensor cores measured faster",
                                  "16U, one channel: tensor cores");
    }

    /** The taps (TensorCoreBatchTaps::prepare) into a default-constructed (zero) struct, on the host or on the device. */
    static CUDAIMAGE_HOST_DEVICE void prepareInto(const KernelTaps& f, Taps& t)
    {
        const int R = f.radius();
        if (f.depth != CV_16U || f.channels != 1 || R < Tile::kMinR || R > Tile::kMaxR)
            return;
        t.r = R;
        t.lead = tile::windowLead(R, 1);
        t.nh = Tile::taps(R);
        t.hChunks = Tile::hChunks(R);
        t.vChunks = Tile::vChunks(R);
        bool fits = true;
        auto split = [&](const TapSpan& d, uint8_t* hi, uint8_t* lo) {
            const int r = d.radius();
            for (int m = 0; m <= 2 * r; m++)
            {
                fits = fits && d.fixed[m] < 65536u;
                hi[R - r + m] = static_cast<uint8_t>(d.fixed[m] >> 8);
                lo[R - r + m] = static_cast<uint8_t>(d.fixed[m]);
            }
        };
        split(f.x, t.hHi + t.lead, t.hLo + t.lead);
        split(f.y, t.vHi, t.vLo);
        t.valid = fits;
    }

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);

    /** Batched: the same kernel body over every image's tiles (src/cuda/persistent_tiles.cuh), any
     * radius in one launch (instance 0), each image with its own taps. */
    static constexpr bool kBatched = true;
    static constexpr const char* kTapMakerKernel = "gaussianTensor16UTaps";
    /** Builds the jobs' taps on the device (src/cuda/batch_tap_maker.cuh). */
    static void makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream);
    static void launchBatch(const BatchLaunch& b, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
