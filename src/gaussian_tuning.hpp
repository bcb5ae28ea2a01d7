// Tuning of the Gaussian kernel paths, in one place, each number beside the measurement that set
// it (perf/NOTES.md holds the runs): the tile sizes the kernels are compiled with, and the
// per-architecture radius thresholds the path choice reads at run time.
//
// Tile sizes are compile-time constants of the kernels and the same on every architecture: a tile
// per architecture would need a kernel instance per tile and a measurement on each GPU, and none
// has shown a gain. The thresholds are per architecture; only sm_90 (H200) is measured: the other
// rows repeat its values and say so, until a run on that GPU sets them.
#ifndef CUDAIMAGE_GAUSSIAN_TUNING_HPP
#define CUDAIMAGE_GAUSSIAN_TUNING_HPP

namespace cv { namespace cuda { namespace gaussian { namespace tuning {

/** src/paths/fused: radius a template parameter, 128 threads x 4 elements, so that four blocks
 * share an SM and one block's loads overlap another's arithmetic. 8 radius instances per depth and
 * channel count: more grew the code past the instruction cache (H200, perf/NOTES.md section
 * 4.4). */
struct FusedTileSize
{
    static constexpr int kThreads = 128;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 8;
};

/** src/paths/fused_large: radius at run time, 256 threads x 4 elements: wide tiles, so that the
 * halo, which grows with the radius, stays a small part of the vertical work. Up to radius 128,
 * the size of its tap parameter. */
struct FusedLargeTileSize
{
    static constexpr int kThreads = 256;
    static constexpr int kCols = 4 * kThreads;
    static constexpr int kMinR = FusedTileSize::kMaxR + 1;
    static constexpr int kMaxR = 128;
};

/** src/paths/tensor_core: 8U on the tensor cores, 256 threads, strips of 32 rows (two 16-row MMA
 * halves) x 1024 columns, two resident blocks per SM that take tiles in turn (the tap matrices are
 * built once per block; H200: 264 blocks on 132 SMs). */
struct TensorCoreTileSize
{
    static constexpr int kThreads = 256;
    static constexpr int kCols = 1024;
    static constexpr int kRows = 32;
    static constexpr int kMinR = 1;
    static constexpr int kMaxR = 128;
    static constexpr int kBlocksPerSM = 2;
};

/** Run-time thresholds of one architecture. */
struct ArchTuning
{
    int computeCapability;          //!< 10 * major + minor; 0: the default row
    const char* gpus;
    /** Smallest radius at which an 8U filter with byte taps takes the tensor-core path instead of
     * the CUDA-core fused kernels, for 1 channel and for 2-4 channels: where it measured at least
     * as fast. */
    int tensorCoreMinRadius1;
    int tensorCoreMinRadiusN;
    const char* basis;              //!< where the numbers come from
};

/** sm_90, measured on the H200 (16384^2 and 3840x2160, sweep of gaussian_bench --sweep, perf/NOTES.md
 * sections 7.2, 7.3): one channel from radius 6 (0.411 against 0.414 ms at 16384^2, 41 against
 * 49 us at 4K; 0.53 against 1.01 ms at radius 9, 1.75 against 7.42 ms at 128; at radius 1..5 the
 * small CUDA-core kernel is faster, 0.28-0.39 against ~0.41 ms). 2-4 channels from radius 9, where
 * it replaces the large-radius CUDA-core kernel (8UC3/8UC4 at sigma 5, 10, 30 faster); at radius 6
 * (sigma 2) it measured slower (8UC3 1.32 against ~1.05 ms, 8UC4 1.81 against ~1.36 ms).
 * sm_86/89 never take the path (their 99 KiB of shared memory per block hold no tensor-core tile);
 * their rows only complete the table. */
constexpr ArchTuning kArchTuning[] = {
    {90, "H100, H200", 6, 9, "measured on the H200"},
    {89, "L4, L40S, RTX 40xx", 6, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {86, "A10, RTX 30xx", 6, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {80, "A100", 6, 9, "sm_90's values, not measured on an A100"},
};
constexpr ArchTuning kDefaultTuning = {0, "any other", 6, 9, "sm_90's values, not measured there"};

/** The row for a device of compute capability `cc` (10 * major + minor). */
constexpr const ArchTuning& forArch(int cc)
{
    for (const ArchTuning& t : kArchTuning)
        if (t.computeCapability == cc)
            return t;
    return kDefaultTuning;
}

/** The tensor-core threshold of a row for a channel count. */
constexpr int tensorCoreMinRadius(const ArchTuning& t, int channels)
{
    return channels == 1 ? t.tensorCoreMinRadius1 : t.tensorCoreMinRadiusN;
}

}}}} // namespace cv::cuda::gaussian::tuning

#endif
