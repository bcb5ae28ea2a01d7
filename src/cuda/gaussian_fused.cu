// Fused Gaussian blur for small vertical radii (1 <= ry <= 8) and float-exact arithmetic (8U,
// 16S, 32F): one kernel, no scratch image, so device memory sees one read of the source (plus
// 2*ry halo rows per strip) and one write of the destination.
//
//   block: 128 threads x 4 consecutive elements = a 512-element column tile; grid.y: strips of
//   kStripRows output rows. For each input row of the strip (kStripRows + 2*Ry rows):
//     1. the block stages the row's 512 + 2*rx*Cn elements in shared memory (borders mapped here);
//     2. each thread filters its 4 elements horizontally (any rx) and pushes them into a register
//        ring holding the last 2*Ry+1 horizontal rows (Ry is a template parameter);
//     3. once the ring is full, each thread filters it vertically and stores 4 outputs.
//
// Arithmetic in float: for 8U the taps are the 8-fraction-bit integers, every partial sum is an
// integer below 2^24, so float is exact and the result is bit-identical to the integer path.
// 16S and 32F use the CPU's float taps. Not in place: a strip reads rows other strips write.
#include <cstdint>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "../gaussian_launch.hpp"
#include "border.hpp"
#include "gaussian_arith.cuh"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kThreads = 128;
constexpr int kElems = 4;                    // elements per thread
constexpr int kTile = kThreads * kElems;     // elements per block row
constexpr int kStripRows = 64;               // output rows per block
constexpr int kMaxRy = 8;
constexpr size_t kMaxStage = 48 * 1024;      // shared memory for the staged row

template <class T> __device__ __forceinline__ typename T::ColAcc fromFloat(float v);
template <> __device__ __forceinline__ uint32_t fromFloat<Traits<CV_8U>>(float v) { return __float2uint_rn(v); }
template <> __device__ __forceinline__ float fromFloat<Traits<CV_16S>>(float v) { return v; }
template <> __device__ __forceinline__ float fromFloat<Traits<CV_32F>>(float v) { return v; }

template <int Depth, int Cn, int Ry>
__global__ void __launch_bounds__(kThreads) fusedStrip(const SeparablePlan p)
{
    typedef Traits<Depth> T;
    typedef typename T::Src Src;
    extern __shared__ __align__(16) unsigned char stageBytes[];
    Src* stage = reinterpret_cast<Src*>(stageBytes);

    const int elements = p.width * Cn;
    const int halo = p.rx * Cn;
    const int stageLen = kTile + 2 * halo;
    const int tileE0 = blockIdx.x * kTile;                 // ROI element of the tile start
    const int local = threadIdx.x * kElems;                // my first element within the tile
    const int e0 = tileE0 + local;
    const int wholeE0 = p.roiX * Cn + tileE0 - halo;       // whole-image element of stage[0]
    const float* tx = p.tapsXf;

    float ty[2 * Ry + 1];
#pragma unroll
    for (int m = 0; m <= 2 * Ry; m++)
        ty[m] = __ldg(p.tapsYf + m);

    for (int y0 = blockIdx.y * kStripRows; y0 < p.height; y0 += gridDim.y * kStripRows)
    {
        const int rows = ::min(kStripRows, p.height - y0);
        float ring[2 * Ry + 1][kElems];
        for (int j = 0; j < rows + 2 * Ry; j++)
        {
            const int srcY = mapBorder(p.roiY + y0 - Ry + j, p.wholeHeight, p.columnBorder);
            __syncthreads();  // everyone is done with the previous row
            if (srcY >= 0)
            {
                const Src* src = reinterpret_cast<const Src*>(p.srcWhole + static_cast<size_t>(srcY) * p.srcStep);
                for (int i = threadIdx.x; i < stageLen; i += kThreads)
                {
                    const int E = wholeE0 + i;
                    const int pixel = E >= 0 ? E / Cn : -((-E + Cn - 1) / Cn);
                    int xs = pixel;
                    if ((unsigned)pixel >= (unsigned)p.wholeWidth)
                        xs = mapBorder(pixel, p.wholeWidth, p.rowBorder);
                    stage[i] = xs < 0 ? Src(0) : src[xs * Cn + (E - pixel * Cn)];
                }
            }
            else
                for (int i = threadIdx.x; i < stageLen; i += kThreads)
                    stage[i] = Src(0);
            __syncthreads();

#pragma unroll
            for (int m = 0; m < 2 * Ry; m++)
#pragma unroll
                for (int i = 0; i < kElems; i++)
                    ring[m][i] = ring[m + 1][i];
            float h[kElems];
#pragma unroll
            for (int i = 0; i < kElems; i++)
                h[i] = 0.f;
            for (int k = 0; k <= 2 * p.rx; k++)
            {
                const float t = __ldg(tx + k);
#pragma unroll
                for (int i = 0; i < kElems; i++)
                    h[i] += t * static_cast<float>(stage[local + i + k * Cn]);
            }
#pragma unroll
            for (int i = 0; i < kElems; i++)
                ring[2 * Ry][i] = h[i];

            if (j >= 2 * Ry && e0 < elements)
            {
                typename T::ColAcc out[kElems];
#pragma unroll
                for (int i = 0; i < kElems; i++)
                {
                    float acc = 0.f;
#pragma unroll
                    for (int m = 0; m <= 2 * Ry; m++)
                        acc += ty[m] * ring[m][i];
                    out[i] = fromFloat<T>(acc);
                }
                storeResult4<T>(p, y0 + j - 2 * Ry, e0, elements, out);
            }
        }
    }
}

template <int Depth, int Cn>
void launchRy(const SeparablePlan& p, dim3 grid, size_t smem, cudaStream_t stream)
{
    switch (p.ry)
    {
    case 1: fusedStrip<Depth, Cn, 1><<<grid, kThreads, smem, stream>>>(p); break;
    case 2: fusedStrip<Depth, Cn, 2><<<grid, kThreads, smem, stream>>>(p); break;
    case 3: fusedStrip<Depth, Cn, 3><<<grid, kThreads, smem, stream>>>(p); break;
    case 4: fusedStrip<Depth, Cn, 4><<<grid, kThreads, smem, stream>>>(p); break;
    case 5: fusedStrip<Depth, Cn, 5><<<grid, kThreads, smem, stream>>>(p); break;
    case 6: fusedStrip<Depth, Cn, 6><<<grid, kThreads, smem, stream>>>(p); break;
    case 7: fusedStrip<Depth, Cn, 7><<<grid, kThreads, smem, stream>>>(p); break;
    case 8: fusedStrip<Depth, Cn, 8><<<grid, kThreads, smem, stream>>>(p); break;
    default: CV_Error(Error::StsOutOfRange, cv::format("gaussian: fused path needs 1 <= ry <= %d, got %d", kMaxRy, p.ry));
    }
}

template <int Depth>
void runDepth(const SeparablePlan& p, cudaStream_t stream)
{
    typedef typename Traits<Depth>::Src Src;
    const size_t smem = static_cast<size_t>(kTile + 2 * p.rx * p.channels) * sizeof(Src);
    const int elements = p.width * p.channels;
    const int strips = (p.height + kStripRows - 1) / kStripRows;
    const dim3 grid((elements + kTile - 1) / kTile, ::min(strips, 65535));
    (void)cudaGetLastError(); // an earlier, unrelated error is not ours (see gaussian_separable.cu)
    switch (p.channels)
    {
    case 1: launchRy<Depth, 1>(p, grid, smem, stream); break;
    case 2: launchRy<Depth, 2>(p, grid, smem, stream); break;
    case 3: launchRy<Depth, 3>(p, grid, smem, stream); break;
    case 4: launchRy<Depth, 4>(p, grid, smem, stream); break;
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported channel count %d", p.channels));
    }
    CUDAIMAGE_CHECK(cudaGetLastError());
}

} // namespace

bool fusedApplies(int depth, int channels, int rx, int ry)
{
    if (depth != CV_8U && depth != CV_16S && depth != CV_32F)
        return false;
    const size_t elem = depth == CV_8U ? 1 : depth == CV_16S ? 2 : 4;
    return ry >= 1 && ry <= kMaxRy && static_cast<size_t>(kTile + 2 * rx * channels) * elem <= kMaxStage;
}

void runFused(const SeparablePlan& p, cudaStream_t stream)
{
    CV_Assert(fusedApplies(p.depth, p.channels, p.rx, p.ry) && p.tapsXf && p.tapsYf);
    switch (p.depth)
    {
    case CV_8U:  runDepth<CV_8U>(p, stream); break;
    case CV_16S: runDepth<CV_16S>(p, stream); break;
    case CV_32F: runDepth<CV_32F>(p, stream); break;
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: no fused path for depth %d", p.depth));
    }
}

}}} // namespace cv::cuda::gaussian
