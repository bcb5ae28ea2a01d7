// The batch's taps built on the device: one block per kernel computes cv::getGaussianKernel's bits
// (src/gaussian_kernel_bits.hpp, the host's code) and OpenCV's fixed-point taps from the kernel's
// size and sigmas, then the unit's own tap preparation (the host's too) writes the struct its
// batched kernel reads. The sigmas come with the job (host values) or are read from device memory
// (a tensor of sigmas, never read back to the host). So a batch with a new sigma for every image
// costs the host no taps at all, and the bits are the host's by construction.
//
// A unit that builds its taps here declares
//   template <int Depth> static CUDAIMAGE_HOST_DEVICE void prepareBatch(const KernelTaps&, unsigned char* out)
//     (out zero-filled, BatchTapsLayout::bytes long) and
//   static BatchTapsLayout batchLayout(int depth, int channels, int rx, int ry),
// and its kernel file instantiates makeBatchTaps<Unit>() in its makeBatchTaps().
#ifndef CUDAIMAGE_CUDA_BATCH_TAP_MAKER_CUH
#define CUDAIMAGE_CUDA_BATCH_TAP_MAKER_CUH

#include <cfloat>
#include <cuda_runtime.h>
#include "../gaussian_kernel_bits.hpp"
#include "../gaussian_path_query.hpp"
#include "checked_launch.cuh"
#include "gaussian_depth.cuh"
#include "gaussian_tap_packer.cuh"

namespace cv { namespace cuda { namespace gaussian {

#if defined(__CUDACC__)

namespace tapmaker {

constexpr int kThreads = 128;

/** Sigma `index` of a device array of CV_32F or CV_64F values. */
__device__ inline double deviceSigma(const void* values, int type, int index)
{
    return type == CV_64F ? static_cast<const double*>(values)[index] : static_cast<double>(static_cast<const float*>(values)[index]);
}

/** One direction's kernel of n taps (odd, at most kMaxBatchTaps) into real[] and, for a
 * fixed-point depth, fixed[]: the exps over the block, the sums and the error diffusion in one
 * thread (`lead`), in OpenCV's order. Every thread of the block calls it. */
__device__ inline void directionTaps(const SoftdoubleExpConstants& c, int n, double sigma, int fractionBits, int lead,
                                     double* real, uint32_t* fixed, double* normaliser)
{
    const int half = (n - 1) / 2;
    const bool small = isSmallGaussian(n, sigma);
    const double scale2X = small ? 0 : gaussianScale2X(n, sigma);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        if (small)
            real[i] = smallGaussianTap(n, i);
        else if (i < half)
            real[i] = gaussianTapExp(c, n, i, scale2X);
    __syncthreads();
    if (!small && threadIdx.x == lead)
        *normaliser = gaussianNormaliser(real, n);
    __syncthreads();
    if (!small)
    {
        const double mul1 = *normaliser;
        for (int i = threadIdx.x; i < half; i += blockDim.x)
            real[i] = real[n - 1 - i] = ieee::mul(real[i], mul1);
        if (threadIdx.x == lead)
            real[half] = mul1;
    }
    __syncthreads();
    if (fractionBits > 0 && threadIdx.x == lead)
        fixedPointTapsOf(real, n, fractionBits, fixed);
}

template <class Unit, int Depth>
__global__ void __launch_bounds__(kThreads) makeBatchTapsKernel(const __grid_constant__ BatchTapJobs jobs)
{
    __shared__ double real[2][kMaxBatchTaps];
    __shared__ uint32_t fixed[2][kMaxBatchTaps];
    __shared__ double normaliser[2];
    const BatchTapJob job = jobs.jobs[blockIdx.x];

    uint32_t* out = reinterpret_cast<uint32_t*>(job.out);
    for (int i = threadIdx.x; i < job.bytes / 4; i += blockDim.x)
        out[i] = 0;
    for (int i = job.bytes / 4 * 4 + threadIdx.x; i < job.bytes; i += blockDim.x)
        job.out[i] = 0;

    // OpenCV's rules (resolveShape): a sigmaY <= 0 is sigmaX; a sigma <= 0 is derived from the
    // kernel's size. A sigma from the device that is not a number counts as <= 0.
    double sx = job.sigmaIndexX >= 0 ? deviceSigma(jobs.sigmaX, jobs.sigmaXType, job.sigmaIndexX) : job.sigmaX;
    double sy = job.sigmaIndexY >= 0 ? deviceSigma(jobs.sigmaY, jobs.sigmaYType, job.sigmaIndexY) : job.sigmaY;
    if (!(sy > 0))
        sy = sx;
    sx = sx > 0 ? sx : 0;
    sy = sy > 0 ? sy : 0;
    // CPU cv::GaussianBlur's rule (createGaussianKernels): the vertical kernel is the horizontal one
    // when the sizes match and the sigmas differ by less than DBL_EPSILON.
    const bool same = job.ksizeX == job.ksizeY && fabs(sx - sy) < DBL_EPSILON;
    constexpr int bits = DepthPolicy<Depth>::kFractionBits;
    directionTaps(jobs.exp, job.ksizeX, sx, bits, 0, real[0], fixed[0], &normaliser[0]);
    if (!same)
        directionTaps(jobs.exp, job.ksizeY, sy, bits, 32, real[1], fixed[1], &normaliser[1]);
    __syncthreads();   // the zero fill, and the last direction's fixed-point taps
    if (threadIdx.x == 0)
    {
        KernelTaps k;
        k.depth = Depth;
        k.channels = jobs.channels;
        k.x.real = real[0];
        k.x.fixed = fixed[0];
        k.x.size = job.ksizeX;
        k.y = k.x;
        if (!same)
        {
            k.y.real = real[1];
            k.y.fixed = fixed[1];
            k.y.size = job.ksizeY;
        }
        Unit::template prepareBatch<Depth>(k, job.out);
    }
}

} // namespace tapmaker

/** Enqueues the unit's tap maker over `jobs` (all of the launch's depth) on `stream`. */
template <class Unit>
void makeBatchTaps(const BatchTapJobs& jobs, cudaStream_t stream)
{
    if (jobs.count <= 0)
        return;
    forDepth(jobs.depth, [&](auto depth) {
        constexpr int Depth = decltype(depth)::value;
        launchChecked(Unit::kTapMakerKernel, tapmaker::makeBatchTapsKernel<Unit, Depth>, dim3(static_cast<unsigned>(jobs.count)),
                      dim3(tapmaker::kThreads), 0, stream, jobs);
    });
}

#endif // __CUDACC__

}}} // namespace cv::cuda::gaussian

#endif
