// The one tap packer (host code): the taps of one direction (gaussian_taps.hpp) in the type and
// scale a kernel path reads them, by the depth's policy (gaussian_depth.cuh). Every path builds its
// tap arrays from these functions; they differ only in layout (offsets, zero padding).
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_TAP_PACKER_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_TAP_PACKER_CUH

#include <cstdint>
#include <type_traits>
#include <vector>
#include "../gaussian_path_query.hpp"
#include "gaussian_depth.cuh"

namespace cv { namespace cuda { namespace gaussian {

/** How a path uses one direction's taps. */
enum class TapUse
{
    Integer,          //!< as the CPU: fixed-point integers (8U/16U), float (16S/32F), double (64F)
    FusedVertical,    //!< the fused paths' first pass: as Integer, in the working type
    FusedHorizontal,  //!< the fused paths' second pass: fixed point also scaled by 2^-2b (gaussian_depth.cuh)
};

/** Tap m (0 .. 2r) of `t` as a path reads it, as a double (exact for every use: fixed-point taps
 * are small integers, scaled by a power of two). */
template <int Depth>
CUDAIMAGE_HOST_DEVICE double tapValue(const TapSpan& t, int m, TapUse use)
{
    typedef DepthPolicy<Depth> P;
    if constexpr (P::kFractionBits > 0)
        return static_cast<double>(t.fixed[m]) * (use == TapUse::FusedHorizontal ? P::kFusedHorizontalScale : 1.0);
    else if constexpr (std::is_same<typename P::Work, float>::value)
        return static_cast<double>(static_cast<float>(t.real[m]));  // 16S, 32F: the CPU filters with float taps
    else
        return t.real[m];
}

/** The 2r+1 taps of `t` centred at out[R] in type T (R >= r); out[R - r - 1] and below, and
 * out[R + r + 1] and above, are left as they are (the callers' arrays start zeroed). */
template <int Depth, class T>
CUDAIMAGE_HOST_DEVICE void packCentred(const TapSpan& t, TapUse use, int R, T* out)
{
    const int r = t.radius();
    for (int m = 0; m <= 2 * r; m++)
        out[R - r + m] = static_cast<T>(tapValue<Depth>(t, m, use));
}

/** An 8U column kernel whose centre tap takes all the weight (256: a sigma so small, or a 1-tap
 * kernel, that the other taps round to 0) does not fit the byte a DP4A product takes. It becomes
 * 128, and the `n` horizontal taps (float, fixed point * 2^-16) are doubled: each product and sum
 * of the kernels is then the same number, exactly (powers of 2), so the result is unchanged.
 * `columnTaps` holds `count` taps, each 0 or 256. */
CUDAIMAGE_HOST_DEVICE inline void halveIdentityColumn(uint32_t* columnTaps, int count, float* horizontal, int n)
{
    for (int k = 0; k < count; k++)
        columnTaps[k] /= 2;
    for (int k = 0; k < n; k++)
        horizontal[k] *= 2;
}

/** DP4A tap word q of phase ph: byte b is taps[4q + b - ph] (zero outside the `count` taps). */
CUDAIMAGE_HOST_DEVICE inline uint32_t dp4aTapWord(const uint32_t* taps, int count, int q, int ph)
{
    uint32_t w = 0;
    for (int b = 0; b < 4; b++)
    {
        const int k = 4 * q + b - ph;
        if (k >= 0 && k < count)
            w |= (taps[k] & 0xffu) << (8 * b);
    }
    return w;
}

}}} // namespace cv::cuda::gaussian

#endif
