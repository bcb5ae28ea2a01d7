// Kernel path "fused-large": radius 9..128 at run time, every depth and channel count; one kernel,
// no scratch image, taps as one __grid_constant__ parameter (fused_large_kernel.cu). This header is
// the path's unit: its tile, its rule (accepts), its taps and its launcher.
#ifndef CUDAIMAGE_PATHS_FUSED_LARGE_PATH_HPP
#define CUDAIMAGE_PATHS_FUSED_LARGE_PATH_HPP

#include <type_traits>
#include "../../gaussian_path_query.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The tile: 256 threads x 4 elements: wide tiles, so that the halo, which grows with the radius,
 * stays a small part of the vertical work. The radius is a run-time value, from the first radius
 * the fused kernel's instances leave (asserted where the list of paths is) up to 128, the size of
 * its tap parameter. The halo also covers the zero taps that pad the horizontal window to whole
 * groups of 4 (up to 3 in front, 3 behind): (r + 4) * cn. */
struct FusedLargeTile
{
    static constexpr const char* kLabel = "large-radius";
    static constexpr int kThreads = 256;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = 9;
    static constexpr int kMaxR = 128;
    CUDAIMAGE_HOST_DEVICE static constexpr int halo(int r, int cn) { return tile::roundUp((r + 4) * cn, 8); }
};
static_assert(FusedLargeTile::kCols % 16 == 0, "tiles stay multiples of 16 elements");

/** The taps, a __grid_constant__ kernel parameter read with run-time indices (uniform
 * constant-cache loads). */
template <class W>
struct FusedLargeTapsT
{
    static constexpr int kMinR = FusedLargeTile::kMinR;
    static constexpr int kMaxR = FusedLargeTile::kMaxR;
    static constexpr int kRows = 16;                           //!< most output rows per block (vertical tap ring)
    static constexpr int kWordRows = (2 * kMaxR + kRows + 3) / 4 + 4;
    int r = 0;     //!< radius (both directions; the shorter kernel is zero-padded)
    int lead = 0;  //!< zero taps in front of h so that the window start is 4-aligned for the channel count
    int nh = 0;    //!< taps in h: lead + 2r+1, rounded up to a multiple of 4 with zeros
    alignas(16) W h[2 * kMaxR + 8] = {};           //!< horizontal; 8U: fixed point * 2^-16, 16U: * 2^-32
    alignas(16) W v[kRows + 2 * kMaxR + 1 + kRows] = {}; //!< vertical (FMA path): v[kRows + k] = tap k, zeros around
    alignas(16) uint32_t vw[kWordRows][4] = {};    //!< 8U vertical DP4A words: vw[q + 3][ph] byte b = tapY[4q + b - ph]
    alignas(16) uint32_t vi[kRows + 2 * kMaxR + 1 + kRows] = {}; //!< 16U: v as integers (DepthPolicy::VerticalAcc)
    // Float sources (32F, 64F) multiply no padding tap (0 x NaN is NaN); last, so that the other
    // members keep their parameter offsets.
    int rx = 0, ry = 0;            //!< the filter's radii
    int hFirst = 0, hLast = 0;     //!< h[hFirst .. hLast]: the horizontal kernel's 2rx+1 taps
};
struct FusedLargeTaps
{
    FusedLargeTapsT<float> f;   //!< 8U, 16S, 32F
    FusedLargeTapsT<double> d;  //!< 16U, 64F
};

struct FusedLargePath : PathUnit
{
    static constexpr const char* kName = "fused-large";
    static constexpr const char* kKernel = "fusedLargeTile";   //!< its (first) kernel, as launches name it
    static constexpr const char* kBatchKernel = "fusedLargeTileBatch";
    typedef FusedLargeTile Tile;
    typedef FusedLargeTaps Taps;

    /** Radius kMinR..kMaxR (acceptCudaCoreTile). The halo grows with R * channels while the block
     * stays 1024 elements wide: for 4 channels the tile falls below one item after
     * lastRadiusWithTile() (122: 1024 - 2 * roundUp((R + 4) * 4, 8) < 16). That limit is validity
     * only: near it a block computes 1024 vertical columns for a few outputs, and where the
     * two-pass path gets faster has not been measured. The tile's 65,792 bytes of shared memory
     * exceed sm_75's 64 KiB opt-in limit and fit sm_80/86/89/90's. */
    static Verdict accepts(const PathQuery& q, const DeviceFacts&, const Options&) { return acceptCudaCoreTile<Tile>(q); }

    /** The taps for the filter's radius (r = 0 when no radius of the path fits). */
    static Taps prepare(const FilterTaps& f);

    /** Enqueues the kernel on `stream`. Not in place. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);

    /** Batched: the same kernel body, blockIdx.z the image, call and taps read from device memory. */
    static constexpr bool kBatched = true;
    static constexpr const char* kTapMakerKernel = "fusedLargeTaps";
    /** The struct of one depth that the kernels read. */
    template <int Depth>
    using BatchTapsOf = FusedLargeTapsT<typename std::conditional<tile::worksInDouble(Depth), double, float>::type>;
    /** Its layout; one instance (the radius is read at run time). */
    static BatchTapsLayout batchLayout(int depth, int channels, int rx, int ry);
    /** The taps of kernel `k` (radius kMinR..kMaxR, 1 to 4 channels) into the zero-filled struct at
     * `out`, on the host (prepare) or on the device (makeBatchTaps). */
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
