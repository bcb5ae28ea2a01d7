// Four consecutive elements moved as one vector access (4, 8 or 16 bytes; 2 x 16 for double).
// Callers guarantee the alignment: 4 * sizeof(T) bytes.
#ifndef CUDAIMAGE_CUDA_VEC4_CUH
#define CUDAIMAGE_CUDA_VEC4_CUH

#include <cstdint>

namespace cv { namespace cuda { namespace gaussian {

template <typename T> struct Vec4Type;
template <> struct Vec4Type<uint8_t>  { typedef uchar4 type; };
template <> struct Vec4Type<uint16_t> { typedef ushort4 type; };
template <> struct Vec4Type<int16_t>  { typedef short4 type; };
template <> struct Vec4Type<uint32_t> { typedef uint4 type; };
template <> struct Vec4Type<float>    { typedef float4 type; };

template <typename T, typename A>
__device__ __forceinline__ void storeVec4(T* out, A a0, A a1, A a2, A a3)
{
    typedef typename Vec4Type<T>::type V;
    V v;
    v.x = static_cast<T>(a0); v.y = static_cast<T>(a1); v.z = static_cast<T>(a2); v.w = static_cast<T>(a3);
    *reinterpret_cast<V*>(out) = v;
}
template <typename A>
__device__ __forceinline__ void storeVec4(double* out, A a0, A a1, A a2, A a3)
{
    reinterpret_cast<double2*>(out)[0] = make_double2(static_cast<double>(a0), static_cast<double>(a1));
    reinterpret_cast<double2*>(out)[1] = make_double2(static_cast<double>(a2), static_cast<double>(a3));
}

template <typename T, typename A>
__device__ __forceinline__ void loadVec4(const T* in, A (&v)[4])
{
    typedef typename Vec4Type<T>::type V;
    const V x = *reinterpret_cast<const V*>(in);
    v[0] = static_cast<A>(x.x); v[1] = static_cast<A>(x.y); v[2] = static_cast<A>(x.z); v[3] = static_cast<A>(x.w);
}
template <typename A>
__device__ __forceinline__ void loadVec4(const double* in, A (&v)[4])
{
    const double2 a = reinterpret_cast<const double2*>(in)[0], b = reinterpret_cast<const double2*>(in)[1];
    v[0] = static_cast<A>(a.x); v[1] = static_cast<A>(a.y); v[2] = static_cast<A>(b.x); v[3] = static_cast<A>(b.y);
}

}}} // namespace cv::cuda::gaussian

#endif
