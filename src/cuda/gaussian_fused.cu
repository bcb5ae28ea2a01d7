// Fused Gaussian blur: both passes in one kernel, the horizontal results kept in shared memory,
// so device memory sees one read of the source (plus halo rows, mostly from L2) and one write of
// the destination, instead of the two-pass path's extra scratch write and read.
//
//   block = 256 threads = 256 consecutive elements (pixel channels) of a row, tile of `tileRows`
//   output rows:
//
//     source rows  roiY+y0-ry ... roiY+y0+tileRows+ry-1   (mapped through the column border)
//          | phase 1: each thread filters its element horizontally (row border as a type)
//          v
//     smem H[tileRows + 2ry][256]   (the exact pass-1 type: ushort for 8U, uint32 for 16U, ...)
//          | phase 2: each thread filters its column of H vertically
//          v
//     destination rows y0 ... y0+tileRows-1
//
// Arithmetic is the two-pass path's (gaussian_arith.cuh), so results are identical.
// Invariants: not in place (blocks read source rows other blocks write); smem size checked by the
// host (fusedTileRows); tiles in y loop with a grid stride, so any height works.
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "border.hpp"
#include "gaussian_arith.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kTileElems = 256;
constexpr size_t kMaxSmem = 160 * 1024;  // leaves room for a second block per SM on Hopper (227 KB)

template <int Depth, class Border>
__global__ void __launch_bounds__(kTileElems) fusedTile(const SeparablePlan p, int tileRows)
{
    typedef Traits<Depth> T;
    extern __shared__ __align__(16) unsigned char smem[];
    typename T::Scratch* H = reinterpret_cast<typename T::Scratch*>(smem);

    const int cn = p.channels;
    const int elements = p.width * cn;
    const int e = blockIdx.x * kTileElems + threadIdx.x;
    const bool active = e < elements;
    const int x = active ? e / cn : 0, c = e - x * cn;
    const int X = p.roiX + x;
    const bool interior = X - p.rx >= 0 && X + p.rx < p.wholeWidth;
    const typename T::Tap* tx = static_cast<const typename T::Tap*>(p.tapsX);
    const typename T::Tap* ty = static_cast<const typename T::Tap*>(p.tapsY);
    const int ry = p.ry;

    for (int y0 = blockIdx.y * tileRows; y0 < p.height; y0 += gridDim.y * tileRows)
    {
        const int rows = ::min(tileRows, p.height - y0);
        for (int j = 0; j < rows + 2 * ry; j++)
        {
            typename T::Scratch v = 0;
            const int srcY = mapBorder(p.roiY + y0 - ry + j, p.wholeHeight, p.columnBorder);
            if (active && srcY >= 0)
            {
                const typename T::Src* src = reinterpret_cast<const typename T::Src*>(p.srcWhole + static_cast<size_t>(srcY) * p.srcStep) + c;
                v = interior ? horizontalInterior<T>(src, X, cn, tx, p.rx)
                             : horizontalBorder<T, Border>(src, X, cn, tx, p.rx, p.wholeWidth);
            }
            H[j * kTileElems + threadIdx.x] = v;
        }
        __syncthreads();
        if (active)
            for (int y = 0; y < rows; y++)
            {
                const typename T::Scratch* centre = H + (y + ry) * kTileElems + threadIdx.x;
                const typename T::ColAcc acc = vertical<T>(centre, kTileElems, ty, ry);
                storeResult<T>(p, y0 + y, e, acc);
            }
        __syncthreads();
    }
}

template <int Depth, class Border>
void launch(const SeparablePlan& p, int tileRows, cudaStream_t stream)
{
    typedef Traits<Depth> T;
    const size_t smem = static_cast<size_t>(tileRows + 2 * p.ry) * kTileElems * sizeof(typename T::Scratch);
    // Above 48 KB a kernel must opt in; cheap, and idempotent.
    CUDAIMAGE_CHECK(cudaFuncSetAttribute(fusedTile<Depth, Border>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kMaxSmem)));
    const int elements = p.width * p.channels;
    const int tiles = (p.height + tileRows - 1) / tileRows;
    const dim3 grid((elements + kTileElems - 1) / kTileElems, ::min(tiles, 65535));
    fusedTile<Depth, Border><<<grid, kTileElems, smem, stream>>>(p, tileRows);
    CUDAIMAGE_CHECK(cudaGetLastError());
}

template <int Depth>
void runDepth(const SeparablePlan& p, int tileRows, cudaStream_t stream)
{
    switch (p.rowBorder)
    {
    case BORDER_REPLICATE:   launch<Depth, BorderReplicate>(p, tileRows, stream); break;
    case BORDER_CONSTANT:    launch<Depth, BorderConstant>(p, tileRows, stream); break;
    case BORDER_REFLECT:     launch<Depth, BorderReflect>(p, tileRows, stream); break;
    case BORDER_REFLECT_101: launch<Depth, BorderReflect101>(p, tileRows, stream); break;
    case BORDER_WRAP:        launch<Depth, BorderWrap>(p, tileRows, stream); break;
    default: CV_Error(Error::StsBadArg, cv::format("gaussian: unsupported row border %d", p.rowBorder));
    }
}

} // namespace

int fusedTileRows(int depth, int ry)
{
    const size_t elem = scratchElemSize(depth);
    for (int rows : {64, 32, 16})
        if (static_cast<size_t>(rows + 2 * ry) * kTileElems * elem <= kMaxSmem)
            return rows;
    return 0;
}

void runFused(const SeparablePlan& p, cudaStream_t stream)
{
    const int tileRows = fusedTileRows(p.depth, p.ry);
    CV_Assert(tileRows > 0);
    switch (p.depth)
    {
    case CV_8U:  runDepth<CV_8U>(p, tileRows, stream); break;
    case CV_16U: runDepth<CV_16U>(p, tileRows, stream); break;
    case CV_16S: runDepth<CV_16S>(p, tileRows, stream); break;
    case CV_32F: runDepth<CV_32F>(p, tileRows, stream); break;
    case CV_64F: runDepth<CV_64F>(p, tileRows, stream); break;
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported depth %d", p.depth));
    }
}

}}} // namespace cv::cuda::gaussian
