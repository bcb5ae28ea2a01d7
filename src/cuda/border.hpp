// Border extrapolation on the device, as cv::borderInterpolate (core/src/copy.cpp), one type per
// mode so kernels branch at compile time. map() returns an index in [0, len) or -1 (constant:
// the caller reads zero). Reflections are closed-form, so any radius costs the same.
#ifndef CUDAIMAGE_CUDA_BORDER_HPP
#define CUDAIMAGE_CUDA_BORDER_HPP

#include "opencv2/core/base.hpp"

namespace cv { namespace cuda { namespace gaussian {

__host__ __device__ inline int floorMod(int p, int n) { int m = p % n; return m < 0 ? m + n : m; }

struct BorderReplicate { __host__ __device__ static int map(int p, int len) { return p < 0 ? 0 : (p >= len ? len - 1 : p); } };
struct BorderConstant  { __host__ __device__ static int map(int p, int len) { return (unsigned)p < (unsigned)len ? p : -1; } };
struct BorderWrap      { __host__ __device__ static int map(int p, int len) { return floorMod(p, len); } };
// fedcba|abcdefgh|hgfedcb : period 2*len
struct BorderReflect
{
    __host__ __device__ static int map(int p, int len)
    {
        if ((unsigned)p < (unsigned)len) return p;
        const int m = floorMod(p, 2 * len);
        return m < len ? m : 2 * len - 1 - m;
    }
};
// gfedcb|abcdefgh|gfedcba : period 2*len-2 (a single pixel reflects onto itself)
struct BorderReflect101
{
    __host__ __device__ static int map(int p, int len)
    {
        if ((unsigned)p < (unsigned)len) return p;
        if (len == 1) return 0;
        const int m = floorMod(p, 2 * len - 2);
        return m < len ? m : 2 * len - 2 - m;
    }
};

__host__ __device__ inline int mapBorder(int p, int len, int mode)
{
    switch (mode)
    {
    case BORDER_REPLICATE: return BorderReplicate::map(p, len);
    case BORDER_CONSTANT:  return BorderConstant::map(p, len);
    case BORDER_WRAP:      return BorderWrap::map(p, len);
    case BORDER_REFLECT:   return BorderReflect::map(p, len);
    default:               return BorderReflect101::map(p, len);
    }
}

}}} // namespace cv::cuda::gaussian

#endif
