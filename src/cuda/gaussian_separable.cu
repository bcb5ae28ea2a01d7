// Separable Gaussian blur in two passes through a scratch image; every depth, border and kernel
// size (no radius limit: taps are read from global memory, the radius is a run-time value).
//
//   source (whole image, ROI at roiX,roiY)      scratch: height + 2*ry rows        destination
//   row mapRow(roiY - ry + j) --pass 1 (x)-->   row j              --pass 2 (y)--> row y <- rows y..y+2ry
//
// Register blocking: a thread computes kOutputs consecutive outputs of one channel, sliding a
// window of kOutputs inputs over the taps, so each tap costs kOutputs multiply-adds but one load
// (loads per output: 1 + 2r/kOutputs instead of 2r+1).
//
//   pass 1, thread (group g, channel c):  inputs X0 .. X0+kOutputs+2rx-1  ->  outputs x0 .. x0+kOutputs-1
//   pass 2, thread (element e, rows y0..y0+kOutputs-1): scratch rows y0 .. y0+kOutputs+2ry-1
//
// Arithmetic: gaussian_arith.cuh. Invariants: 64-bit row offsets; rows beyond 65535 are covered
// by grid-stride loops in y; the last group of a row / rows of a column stores only what exists.
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "border.hpp"
#include "gaussian_arith.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kBlock = 256;
constexpr int kOutputs = 8;     // outputs per thread in each pass
constexpr int kMaxGridY = 65535;

// Pass 1: horizontal taps, the row border as a type; the source row is mapped at run time (once per row).
template <int Depth, class Border>
__global__ void __launch_bounds__(kBlock) rowPass(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    typedef typename T::RowAcc Acc;
    const int cn = p.channels;
    const int groups = (p.width + kOutputs - 1) / kOutputs;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= groups * cn)
        return;
    const int g = t / cn, c = t - g * cn;
    const int x0 = g * kOutputs;                 // first output column (ROI)
    const int X0 = p.roiX + x0 - p.rx;           // first input column (whole image)
    const bool interior = X0 >= 0 && X0 + kOutputs + 2 * p.rx <= p.wholeWidth;
    const int outputs = ::min(kOutputs, p.width - x0);
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsX);

    for (int j = blockIdx.y; j < p.height + 2 * p.ry; j += gridDim.y)
    {
        typename T::Scratch* out = reinterpret_cast<typename T::Scratch*>(p.scratch + static_cast<size_t>(j) * p.scratchStep) + c;
        const int srcY = mapBorder(p.roiY - p.ry + j, p.wholeHeight, p.columnBorder);
        if (srcY < 0)
        {
            for (int i = 0; i < outputs; i++)
                out[(x0 + i) * cn] = typename T::Scratch(0);
            continue;
        }
        const typename T::Src* src = reinterpret_cast<const typename T::Src*>(p.srcWhole + static_cast<size_t>(srcY) * p.srcStep) + c;
        auto load = [&](int X) -> Acc {
            if (interior)
                return static_cast<Acc>(src[X * cn]);
            const int xs = Border::map(X, p.wholeWidth);
            return xs < 0 ? Acc(0) : static_cast<Acc>(src[xs * cn]);
        };

        Acc w[kOutputs], acc[kOutputs];
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
        {
            w[i] = load(X0 + i);
            acc[i] = 0;
        }
        for (int k = 0; k <= 2 * p.rx; k++)
        {
            const Acc tk = static_cast<Acc>(__ldg(taps + k));
#pragma unroll
            for (int i = 0; i < kOutputs; i++)
                acc[i] += tk * w[i];
            if (k == 2 * p.rx)
                break;
#pragma unroll
            for (int i = 0; i < kOutputs - 1; i++)
                w[i] = w[i + 1];
            w[kOutputs - 1] = load(X0 + k + kOutputs);
        }
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
            if (i < outputs)
                out[(x0 + i) * cn] = static_cast<typename T::Scratch>(acc[i]);
    }
}

// Pass 2: vertical taps over scratch rows y .. y+2ry, tap by tap from the top.
template <int Depth>
__global__ void __launch_bounds__(kBlock) columnPass(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    typedef typename T::ColAcc Acc;
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.width * p.channels)
        return;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsY);
    const int lastRow = p.height + 2 * p.ry - 1;
    auto load = [&](int row) -> Acc {
        const int r = ::min(row, lastRow); // rows past the end feed outputs that are not stored
        return static_cast<Acc>(reinterpret_cast<const typename T::Scratch*>(p.scratch + static_cast<size_t>(r) * p.scratchStep)[e]);
    };

    for (int y0 = blockIdx.y * kOutputs; y0 < p.height; y0 += gridDim.y * kOutputs)
    {
        Acc w[kOutputs], acc[kOutputs];
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
        {
            w[i] = load(y0 + i);
            acc[i] = 0;
        }
        for (int k = 0; k <= 2 * p.ry; k++)
        {
            const Acc tk = static_cast<Acc>(__ldg(taps + k));
#pragma unroll
            for (int i = 0; i < kOutputs; i++)
                acc[i] += tk * w[i];
            if (k == 2 * p.ry)
                break;
#pragma unroll
            for (int i = 0; i < kOutputs - 1; i++)
                w[i] = w[i + 1];
            w[kOutputs - 1] = load(y0 + k + kOutputs);
        }
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
            if (y0 + i < p.height)
                storeResult<T>(p, y0 + i, e, acc[i]);
    }
}

unsigned gridY(int rows) { return static_cast<unsigned>(rows < 1 ? 1 : (rows < kMaxGridY ? rows : kMaxGridY)); }

template <int Depth>
void runDepth(const SeparablePlan& p, cudaStream_t stream)
{
    const int groups = (p.width + kOutputs - 1) / kOutputs;
    const dim3 rowGrid((groups * p.channels + kBlock - 1) / kBlock, gridY(p.height + 2 * p.ry));
    switch (p.rowBorder)
    {
    case BORDER_REPLICATE:   rowPass<Depth, BorderReplicate><<<rowGrid, kBlock, 0, stream>>>(p); break;
    case BORDER_CONSTANT:    rowPass<Depth, BorderConstant><<<rowGrid, kBlock, 0, stream>>>(p); break;
    case BORDER_REFLECT:     rowPass<Depth, BorderReflect><<<rowGrid, kBlock, 0, stream>>>(p); break;
    case BORDER_REFLECT_101: rowPass<Depth, BorderReflect101><<<rowGrid, kBlock, 0, stream>>>(p); break;
    case BORDER_WRAP:        rowPass<Depth, BorderWrap><<<rowGrid, kBlock, 0, stream>>>(p); break;
    default: CV_Error(Error::StsBadArg, cv::format("gaussian: unsupported row border %d", p.rowBorder));
    }
    CUDAIMAGE_CHECK(cudaGetLastError());
    const dim3 colGrid((p.width * p.channels + kBlock - 1) / kBlock, gridY((p.height + kOutputs - 1) / kOutputs));
    columnPass<Depth><<<colGrid, kBlock, 0, stream>>>(p);
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
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported depth %d", depth));
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
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported depth %d", p.depth));
    }
}

}}} // namespace cv::cuda::gaussian
