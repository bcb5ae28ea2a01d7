// NPP's Gaussian (nppiFilterGaussAdvancedBorder_*_Ctx, NPP_BORDER_REPLICATE) timed like
// gaussian_bench (the same timing loop and table: perf/bench_support.hpp), random data. Needs NPP,
// so it is a separate program with no OpenCV: the standalone build's target
// cudaimage_npp_gaussian_bench, built only where find_package(CUDAToolkit) finds NPP (CMakeLists.txt).
//   npp_gaussian_bench [WIDTH [HEIGHT]] > npp.jsonl   (16384 x 16384 by default; one JSON object per
//                                                      cell; gaussian_bench --npp npp.jsonl)
// Taps: the sampled Gaussian exp(-x^2 / 2 sigma^2), normalised, ksize = 2*round(3 sigma)+1 (the
// table's rule, cudaimage_bench::tableKsize); NPP takes float taps.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>
#include <cuda_runtime.h>
#include <npp.h>
#include <nppi_filtering_functions.h>

#include "bench_support.hpp"

static NppStreamContext makeContext(cudaStream_t stream)
{
    NppStreamContext c = {};
    int dev = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    c.hStream = stream;
    c.nCudaDeviceId = dev;
    CHECK_CUDA(cudaDeviceGetAttribute(&c.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&c.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&c.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev));
    int smem = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev));
    c.nSharedMemPerBlock = smem;
    CHECK_CUDA(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, dev));
    unsigned flags = 0;
    CHECK_CUDA(cudaStreamGetFlags(stream, &flags));
    c.nStreamFlags = flags;
    return c;
}

__global__ void fillRandom(unsigned char* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    {
        unsigned x = (unsigned)i * 2654435761u ^ seed;
        x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
        p[i] = (unsigned char)x;
    }
}

__global__ void fillRandomFloat(float* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    {
        unsigned x = (unsigned)i * 2654435761u ^ seed;
        x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
        p[i] = (float)(x & 0xffff) * (255.0f / 65535.0f);
    }
}

struct Cell { const char* type; int depthBytes; int cn; };

int main(int argc, char** argv)
{
    const int W = argc > 1 ? atoi(argv[1]) : 16384, H = argc > 2 ? atoi(argv[2]) : W;
    if (argc > 3 || W <= 0 || H <= 0)
    {
        const bool help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
        fprintf(help ? stdout : stderr, "usage: npp_gaussian_bench [WIDTH [HEIGHT]]   (positive; 16384 and WIDTH by default): "
                "NPP's Gaussian, one JSON line per type and sigma on stdout\n");
        return help ? 0 : 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) { fprintf(stderr, "no CUDA device\n"); return 1; }
    const Cell cells[] = {{"8UC1", 1, 1}, {"8UC3", 1, 3}, {"8UC4", 1, 4}, {"16UC1", 2, 1}, {"32FC1", 4, 1}};
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    NppStreamContext ctx = makeContext(s);
    cudaimage_bench::EventTimer timer(s);
    for (const Cell& c : cells)
    {
        const size_t pitch = ((size_t)W * c.cn * c.depthBytes + 511) / 512 * 512, bytes = pitch * H;
        unsigned char *src = nullptr, *dst = nullptr;
        CHECK_CUDA(cudaMalloc(&src, bytes)); CHECK_CUDA(cudaMalloc(&dst, bytes));
        if (c.depthBytes == 4) // finite floats in [0, 255], never constant
            fillRandomFloat<<<4096, 256, 0, s>>>(reinterpret_cast<float*>(src), bytes / 4, 1234u);
        else
            fillRandom<<<4096, 256, 0, s>>>(src, bytes, 1234u);
        CHECK_CUDA(cudaStreamSynchronize(s));
        for (double sigma : cudaimage_bench::kTableSigmas)
        {
            const int k = cudaimage_bench::tableKsize(sigma);
            std::vector<float> taps(k);
            double sum = 0;
            for (int i = 0; i < k; i++) { taps[i] = (float)std::exp(-(i - k / 2) * (i - k / 2) / (2 * sigma * sigma)); sum += taps[i]; }
            for (float& t : taps) t = (float)(t / sum);
            float* dTaps = nullptr;
            CHECK_CUDA(cudaMalloc(&dTaps, k * sizeof(float)));
            CHECK_CUDA(cudaMemcpy(dTaps, taps.data(), k * sizeof(float), cudaMemcpyHostToDevice));
            NppiSize size = {W, H};
            NppiPoint origin = {0, 0};
            NppStatus st = NPP_SUCCESS;
            auto run = [&]() {
                const int step = (int)pitch;
                if (c.depthBytes == 1 && c.cn == 1)
                    st = nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(src, step, size, origin, dst, step, size, k, dTaps, NPP_BORDER_REPLICATE, ctx);
                else if (c.depthBytes == 1 && c.cn == 3)
                    st = nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(src, step, size, origin, dst, step, size, k, dTaps, NPP_BORDER_REPLICATE, ctx);
                else if (c.depthBytes == 1 && c.cn == 4)
                    st = nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(src, step, size, origin, dst, step, size, k, dTaps, NPP_BORDER_REPLICATE, ctx);
                else if (c.depthBytes == 2)
                    st = nppiFilterGaussAdvancedBorder_16u_C1R_Ctx((const Npp16u*)src, step, size, origin, (Npp16u*)dst, step, size, k, dTaps, NPP_BORDER_REPLICATE, ctx);
                else
                    st = nppiFilterGaussAdvancedBorder_32f_C1R_Ctx((const Npp32f*)src, step, size, origin, (Npp32f*)dst, step, size, k, dTaps, NPP_BORDER_REPLICATE, ctx);
            };
            // The first call (also a warm-up) sizes the repetitions: NPP takes seconds per call at
            // large sigma, and the whole table has to fit in one run.
            const auto t0 = std::chrono::steady_clock::now();
            run();
            CHECK_CUDA(cudaStreamSynchronize(s));
            const double firstMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            const int reps = firstMs > 1000 ? 1 : firstMs > 100 ? 3 : (k > 61 ? 5 : 20);
            const int warmup = firstMs > 100 ? 0 : 3;
            if (st != NPP_SUCCESS)
                printf("{\"peer\": \"npp\", \"type\": \"%s\", \"sigma\": %g, \"ksize\": %d, \"width\": %d, \"height\": %d, \"error\": \"NppStatus %d\"}\n", c.type, sigma, k, W, H, (int)st);
            else
            {
                const double ms = timer.median(run, reps, warmup);
                printf("{\"peer\": \"npp\", \"type\": \"%s\", \"sigma\": %g, \"ksize\": %d, \"width\": %d, \"height\": %d, \"ms\": %.5f, \"reps\": %d}\n", c.type, sigma, k, W, H, ms, reps);
            }
            fflush(stdout);
            CHECK_CUDA(cudaFree(dTaps));
        }
        CHECK_CUDA(cudaFree(src)); CHECK_CUDA(cudaFree(dst));
    }
    return 0;
}
