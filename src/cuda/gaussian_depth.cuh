// The one per-depth policy of the Gaussian blur: every rule that depends on the source depth (types,
// tap scale, accumulator, output rounding), for all three kernel paths, and the one run-time depth
// dispatch. CPU cv::GaussianBlur is the model (imgproc smooth.dispatch.cpp / smooth.simd.hpp):
//
//   depth  taps                     two-pass (src/paths/two_pass)           fused paths (src/paths/fused*)
//                                   row acc / scratch / column acc         Work: vertical, horizontal, rounding
//   8U     fixed point, 8 bits      uint32 / uint16 / uint32 (exact)       float: DP4A integer sums (< 2^16); taps
//                                                                          * 2^-16 (every partial sum exact); +0.5,
//                                                                          round down
//   16U    fixed point, 16 bits     uint32 / uint32 / uint64 (exact)       uint32 vertical sums (< 2^32, IMAD, exact);
//                                                                          double horizontal: sums < 2^48 exact; taps
//                                                                          * 2^-32; +0.5, round down
//   16S    the CPU's float taps     float / float / float                  float; round half to even, saturate
//   32F    float taps               float                                  float
//   64F    the CPU's double taps    double                                 double
//
// 8U and 16U are bit-exact on every path: the two directions' fixed points multiply to 2b fraction
// bits, every sum is an integer times 2^-2b below the working type's mantissa, and the one rounding
// at the end is the CPU's (s + 2^(2b-1)) >> 2b. The fused paths fold the 2^-2b into the horizontal
// taps (kFusedHorizontalScale) and the +2^(2b-1) into the sums' start value (workInit).
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_DEPTH_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_DEPTH_CUH

#include <cstdint>
#include <type_traits>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../gaussian_tile.hpp"
#include "../gaussian_taps.hpp"

namespace cv { namespace cuda { namespace gaussian {

template <int Depth> struct DepthPolicy;

// Shared by the fixed-point depths: integer taps, a working type that holds every sum exactly.
template <class SrcT, int Bits, class ScratchT, class ColAccT, class WorkT, class VertT, int Depth>
struct FixedPointPolicy
{
    typedef SrcT Src;
    static constexpr int kFractionBits = Bits;
    /** Integer pixels: no NaN or Inf, so a kernel may multiply zero padding taps into its sums. */
    static constexpr bool kRealSource = false;
    static constexpr int kElementBytes = tile::elementBytes(Depth);   //!< the width of a source element
    // two-pass
    typedef uint32_t Tap;
    typedef uint32_t RowAcc;
    typedef ScratchT Scratch;
    typedef ColAccT ColAcc;
    // fused
    typedef WorkT Work;
    /** The fused paths' vertical sums (8U: DP4A words instead). */
    typedef VertT VerticalAcc;
    static constexpr int kRows = tile::stripRows(Depth);
    static constexpr double kFusedHorizontalScale = 1.0 / double(uint64_t(1) << (2 * Bits));

    /** Two-pass result: (s + 2^(2b-1)) >> 2b, the CPU's one rounding. */
    __device__ static Src round(ColAcc s) { return static_cast<Src>((s + (ColAcc(1) << (2 * Bits - 1))) >> (2 * Bits)); }
    /** Two-pass CV_32F output: the sum before rounding, in the working type (exact for 8U). */
    __device__ static float toFloat(ColAcc s) { return static_cast<float>(static_cast<Work>(s) * static_cast<Work>(kFusedHorizontalScale)); }
    /** Fused sums start at the rounding half when the output is rounded, so the end is a round-down. */
    __device__ static Work workInit(bool floatOutput) { return floatOutput ? Work(0) : Work(0.5); }
};

template <> struct DepthPolicy<CV_8U> : FixedPointPolicy<uint8_t, 8, uint16_t, uint32_t, float, uint32_t, CV_8U>
{
    // acc = s * 2^-16 + 0.5 in [0, 256): the bits of 2^23 + floor(acc) by one round-down add; the
    // low byte is the result (storeItem packs four of them with PRMT).
    __device__ static uint32_t byteOf(float acc) { return __float_as_uint(__fadd_rd(acc, 8388608.0f)); }
    __device__ static Src fromWork(float acc) { return static_cast<Src>(byteOf(acc) & 0xff); }
};
// The vertical sums in 32-bit integers: a 16-bit pixel times taps that sum to 2^16 stays below 2^32,
// so IMAD on the integer units is exact, takes the 16-bit loads without a conversion, and leaves the
// FP64 units the horizontal pass only; each sum becomes a double (exactly) once, when it is stored.
template <> struct DepthPolicy<CV_16U> : FixedPointPolicy<uint16_t, 16, uint32_t, uint64_t, double, uint32_t, CV_16U>
{
    __device__ static Src fromWork(double acc) { return static_cast<Src>(__double2uint_rd(acc)); }
};

// The floating-point depths: the CPU's real taps, summed tap by tap from the first.
template <class SrcT, class WorkT, int Depth>
struct RealPolicy
{
    typedef SrcT Src;
    static constexpr int kFractionBits = 0;
    /** Real pixels: NaN and Inf reach exactly the CPU's outputs only if no padding tap (0 x NaN is
     * NaN) meets them, so kernels with padded taps skip those taps for these depths. */
    static constexpr bool kRealSource = true;
    static constexpr int kElementBytes = tile::elementBytes(Depth);   //!< the width of a source element
    typedef WorkT Tap;
    typedef WorkT RowAcc;
    typedef WorkT Scratch;
    typedef WorkT ColAcc;
    typedef WorkT Work;
    typedef WorkT VerticalAcc;
    static constexpr int kRows = tile::stripRows(Depth);
    static constexpr double kFusedHorizontalScale = 1.0;
    __device__ static float toFloat(WorkT s) { return static_cast<float>(s); }
    __device__ static WorkT workInit(bool) { return WorkT(0); }
};

template <> struct DepthPolicy<CV_16S> : RealPolicy<int16_t, float, CV_16S>
{
    // Round half to even and saturate, as the CPU's saturate_cast<short>(float).
    __device__ static Src round(float s) { return static_cast<Src>(::max(-32768, ::min(32767, __float2int_rn(s)))); }
    __device__ static Src fromWork(float s) { return round(s); }
};
template <> struct DepthPolicy<CV_32F> : RealPolicy<float, float, CV_32F>
{
    __device__ static Src round(float s) { return s; }
    __device__ static Src fromWork(float s) { return s; }
};
template <> struct DepthPolicy<CV_64F> : RealPolicy<double, double, CV_64F>
{
    __device__ static Src round(double s) { return s; }
    __device__ static Src fromWork(double s) { return s; }
};

template <int Depth>
constexpr bool agreesWithHost()
{
    typedef DepthPolicy<Depth> P;
    return P::kFractionBits == fixedPointBits(Depth) && sizeof(typename P::Src) == static_cast<size_t>(P::kElementBytes) &&
           sizeof(typename P::Work) == static_cast<size_t>(tile::workBytes(Depth)) &&
           (sizeof(typename P::Src) == 1 ? 16 : 8) == tile::itemOutputs(Depth);
}
static_assert(agreesWithHost<CV_8U>() && agreesWithHost<CV_16U>() && agreesWithHost<CV_16S>() &&
              agreesWithHost<CV_32F>() && agreesWithHost<CV_64F>(),
              "fraction bits, element and working types and item size per depth as gaussian_taps.hpp and gaussian_tile.hpp state them");

/** f(std::integral_constant<int, Depth>()) for a run-time depth: the one depth switch of every path. */
template <class F>
decltype(auto) forDepth(int depth, F&& f)
{
    switch (depth)
    {
    case CV_8U:  return f(std::integral_constant<int, CV_8U>());
    case CV_16U: return f(std::integral_constant<int, CV_16U>());
    case CV_16S: return f(std::integral_constant<int, CV_16S>());
    case CV_32F: return f(std::integral_constant<int, CV_32F>());
    case CV_64F: return f(std::integral_constant<int, CV_64F>());
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported depth %d", depth));
    }
}

}}} // namespace cv::cuda::gaussian

#endif
