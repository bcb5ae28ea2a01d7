// What the host side of the Gaussian blur hands to its CUDA launchers (src/cuda/).
#ifndef CUDAIMAGE_GAUSSIAN_LAUNCH_HPP
#define CUDAIMAGE_GAUSSIAN_LAUNCH_HPP

#include <cstddef>
#include <cstdint>
#include <vector>
#include <cuda_runtime_api.h>
#include "gaussian_geometry.hpp"
#include "gaussian_plan.hpp"
#include "gaussian_taps.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** A separable pass plan. The source is described by its whole image (for sub-matrices: the
 * parent, so real pixels outside the ROI are used) and the ROI's offset in it.
 *
 * Pass 1 (rows) filters, for each j in [0, rows + 2*ry), whole-image row
 * mapRow(roiY - ry + j) horizontally into scratch row j (a zero row where the vertical border is
 * constant). Pass 2 (columns) filters scratch rows [y, y + 2*ry] into output row y, so it has no
 * border logic and works in place (the source is fully read before the destination is written). */
struct SeparablePlan
{
    int depth = 0;          //!< source depth (CV_8U, CV_16U, CV_16S, CV_32F, CV_64F)
    int channels = 1;
    bool floatOutput = false; //!< destination is CV_32F (unrounded) rather than the source depth

    const unsigned char* srcWhole = nullptr; //!< pixel (0,0) of the whole source image
    size_t srcStep = 0;
    int wholeWidth = 0, wholeHeight = 0;
    int roiX = 0, roiY = 0, width = 0, height = 0;

    unsigned char* dst = nullptr;
    size_t dstStep = 0;
    bool dstAligned4 = false; //!< dst and dstStep are multiples of 4 output elements (vector stores)
    bool dstAligned16 = false; //!< dst and dstStep are multiples of 16 bytes (fused path's item stores)
    bool srcAligned4 = false;  //!< srcWhole, srcStep and roiX*channels allow 4-element vector loads

    unsigned char* scratch = nullptr;  //!< (height + 2*ry) rows of width*channels work elements (set by runSeparable)
    size_t scratchStep = 0;

    const void* tapsX = nullptr; int rx = 0; //!< 2*rx+1 taps on the device (uint32 fixed or float/double; set by runSeparable)
    const void* tapsY = nullptr; int ry = 0;
    int rowBorder = 0, columnBorder = 0;     //!< cv::BorderTypes without BORDER_ISOLATED

};

/** Bytes of one scratch element for a source depth (the pass-1 result type). */
size_t scratchElemSize(int depth);

/** The two-pass path's taps as the host holds them: x, y and a one-tap kernel, each in the type the
 * kernels read (uint32 fixed point for 8U/16U, float for 16S/32F, double for 64F), at 16-byte
 * aligned offsets of one block of bytes, which each call copies into its own device memory. */
struct SeparableTaps
{
    std::vector<unsigned char> bytes;
    size_t x = 0, y = 0, unit = 0;   //!< offsets in `bytes`
};
SeparableTaps makeSeparableTaps(int depth, const Taps1D& x, const Taps1D& y);

/** Enqueues the two passes on `stream`; never synchronises the host or the device, and allocates
 * nothing that outlives the call: the taps and the scratch image live in one stream-ordered
 * allocation of the device's scratch pool (cudaMallocFromPoolAsync before, cudaFreeAsync after,
 * both on `stream`), so the call can be captured in a CUDA graph. Any radius, and in place (the
 * source is fully read by pass 1 before pass 2 writes). `unitX`/`unitY`: a one-tap kernel in that
 * direction (a single column/row not filtered across; plan.rx/ry are then 0). Throws cv::Exception
 * on allocation and launch errors. */
void runSeparable(SeparablePlan plan, const SeparableTaps& taps, bool unitX, bool unitY, cudaStream_t stream);

/** Taps of the fused path (src/cuda/gaussian_fused.cu), passed by value as kernel parameters:
 * both directions zero-padded to the common radius r = max(rx, ry). */
struct FusedTapsF
{
    static constexpr int kMaxR = geometry::SmallTile::kMaxR;
    static constexpr int kWords = kMaxR / 2 + 1;
    int r = 0;
    float h[2 * kMaxR + 1] = {};  //!< horizontal; 8U: fixed-point taps * 2^-16
    float v[2 * kMaxR + 1] = {};  //!< vertical (FMA path)
    uint32_t vw[4][kWords] = {};  //!< 8U vertical DP4A words: vw[ph][q] byte b = tapY[4q + b - ph]
};
struct FusedTapsD
{
    int r = 0;
    double h[2 * FusedTapsF::kMaxR + 1] = {}; //!< 16U: fixed-point taps * 2^-32; 64F: the CPU's taps
    double v[2 * FusedTapsF::kMaxR + 1] = {};
};
struct FusedTaps
{
    bool valid = false;   //!< the fused path can run these taps
    int r = 0;
    FusedTapsF f;         //!< 8U, 16S, 32F
    FusedTapsD d;         //!< 16U, 64F
};

/** Taps of the large-radius fused path (src/cuda/gaussian_fused_large.cu), a __grid_constant__
 * kernel parameter read with run-time indices (uniform constant-cache loads). */
template <class W>
struct FusedLargeTapsT
{
    static constexpr int kMinR = geometry::LargeTile::kMinR;
    static constexpr int kMaxR = geometry::LargeTile::kMaxR;
    static constexpr int kRows = 16;                           //!< most output rows per block (vertical tap ring)
    static constexpr int kWordRows = (2 * kMaxR + kRows + 3) / 4 + 4;
    int r = 0;     //!< radius (both directions; the shorter kernel is zero-padded)
    int lead = 0;  //!< zero taps in front of h so that the window start is 4-aligned for the channel count
    int nh = 0;    //!< taps in h: lead + 2r+1, rounded up to a multiple of 4 with zeros
    alignas(16) W h[2 * kMaxR + 8] = {};           //!< horizontal; 8U: fixed point * 2^-16, 16U: * 2^-32
    alignas(16) W v[kRows + 2 * kMaxR + 1 + kRows] = {}; //!< vertical (FMA path): v[kRows + k] = tap k, zeros around
    alignas(16) uint32_t vw[kWordRows][4] = {};    //!< 8U vertical DP4A words: vw[q + 3][ph] byte b = tapY[4q + b - ph]
};
struct FusedLargeTaps
{
    bool valid = false;
    FusedLargeTapsT<float> f;   //!< 8U, 16S, 32F
    FusedLargeTapsT<double> d;  //!< 16U, 64F
};

/** The large-radius path's taps (kMinR <= max(rx, ry) <= kMaxR) for a depth and channel count;
 * not valid outside that range or (8U) when a vertical tap does not fit a byte. */
FusedLargeTaps makeFusedLargeTaps(int depth, int channels, const Taps1D& x, const Taps1D& y);

/** Large-radius fused path: one kernel, run-time radius, no scratch image. Not in place. `choice`
 * is choosePath()'s (Path::FusedLarge): its tile and shared memory. */
void runFusedLarge(const SeparablePlan& plan, const FusedLargeTaps& taps, const PathChoice& choice, cudaStream_t stream);

/** Taps of the 8U tensor-core path (src/cuda/gaussian_tensor8u.cu), a __grid_constant__ kernel
 * parameter: both directions as the CPU's 8-bit fixed-point taps (bytes), centred on the common
 * radius r = max(rx, ry) and zero-padded. Built by makeTensorTaps8U (gaussian_tensor_taps.hpp). */
struct TensorTaps8U
{
    static constexpr int kMaxR = geometry::TensorTile::kMaxR;
    bool valid = false;   //!< 8U, 1 to 4 channels, 1 <= r <= kMaxR, every tap a byte, switch on
    bool anyRadius = false; //!< the switch says `all`: the path from radius 1, not only where it measured faster
    int r = 0;
    int channels = 0;
    int lead = 0;     //!< zeros in front of h: (r + lead) * channels is a multiple of 4 (TensorTile::lead)
    int nh = 0;       //!< taps in h: lead + 2r + 1
    int hChunks = 0;  //!< 32-element K chunks of the horizontal pass (TensorTile::hChunks)
    int vChunks = 0;  //!< 32-row K chunks of each 16-row half of the vertical pass (TensorTile::vChunks)
    uint8_t h[2 * kMaxR + 4] = {};   //!< horizontal: h[lead + r + k] = tap k (k = -r..r)
    uint8_t v[2 * kMaxR + 1] = {};   //!< vertical: v[r + k] = tap k
};

/** Whether the tensor-core kernel's code for the current device was compiled for sm_80 or later
 * (its MMAs need it; a build whose CUDA_ARCH_BIN includes 7.5 compiles it as a stub, which the
 * driver may also JIT for a newer GPU without code of its own). Queried once per device by the
 * path choice's caller. */
bool tensorCoreCodeRuns();

/** The 8U tensor-core path: one kernel, both passes as exact integer products on the tensor cores,
 * no scratch image. Not in place. `choice` is choosePath()'s (Path::TensorCore). */
void runTensor8U(const SeparablePlan& plan, const TensorTaps8U& taps, const PathChoice& choice, cudaStream_t stream);

/** The fused path's taps for a depth from both directions' taps (gaussian_taps.hpp). Not valid
 * when max(rx, ry) is 0 or above kMaxR, or (8U) a vertical tap does not fit a byte; choosePath()
 * (gaussian_plan.hpp) rules those cases out by the same tests. */
FusedTaps makeFusedTaps(int depth, const Taps1D& x, const Taps1D& y);

/** Fused path: one kernel, no scratch image, taps as kernel parameters. Not in place. `choice` is
 * choosePath()'s (Path::Fused). */
void runFused(const SeparablePlan& plan, const FusedTaps& taps, const PathChoice& choice, cudaStream_t stream);

}}} // namespace cv::cuda::gaussian

#endif
