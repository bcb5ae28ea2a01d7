// The arithmetic of the Gaussian blur per source depth (types and rounding), as CPU
// cv::GaussianBlur does it:
//   8U : taps with 8 fraction bits; horizontal sums exact (< 2^16, kept as ushort), vertical sums
//        exact (< 2^24), one rounding: (s + 2^15) >> 16. Bit-exact.
//   16U: taps with 16 fraction bits; horizontal < 2^32 (uint32), vertical < 2^48 (uint64),
//        rounding (s + 2^31) >> 32. Bit-exact.
//   16S, 32F: float taps and sums, each direction summed tap by tap from the first tap;
//        16S rounds half to even and saturates. 64F: double.
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_ARITH_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_ARITH_CUH

#include <cstdint>
#include "opencv2/core/base.hpp"
#include "../gaussian_launch.hpp"
#include "vec4.cuh"

namespace cv { namespace cuda { namespace gaussian {

template <int Depth> struct Traits;
template <> struct Traits<CV_8U>
{
    typedef uint8_t Src; typedef uint32_t Tap; typedef uint32_t RowAcc; typedef uint16_t Scratch; typedef uint32_t ColAcc;
    __device__ static uint8_t exact(ColAcc s) { return static_cast<uint8_t>((s + (1u << 15)) >> 16); }
    __device__ static float toFloat(ColAcc s) { return static_cast<float>(s) * (1.0f / 65536.0f); }
};
template <> struct Traits<CV_16U>
{
    typedef uint16_t Src; typedef uint32_t Tap; typedef uint32_t RowAcc; typedef uint32_t Scratch; typedef uint64_t ColAcc;
    __device__ static uint16_t exact(ColAcc s) { return static_cast<uint16_t>((s + (uint64_t(1) << 31)) >> 32); }
    __device__ static float toFloat(ColAcc s) { return static_cast<float>(static_cast<double>(s) * (1.0 / 4294967296.0)); }
};
template <> struct Traits<CV_16S>
{
    typedef int16_t Src; typedef float Tap; typedef float RowAcc; typedef float Scratch; typedef float ColAcc;
    __device__ static int16_t exact(ColAcc s) { return static_cast<int16_t>(::max(-32768, ::min(32767, __float2int_rn(s)))); }
    __device__ static float toFloat(ColAcc s) { return s; }
};
template <> struct Traits<CV_32F>
{
    typedef float Src; typedef float Tap; typedef float RowAcc; typedef float Scratch; typedef float ColAcc;
    __device__ static float exact(ColAcc s) { return s; }
    __device__ static float toFloat(ColAcc s) { return s; }
};
template <> struct Traits<CV_64F>
{
    typedef double Src; typedef double Tap; typedef double RowAcc; typedef double Scratch; typedef double ColAcc;
    __device__ static double exact(ColAcc s) { return s; }
    __device__ static float toFloat(ColAcc s) { return static_cast<float>(s); }
};

template <class T>
__device__ __forceinline__ void storeResult(const SeparablePlan& p, int y, int e, typename T::ColAcc acc)
{
    unsigned char* row = p.dst + static_cast<size_t>(y) * p.dstStep;
    if (p.floatOutput)
        reinterpret_cast<float*>(row)[e] = T::toFloat(acc);
    else
        reinterpret_cast<typename T::Src*>(row)[e] = T::exact(acc);
}

// Four consecutive outputs e0..e0+3 of row y (only those below `elements` exist); one vector store
// when the destination allows it (plan.dstAligned4).
template <class T>
__device__ __forceinline__ void storeResult4(const SeparablePlan& p, int y, int e0, int elements, const typename T::ColAcc (&acc)[4])
{
    unsigned char* row = p.dst + static_cast<size_t>(y) * p.dstStep;
    if (p.floatOutput)
    {
        float* out = reinterpret_cast<float*>(row) + e0;
        if (p.dstAligned4 && e0 + 4 <= elements)
            storeVec4(out, T::toFloat(acc[0]), T::toFloat(acc[1]), T::toFloat(acc[2]), T::toFloat(acc[3]));
        else
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (e0 + i < elements)
                    out[i] = T::toFloat(acc[i]);
    }
    else
    {
        typename T::Src* out = reinterpret_cast<typename T::Src*>(row) + e0;
        if (p.dstAligned4 && e0 + 4 <= elements)
            storeVec4(out, T::exact(acc[0]), T::exact(acc[1]), T::exact(acc[2]), T::exact(acc[3]));
        else
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (e0 + i < elements)
                    out[i] = T::exact(acc[i]);
    }
}

}}} // namespace cv::cuda::gaussian

#endif
