// Separable Gaussian blur in two passes through a scratch image: the exact reference path for
// every depth, border and kernel size (no radius limit: taps are read from global memory).
//
//   source (whole image, ROI at roiX,roiY)        scratch: height + 2*ry rows          destination
//   row  mapRow(roiY - ry + j) --pass 1 (x)-->    row j                --pass 2 (y)--> row y <- rows y..y+2ry
//
// Arithmetic per source depth (Traits below) reproduces CPU cv::GaussianBlur:
//   8U : taps with 8 fraction bits; pass 1 sums exactly (< 2^16, kept as ushort), pass 2 sums
//        exactly (< 2^24), then one rounding: (s + 2^15) >> 16. Bit-exact.
//   16U: taps with 16 fraction bits; pass 1 < 2^32 (uint32), pass 2 < 2^48 (uint64), rounding
//        (s + 2^31) >> 32. Bit-exact.
//   16S, 32F: float taps and sums (pass 1 left to right, pass 2 centre then symmetric pairs, the
//        CPU's order); 16S rounds half to even and saturates. 64F: double.
// Invariants: every thread owns one element (pixel channel) of one row; 64-bit row offsets;
// rows beyond 65535 are covered by a grid-stride loop in y.
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "border.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kBlockX = 256;
constexpr int kMaxGridY = 65535;

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

template <typename T> __device__ __forceinline__ const T* rowPtr(const unsigned char* base, size_t step, int y)
{ return reinterpret_cast<const T*>(base + static_cast<size_t>(y) * step); }
template <typename T> __device__ __forceinline__ T* rowPtr(unsigned char* base, size_t step, int y)
{ return reinterpret_cast<T*>(base + static_cast<size_t>(y) * step); }

// Pass 1: horizontal taps, border as a type; the source row index is mapped at run time (once per row).
template <int Depth, class Border>
__global__ void rowPass(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    const int cn = p.channels;
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.width * cn)
        return;
    const int x = e / cn, c = e - x * cn;
    const int X = p.roiX + x;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsX);
    const bool interior = X - p.rx >= 0 && X + p.rx < p.wholeWidth;

    for (int j = blockIdx.y; j < p.height + 2 * p.ry; j += gridDim.y)
    {
        typename T::Scratch* out = rowPtr<typename T::Scratch>(p.scratch, p.scratchStep, j);
        const int srcY = mapBorder(p.roiY - p.ry + j, p.wholeHeight, p.columnBorder);
        if (srcY < 0)
        {
            out[e] = typename T::Scratch(0);
            continue;
        }
        const typename T::Src* src = rowPtr<typename T::Src>(p.srcWhole, p.srcStep, srcY) + c;
        typename T::RowAcc acc = 0;
        if (interior)
        {
            const typename T::Src* s = src + (X - p.rx) * cn;
            for (int k = 0; k <= 2 * p.rx; k++)
                acc += static_cast<typename T::RowAcc>(__ldg(taps + k)) * static_cast<typename T::RowAcc>(s[k * cn]);
        }
        else
        {
            for (int k = 0; k <= 2 * p.rx; k++)
            {
                const int xs = Border::map(X - p.rx + k, p.wholeWidth);
                const typename T::RowAcc v = xs < 0 ? typename T::RowAcc(0) : static_cast<typename T::RowAcc>(src[xs * cn]);
                acc += static_cast<typename T::RowAcc>(__ldg(taps + k)) * v;
            }
        }
        out[e] = static_cast<typename T::Scratch>(acc);
    }
}

// Pass 2: vertical taps over scratch rows y..y+2ry; centre first, then symmetric pairs.
template <int Depth, typename Dst, bool FloatOutput>
__global__ void columnPass(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.width * p.channels)
        return;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsY);
    const int r = p.ry;
    for (int y = blockIdx.y; y < p.height; y += gridDim.y)
    {
        const unsigned char* centre = p.scratch + static_cast<size_t>(y + r) * p.scratchStep;
        typename T::ColAcc acc = static_cast<typename T::ColAcc>(__ldg(taps + r)) *
                                 static_cast<typename T::ColAcc>(reinterpret_cast<const typename T::Scratch*>(centre)[e]);
        for (int k = 1; k <= r; k++)
        {
            const typename T::Scratch a = reinterpret_cast<const typename T::Scratch*>(centre + static_cast<size_t>(k) * p.scratchStep)[e];
            const typename T::Scratch b = reinterpret_cast<const typename T::Scratch*>(centre - static_cast<size_t>(k) * p.scratchStep)[e];
            acc += static_cast<typename T::ColAcc>(__ldg(taps + r + k)) *
                   (static_cast<typename T::ColAcc>(a) + static_cast<typename T::ColAcc>(b));
        }
        Dst* out = rowPtr<Dst>(p.dst, p.dstStep, y);
        if (FloatOutput)
            out[e] = static_cast<Dst>(T::toFloat(acc));
        else
            out[e] = static_cast<Dst>(T::exact(acc));
    }
}

dim3 gridFor(int elements, int rows)
{
    return dim3(static_cast<unsigned>((elements + kBlockX - 1) / kBlockX),
                static_cast<unsigned>(rows < kMaxGridY ? (rows > 0 ? rows : 1) : kMaxGridY));
}

template <int Depth>
void runDepth(const SeparablePlan& p, cudaStream_t stream)
{
    typedef Traits<Depth> T;
    const int elements = p.width * p.channels;
    const dim3 block(kBlockX);
    const dim3 rowGrid = gridFor(elements, p.height + 2 * p.ry);
    switch (p.rowBorder)
    {
    case BORDER_REPLICATE:   rowPass<Depth, BorderReplicate><<<rowGrid, block, 0, stream>>>(p); break;
    case BORDER_CONSTANT:    rowPass<Depth, BorderConstant><<<rowGrid, block, 0, stream>>>(p); break;
    case BORDER_REFLECT:     rowPass<Depth, BorderReflect><<<rowGrid, block, 0, stream>>>(p); break;
    case BORDER_REFLECT_101: rowPass<Depth, BorderReflect101><<<rowGrid, block, 0, stream>>>(p); break;
    case BORDER_WRAP:        rowPass<Depth, BorderWrap><<<rowGrid, block, 0, stream>>>(p); break;
    default: CV_Error_(Error::StsBadArg, ("gaussian: unsupported row border %d", p.rowBorder));
    }
    CUDAIMAGE_CHECK(cudaGetLastError());
    const dim3 colGrid = gridFor(elements, p.height);
    if (p.floatOutput)
        columnPass<Depth, float, true><<<colGrid, block, 0, stream>>>(p);
    else
        columnPass<Depth, typename T::Src, false><<<colGrid, block, 0, stream>>>(p);
    CUDAIMAGE_CHECK(cudaGetLastError());
}

} // namespace

size_t scratchElemSize(int depth)
{
    switch (depth)
    {
    case CV_8U:  return sizeof(Traits<CV_8U>::Scratch);
    case CV_16U: return sizeof(Traits<CV_16U>::Scratch);
    case CV_16S: return sizeof(Traits<CV_16S>::Scratch);
    case CV_32F: return sizeof(Traits<CV_32F>::Scratch);
    case CV_64F: return sizeof(Traits<CV_64F>::Scratch);
    default: CV_Error_(Error::StsUnsupportedFormat, ("gaussian: unsupported depth %d", depth));
    }
}

void runSeparable(const SeparablePlan& p, cudaStream_t stream)
{
    switch (p.depth)
    {
    case CV_8U:  runDepth<CV_8U>(p, stream); break;
    case CV_16U: runDepth<CV_16U>(p, stream); break;
    case CV_16S: runDepth<CV_16S>(p, stream); break;
    case CV_32F: runDepth<CV_32F>(p, stream); break;
    case CV_64F: runDepth<CV_64F>(p, stream); break;
    default: CV_Error_(Error::StsUnsupportedFormat, ("gaussian: unsupported depth %d", p.depth));
    }
}

}}} // namespace cv::cuda::gaussian
