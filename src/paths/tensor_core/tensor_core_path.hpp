// Kernel path "tensor-core": 8U, 1 to 4 channels, byte taps, radius 1..128; both passes as exact
// byte products on the tensor cores, one kernel, no scratch image (tensor_core_kernel.cu). This
// header is the path's unit: its tile, its rule (accepts), its taps (prepare) and its launcher.
// The rule and the taps are header-only host code, so tests check them without a GPU.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_PATH_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_PATH_HPP

#include "../../gaussian_path_query.hpp"
#include "../../tensor_core_unit.hpp"
#include "tensor_core_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The tile: strips of 32 rows; a row of the tile holds `pixels(cn)` pixels, and the vertical sums
 * go to shared memory channel-planar (channel c's pixels side by side, segment c of the plane row),
 * so the horizontal pass of every channel count multiplies one-channel Toeplitz matrices: no zero
 * taps between channels. The halo is counted in pixels, (r + 4) rounded up so that every block's
 * loads and stores start on a 32-byte sector (8 pixels for 4 channels, 16 for 2, 32 for 1 and 3).
 *   1 channel: 1024 columns, 256 threads, two blocks per SM;
 *   2-4 channels: 2048 elements (2 and 4 channels) or 1536 (3: 512 pixels, a multiple of 32 and of
 *   the 32-column warp groups of both passes), 512 threads, one block per SM: at sigma 30 (radius
 *   90) 4 channels keep 320 of 512 pixels after the halos (1.6 vertical sums per output) where the
 *   interleaved 1024-element tile kept 64 of 256 (4.0).
 * Shared memory (bytes): the vertical sums as two byte planes [kRows][planeStride(cn)] with 64 bytes
 * of slack behind, the output bytes [kRows][outStride(cn)] (interleaved again), and the A fragments
 * of the horizontal and the vertical Toeplitz tap matrices, 512 bytes each. */
struct TensorCoreTile
{
    static constexpr const char* kLabel = "tensor-core";
    /** Strips of 32 rows (two 16-row MMA halves); radius 1..128, the size of its tap parameter.
     * The grid holds blocksPerSM(cn) blocks per SM that take tiles in turn (the tap matrices are
     * built once per block). */
    static constexpr int kRows = 32;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 128;
    static constexpr int threads(int cn) { return cn == 1 ? 256 : 512; }
    static constexpr int blocksPerSM(int cn) { return cn == 1 ? 2 : 1; }
    /** Elements of a tile row (vertical pass: all of them, 32 per warp group). */
    CUDAIMAGE_HOST_DEVICE static constexpr int cols(int cn) { return cn == 1 ? 1024 : cn == 3 ? 1536 : 2048; }
    CUDAIMAGE_HOST_DEVICE static constexpr int pixels(int cn) { return cols(cn) / cn; }
    /** Plane rows: 8 words mod 32 banks (swizzled, tensor_core_imma.cuh). */
    CUDAIMAGE_HOST_DEVICE static constexpr int planeStride(int cn) { return tile::roundUp(cols(cn), 128) + 32; }
    /** Pixels by which a halo is rounded: 32-byte sectors at every tile start. */
    CUDAIMAGE_HOST_DEVICE static constexpr int haloAlign(int cn) { return cn == 4 ? 8 : cn == 2 ? 16 : 32; }
    /** Halo (pixels) on each side: the window's lead and radius, rounded up. */
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return tile::roundUp(r + 4, haloAlign(cn)); }
    /** Output elements of a tile row: its pixels after both halos, times the channels (a multiple
     * of 16 pixels and of 32 bytes). */
    CUDAIMAGE_HOST_DEVICE static constexpr int outputs(int r, int cn) { return (pixels(cn) - 2 * halo(r, cn)) * cn; }
    /** Output rows: 4 words mod 32 banks, room for the most outputs any radius leaves. */
    CUDAIMAGE_HOST_DEVICE static constexpr int outStride(int cn) { return tile::roundUp(outputs(kMinR, cn) - 16, 128) + 16; }
    /** Horizontal taps with the lead (one channel's: the planes are planar): lead + 2r + 1. */
    CUDAIMAGE_HOST_DEVICE static constexpr int taps(int r) { return tile::windowLead(r, 1) + 2 * r + 1; }
    /** 32-pixel K chunks of the horizontal pass: the window of 16 outputs, 16 + taps - 1. */
    CUDAIMAGE_HOST_DEVICE static constexpr int hChunks(int r) { return (16 + taps(r) - 1 + 31) / 32; }
    /** 32-row K chunks of the vertical pass per 16-row half: its 16 + 2r source rows. The halves
     * start 16 rows apart, so a strip reads 32 vChunks + 16 source rows in 16-row blocks, each block
     * shared by both halves. */
    CUDAIMAGE_HOST_DEVICE static constexpr int vChunks(int r) { return (16 + 2 * r + 31) / 32; }
    /** Source rows a strip reads (the last block's rows past 32 + 2r meet zero taps). */
    CUDAIMAGE_HOST_DEVICE static constexpr int sourceRows(int r) { return 32 * vChunks(r) + 16; }
    CUDAIMAGE_HOST_DEVICE static constexpr int fixedBytes(int cn) { return 2 * kRows * planeStride(cn) + 64 + kRows * outStride(cn); }
    static constexpr size_t sharedBytes(int r, int cn)
    {
        return static_cast<size_t>(fixedBytes(cn) + (hChunks(r) + vChunks(r)) * 512);
    }
    /** The most any radius asks for with cn channels (the kernel opts in for this once). */
    static constexpr size_t maxSharedBytes(int cn) { return sharedBytes(kMaxR, cn); }
};
static_assert(TensorCoreTile::cols(1) % 32 == 0 && TensorCoreTile::cols(2) % 32 == 0 && TensorCoreTile::cols(3) % 96 == 0 &&
              TensorCoreTile::cols(4) % 32 == 0, "tiles stay multiples of a warp's 32 columns and of whole pixels");
static_assert(TensorCoreTile::outputs(TensorCoreTile::kMaxR, 4) >= 16 && TensorCoreTile::outputs(TensorCoreTile::kMaxR, 3) >= 16 &&
              TensorCoreTile::outputs(TensorCoreTile::kMaxR, 2) >= 16 && TensorCoreTile::outputs(TensorCoreTile::kMaxR, 1) >= 16,
              "every radius has a tile for every channel count");
static_assert(TensorCoreTile::planeStride(3) % 128 == 32 && TensorCoreTile::outStride(4) % 128 == 16 &&
              TensorCoreTile::outStride(4) >= TensorCoreTile::outputs(TensorCoreTile::kMinR, 4), "conflict-free strides");

/** The taps, a __grid_constant__ kernel parameter: both directions as the CPU's 8-bit fixed-point
 * taps (bytes), centred on the common radius r = max(rx, ry) and zero-padded. */
struct TensorTaps8U
{
    static constexpr int kMaxR = TensorCoreTile::kMaxR;
    bool valid = false;   //!< 8U, 1 to 4 channels, 1 <= r <= kMaxR, every tap a byte
    int r = 0;
    int channels = 0;
    int lead = 0;     //!< zeros in front of h: r + lead is a multiple of 4 (tile::windowLead of one channel: the planes are planar)
    int nh = 0;       //!< taps in h: lead + 2r + 1
    int hChunks = 0;  //!< 32-pixel K chunks of the horizontal pass (TensorCoreTile::hChunks)
    int vChunks = 0;  //!< 32-row K chunks of each 16-row half of the vertical pass (TensorCoreTile::vChunks)
    uint8_t h[2 * kMaxR + 4] = {};   //!< horizontal: h[lead + r + k] = tap k (k = -r..r)
    uint8_t v[2 * kMaxR + 1] = {};   //!< vertical: v[r + k] = tap k
};

/** Whether the kernel's code for the current device was compiled for sm_80 or later (its MMAs need
 * it; a build whose CUDA_ARCH_BIN includes 7.5 compiles it as a stub, which the driver may also JIT
 * for a newer GPU without code of its own). Queried once per device (TensorCorePath::deviceFacts). */
bool tensorCoreCodeRuns();

struct TensorCorePath : TensorCoreUnit<tensorCoreTuning, tensorCoreCodeRuns>, TensorCoreBatchTaps<TensorCorePath, CV_8U>
{
    static constexpr const char* kName = "tensor-core";
    static constexpr const char* kKernel = "gaussianTensor8U";   //!< its (first) kernel, as launches name it
    static constexpr const char* kBatchKernel = "gaussianTensor8UBatch";
    typedef TensorCoreTile Tile;
    typedef TensorTaps8U Taps;

    /** 8U, 8-bit taps and results, where the device holds the kernel's largest tile for the
     * channel count (one channel 108 KiB, three 152 KiB: sm_80 and sm_90; two and four 204 KiB:
     * sm_90; none on sm_75/86/89) and the kernel's code for it is for sm_80 or later; from the
     * radius where it measured faster (the device's tuning row) unless the switch says `all`. Every
     * radius 1..128 keeps a tile after its halos (static_assert above). */
    static Verdict accepts(const PathQuery& q, const DeviceFacts& d, const Options& o)
    {
        if (const char* limit = singleKernelLimit(q))
            return Verdict::decline(limit);
        if (q.depth != CV_8U || q.floatOutput)
            return Verdict::decline("not 8U to 8U");
        if (o.mode == TensorCoreMode::Off)
            return Verdict::decline(kSwitchedOff);
        if (!q.horizontalTapsBelowOne || !q.verticalTapsBelowOne)
            return Verdict::decline("a tap above 255 (IMMA multiplies bytes)");
        return acceptRadius<Tile>(q, d, o, Tile::maxSharedBytes(q.channels), "radius below where the tensor cores measured faster",
                                  "8U, byte taps: tensor cores");
    }

    /** The taps (TensorCoreBatchTaps::prepare) into a default-constructed (zero) struct, on the host or on the device. */
    static CUDAIMAGE_HOST_DEVICE void prepareInto(const KernelTaps& f, Taps& t)
    {
        const int R = f.radius();
        if (f.depth != CV_8U || f.channels < 1 || f.channels > 4 || R < Tile::kMinR || R > Tile::kMaxR)
            return;
        t.r = R;
        t.channels = f.channels;
        t.lead = tile::windowLead(R, 1);
        t.nh = Tile::taps(R);
        t.hChunks = Tile::hChunks(R);
        t.vChunks = Tile::vChunks(R);
        uint32_t cx[2 * Tile::kMaxR + 1], cy[2 * Tile::kMaxR + 1];
        t.valid = centredByteTaps(f.x, R, cx);
        t.valid = centredByteTaps(f.y, R, cy) && t.valid;
        for (int m = 0; m <= 2 * R; m++)   // bytes: every tap checked above (or invalid)
        {
            t.h[t.lead + m] = static_cast<uint8_t>(cx[m]);
            t.v[m] = static_cast<uint8_t>(cy[m]);
        }
    }

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);

    /** Batched: the same kernel body over every image's tiles (src/cuda/persistent_tiles.cuh), any
     * radius in one launch (instance 0), each image with its own taps. */
    static constexpr bool kBatched = true;
    static constexpr const char* kTapMakerKernel = "gaussianTensor8UTaps";
    /** Builds the jobs' taps on the device (src/cuda/batch_tap_maker.cuh). */
    static void makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream);
    static void launchBatch(const BatchLaunch& b, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
