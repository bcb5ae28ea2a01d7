// Separable Gaussian blur in two passes through a scratch image: the exact reference path for
// every depth, border and kernel size (no radius limit: taps are read from global memory).
//
//   source (whole image, ROI at roiX,roiY)        scratch: height + 2*ry rows          destination
//   row  mapRow(roiY - ry + j) --pass 1 (x)-->    row j                --pass 2 (y)--> row y <- rows y..y+2ry
//
// Arithmetic: gaussian_arith.cuh (shared with the fused kernel).
// Invariants: every thread owns one element (pixel channel) of one row; 64-bit row offsets;
// rows beyond 65535 are covered by a grid-stride loop in y.
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "border.hpp"
#include "gaussian_arith.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kBlockX = 256;
constexpr int kMaxGridY = 65535;

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
        out[e] = interior ? horizontalInterior<T>(src, X, cn, taps, p.rx)
                          : horizontalBorder<T, Border>(src, X, cn, taps, p.rx, p.wholeWidth);
    }
}

// Pass 2: vertical taps over scratch rows y..y+2ry; centre first, then symmetric pairs.
template <int Depth>
__global__ void columnPass(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.width * p.channels)
        return;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsY);
    const size_t stride = p.scratchStep / sizeof(typename T::Scratch);
    for (int y = blockIdx.y; y < p.height; y += gridDim.y)
    {
        const typename T::Scratch* centre = rowPtr<typename T::Scratch>(p.scratch, p.scratchStep, y + p.ry) + e;
        storeResult<T>(p, y, e, vertical<T>(centre, stride, taps, p.ry));
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
    columnPass<Depth><<<colGrid, block, 0, stream>>>(p);
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
