// Probe for the tensor-core horizontal pass (the performance issue's large-sigma lever), before it
// goes into the kernels: is it exact, and how much faster than the FP32 pass it would replace?
//
// The 8U large-radius kernel's horizontal pass computes, per row, out[x] = sum_k t[k] * v[x + k - R]
// with v < 2^16 (the vertical sums) and t 8-bit taps summing to 256, then (out + 2^15) >> 16.
// Here the same sum runs on the tensor cores, exactly: v = 256 hi + lo, so
// out = 256 (T * hi) + (T * lo), two u8 x u8 -> s32 products (mma.m16n8k32) against a banded
// Toeplitz tap matrix T: A = T (16 outputs x 32 inputs of a chunk), B = 32 inputs x 8 image rows
// from shared memory, D = 16 outputs x 8 rows. The taps' A fragments are the same for every tile
// and stay in registers; per 16 outputs x 8 rows a warp issues 2 * ceil((2R' + 16) / 32) MMAs
// (R' = R rounded up to 4) instead of 128 * (2R + 1) FFMAs.
//
//   imma_probe [--size N]    (default 16384; a square 16-bit image of random vertical sums)
//
// Prints: the fragment-layout self-test (one MMA against a CPU product), then per radius the
// IMMA pass and the FP32 pass (same tiles, same shared-memory staging, 8 outputs per thread with
// the taps as floats) in ms, both checked bit for bit against a CPU reference on 64 rows, and
// a 16-bit-in/8-bit-out copy of the same image for scale. Build:
//   nvcc -O3 -std=c++17 -arch=sm_90 perf/imma_probe.cu -o imma_probe
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

namespace {

constexpr int kRowsPerBlock = 16;     // two groups of 8 rows (the MMA's N)
constexpr int kOutPerBlock = 256;     // outputs per row per block: 4 warps x 64
constexpr int kThreads = 128;
constexpr int kMaxR = 128;
constexpr int kMaxChunks = (2 * kMaxR + 16 + 31) / 32;

__device__ __forceinline__ void mmaU8(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Self-test of the fragment layout: D = A (16x32, row-major bytes) * B (32x8, B[k][n] at k + 32 n).
__global__ void layoutTest(const uint8_t* A, const uint8_t* B, int* D)
{
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t a[4];
    a[0] = *reinterpret_cast<const uint32_t*>(A + g * 32 + 4 * t);
    a[1] = *reinterpret_cast<const uint32_t*>(A + (g + 8) * 32 + 4 * t);
    a[2] = *reinterpret_cast<const uint32_t*>(A + g * 32 + 16 + 4 * t);
    a[3] = *reinterpret_cast<const uint32_t*>(A + (g + 8) * 32 + 16 + 4 * t);
    const uint32_t b0 = *reinterpret_cast<const uint32_t*>(B + g * 32 + 4 * t);
    const uint32_t b1 = *reinterpret_cast<const uint32_t*>(B + g * 32 + 16 + 4 * t);
    int d[4] = {0, 0, 0, 0};
    mmaU8(d, a, b0, b1);
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

struct Taps
{
    int r = 0, rp = 0, chunks = 0;    // radius, radius rounded up to 4, K chunks per 16 outputs
    uint8_t t[2 * kMaxR + 1] = {};    // centred taps t[0..2r]
    float tf[2 * kMaxR + 1] = {};     // the same * 2^-16 (the FP32 pass)
    uint32_t a[kMaxChunks][32][4] = {}; // per chunk and lane: the A fragment of the Toeplitz taps
};

// Shared staging of one block: 16 rows x (256 + 2R' + slack) elements, row stride 16 bytes off a
// multiple of 128 (conflict-free 4-byte fragment loads: 8 rows x 4 consecutive words).
// (the last group of 16 outputs reads up to column 240 + 32 chunks - 1).
__host__ __device__ constexpr int rowBytes(int chunks) { return ((kOutPerBlock - 16 + chunks * 32 + 127) / 128) * 128 + 16; }

__global__ void __launch_bounds__(kThreads) immaPass(const uint16_t* __restrict__ v, size_t vStep, uint8_t* __restrict__ out, size_t outStep,
                                                     int width, int height, const __grid_constant__ Taps taps)
{
    extern __shared__ __align__(16) uint8_t smem[];
    const int rp = taps.rp, chunks = taps.chunks, stride = rowBytes(chunks);
    uint8_t* hi = smem;
    uint8_t* lo = smem + kRowsPerBlock * stride;
    const int y0 = blockIdx.y * kRowsPerBlock;
    const int xo = rp + blockIdx.x * kOutPerBlock;      // first output of the block
    const int xi = xo - rp;                              // first input
    const int span = kOutPerBlock + 2 * rp;
    // stage: 16-bit sums split into byte planes (zeros past the image)
    for (int i = threadIdx.x; i < kRowsPerBlock * stride; i += kThreads)
    {
        const int row = i / stride, col = i % stride, x = xi + col, y = y0 + row;
        uint16_t s = 0;
        if (col < span && x < width && y < height)
            s = v[static_cast<size_t>(y) * vStep + x];
        hi[i] = static_cast<uint8_t>(s >> 8);
        lo[i] = static_cast<uint8_t>(s & 255);
    }
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    uint32_t a[kMaxChunks][4];
#pragma unroll
    for (int c = 0; c < kMaxChunks; c++)
        if (c < chunks)
#pragma unroll
            for (int q = 0; q < 4; q++)
                a[c][q] = taps.a[c][lane][q];
    for (int m = 0; m < 4; m++)               // 4 groups of 16 outputs per warp
    {
        const int o0 = warp * 64 + m * 16;    // output offset in the block
        for (int n = 0; n < 2; n++)           // 2 groups of 8 rows
        {
            int dh[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
            const int base = (n * 8 + g) * stride + o0 + 4 * t;
#pragma unroll
            for (int c = 0; c < kMaxChunks; c++)
                if (c < chunks)
                {
                    const uint32_t h0 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c);
                    const uint32_t h1 = *reinterpret_cast<const uint32_t*>(hi + base + 32 * c + 16);
                    const uint32_t l0 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c);
                    const uint32_t l1 = *reinterpret_cast<const uint32_t*>(lo + base + 32 * c + 16);
                    mmaU8(dh, a[c], h0, h1);
                    mmaU8(dl, a[c], l0, l1);
                }
            // d[0], d[1]: output o0 + g, rows 2t, 2t + 1; d[2], d[3]: output o0 + g + 8
#pragma unroll
            for (int q = 0; q < 4; q++)
            {
                const int x = xo + o0 + g + (q >= 2 ? 8 : 0), y = y0 + n * 8 + 2 * t + (q & 1);
                const uint32_t s = static_cast<uint32_t>(dh[q]) * 256u + static_cast<uint32_t>(dl[q]);
                if (x < width - taps.r && y < height)
                    out[static_cast<size_t>(y) * outStep + x] = static_cast<uint8_t>((s + 32768u) >> 16);
            }
        }
    }
}

// The FP32 pass on the same tiles: 8 consecutive outputs per thread, taps * 2^-16 as floats
// (exact: every partial sum is a multiple of 2^-16 below 256), rounding by the 2^23 trick.
__global__ void __launch_bounds__(kThreads) ffmaPass(const uint16_t* __restrict__ v, size_t vStep, uint8_t* __restrict__ out, size_t outStep,
                                                     int width, int height, const __grid_constant__ Taps taps)
{
    extern __shared__ __align__(16) float fsm[];
    const int rp = taps.rp, r = taps.r;
    const int stride = kOutPerBlock + 2 * rp + 4;
    const int y0 = blockIdx.y * kRowsPerBlock;
    const int xo = rp + blockIdx.x * kOutPerBlock, xi = xo - rp;
    for (int i = threadIdx.x; i < kRowsPerBlock * stride; i += kThreads)
    {
        const int row = i / stride, col = i % stride, x = xi + col, y = y0 + row;
        fsm[i] = (x < width && y < height && col < kOutPerBlock + 2 * rp) ? static_cast<float>(v[static_cast<size_t>(y) * vStep + x]) : 0.f;
    }
    __syncthreads();
    // 16 rows x 256 outputs = 512 items of 8 outputs; 4 per thread
    for (int it = threadIdx.x; it < kRowsPerBlock * kOutPerBlock / 8; it += kThreads)
    {
        const int row = it % kRowsPerBlock, o0 = (it / kRowsPerBlock) * 8;
        const float* s = fsm + row * stride + o0 + rp - r;
        float acc[8];
#pragma unroll
        for (int i = 0; i < 8; i++) acc[i] = 0.f;
        for (int k = 0; k <= 2 * r; k++)
        {
            const float tk = taps.tf[k];
#pragma unroll
            for (int i = 0; i < 8; i++) acc[i] = fmaf(tk, s[k + i], acc[i]);
        }
        const int y = y0 + row;
#pragma unroll
        for (int i = 0; i < 8; i++)
        {
            const int x = xo + o0 + i;
            // acc = sum * 2^-16 exactly; + 1/2 is exact too (24 significant bits), floor rounds
            if (x < width - r && y < height)
                out[static_cast<size_t>(y) * outStep + x] = static_cast<uint8_t>(floorf(acc[i] + 0.5f));
        }
    }
}

__global__ void copy16to8(const uint16_t* __restrict__ v, size_t vStep, uint8_t* __restrict__ out, size_t outStep, int width, int height)
{
    const int y = blockIdx.y;
    for (int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4; x < width; x += gridDim.x * blockDim.x * 4)
    {
        const ushort4 s = *reinterpret_cast<const ushort4*>(v + static_cast<size_t>(y) * vStep + x);
        *reinterpret_cast<uchar4*>(out + static_cast<size_t>(y) * outStep + x) =
            make_uchar4(s.x >> 8, s.y >> 8, s.z >> 8, s.w >> 8);
    }
}

Taps makeTaps(double sigma)
{
    Taps T;
    T.r = static_cast<int>(std::lround(3 * sigma));
    T.rp = (T.r + 3) / 4 * 4;
    T.chunks = (2 * T.rp + 16 + 31) / 32;
    std::vector<double> g(2 * T.r + 1);
    double sum = 0;
    for (int k = -T.r; k <= T.r; k++) sum += g[k + T.r] = std::exp(-k * k / (2 * sigma * sigma));
    int isum = 0;
    for (int k = 0; k <= 2 * T.r; k++) isum += T.t[k] = static_cast<uint8_t>(std::lround(256 * g[k] / sum));
    T.t[T.r] = static_cast<uint8_t>(T.t[T.r] + (256 - isum));
    for (int k = 0; k <= 2 * T.r; k++) T.tf[k] = T.t[k] / 65536.f;
    // Toeplitz chunk c: A[i][kk] = tp[32c + kk - i], tp = taps padded to radius rp (tp[j] = t[j - (rp - r)])
    auto tp = [&](int j) -> uint32_t { const int k = j - (T.rp - T.r); return (k >= 0 && k <= 2 * T.r) ? T.t[k] : 0; };
    for (int c = 0; c < T.chunks; c++)
        for (int lane = 0; lane < 32; lane++)
        {
            const int g8 = lane >> 2, t4 = lane & 3;
            for (int q = 0; q < 4; q++)
            {
                const int row = g8 + ((q & 1) ? 8 : 0), col0 = 4 * t4 + ((q & 2) ? 16 : 0);
                uint32_t w = 0;
                for (int b = 0; b < 4; b++) w |= tp(32 * c + col0 + b - row) << (8 * b);
                T.a[c][lane][q] = w;
            }
        }
    return T;
}

template <class F>
double medianMs(F run, int reps = 10)
{
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a)); CHECK_CUDA(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) run();
    std::vector<float> t;
    for (int i = 0; i < reps; i++)
    {
        CHECK_CUDA(cudaEventRecord(a)); run(); CHECK_CUDA(cudaEventRecord(b)); CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0; CHECK_CUDA(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
    }
    CHECK_CUDA(cudaEventDestroy(a)); CHECK_CUDA(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    int n = 16384;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--size") && i + 1 < argc) n = atoi(argv[++i]);
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("imma_probe on %s, %dx%d 16-bit sums -> 8-bit outputs\n", prop.name, n, n);

    // 1. fragment layout
    {
        std::mt19937 rng(7);
        std::vector<uint8_t> A(16 * 32), B(32 * 8);
        for (auto& x : A) x = rng() & 255;
        for (auto& x : B) x = rng() & 255;
        uint8_t *dA, *dB; int* dD;
        CHECK_CUDA(cudaMalloc(&dA, A.size())); CHECK_CUDA(cudaMalloc(&dB, B.size())); CHECK_CUDA(cudaMalloc(&dD, 128 * 4));
        CHECK_CUDA(cudaMemcpy(dA, A.data(), A.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dB, B.data(), B.size(), cudaMemcpyHostToDevice));
        layoutTest<<<1, 32>>>(dA, dB, dD);
        CHECK_CUDA(cudaGetLastError());
        std::vector<int> D(128);
        CHECK_CUDA(cudaMemcpy(D.data(), dD, 128 * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 8; j++)
            {
                int s = 0;
                for (int k = 0; k < 32; k++) s += A[i * 32 + k] * B[j * 32 + k];
                bad += s != D[i * 8 + j];
            }
        printf("fragment layout self-test: %s (%d of 128 wrong)\n", bad ? "FAIL" : "PASS", bad);
        cudaFree(dA); cudaFree(dB); cudaFree(dD);
        if (bad) return 1;
    }

    // 2. the passes
    std::vector<uint16_t> hv(static_cast<size_t>(n) * n);
    std::mt19937 rng(12345);
    for (auto& x : hv) x = static_cast<uint16_t>(rng() % 65281);   // vertical sums: <= 255 * 256
    uint16_t* dv; uint8_t *d1, *d2;
    CHECK_CUDA(cudaMalloc(&dv, hv.size() * 2));
    CHECK_CUDA(cudaMalloc(&d1, hv.size())); CHECK_CUDA(cudaMalloc(&d2, hv.size()));
    CHECK_CUDA(cudaMemcpy(dv, hv.data(), hv.size() * 2, cudaMemcpyHostToDevice));
    const double copyMs = medianMs([&] { copy16to8<<<dim3(8, n), 256>>>(dv, n, d1, n, n, n); });
    printf("copy 16-bit -> 8-bit: %.3f ms (%.0f GB/s)\n", copyMs, 3.0 * n * n / copyMs / 1e6);
    int status = 0;
    for (double sigma : {1.0, 2.0, 5.0, 10.0, 30.0})
    {
        const Taps T = makeTaps(sigma);
        const dim3 grid((n - 2 * T.rp + kOutPerBlock - 1) / kOutPerBlock, (n + kRowsPerBlock - 1) / kRowsPerBlock);
        const size_t smI = 2 * kRowsPerBlock * rowBytes(T.chunks);
        const size_t smF = kRowsPerBlock * (kOutPerBlock + 2 * T.rp + 4) * sizeof(float);
        CHECK_CUDA(cudaFuncSetAttribute(immaPass, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smI)));
        CHECK_CUDA(cudaFuncSetAttribute(ffmaPass, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smF)));
        CHECK_CUDA(cudaMemset(d1, 0, hv.size())); CHECK_CUDA(cudaMemset(d2, 0, hv.size()));
        const double im = medianMs([&] { immaPass<<<grid, kThreads, smI>>>(dv, n, d1, n, n, n, T); CHECK_CUDA(cudaGetLastError()); });
        const double fm = medianMs([&] { ffmaPass<<<grid, kThreads, smF>>>(dv, n, d2, n, n, n, T); CHECK_CUDA(cudaGetLastError()); });
        CHECK_CUDA(cudaDeviceSynchronize());
        // CPU reference on 64 rows spread over the image, outputs x in [r, n - r)
        std::vector<uint8_t> row1(n), row2(n);
        long long bad1 = 0, bad2 = 0, checked = 0;
        for (int s = 0; s < 64; s++)
        {
            const int y = static_cast<int>((static_cast<long long>(s) * 7919) % n);
            CHECK_CUDA(cudaMemcpy(row1.data(), d1 + static_cast<size_t>(y) * n, n, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(row2.data(), d2 + static_cast<size_t>(y) * n, n, cudaMemcpyDeviceToHost));
            const uint16_t* src = hv.data() + static_cast<size_t>(y) * n;
            for (int x = T.rp; x < n - T.rp; x++)
            {
                uint32_t acc = 0;
                for (int k = 0; k <= 2 * T.r; k++) acc += T.t[k] * static_cast<uint32_t>(src[x + k - T.r]);
                const uint8_t want = static_cast<uint8_t>((acc + 32768u) >> 16);
                bad1 += row1[x] != want;
                bad2 += row2[x] != want;
                checked++;
            }
        }
        const double gb = 3.0 * n * n / 1e6;
        printf("sigma %4.1f (R %3d, %d chunks): IMMA %.3f ms (%.0f GB/s, %.1f %% of the copy), FP32 %.3f ms (%.0f GB/s), IMMA %.2fx; "
               "exact vs CPU on %lld outputs: IMMA %s (%lld differ), FP32 %s (%lld differ)\n",
               sigma, T.r, T.chunks, im, gb / im, 100 * copyMs / im, fm, gb / fm, fm / im, checked,
               bad1 ? "FAIL" : "PASS", bad1, bad2 ? "FAIL" : "PASS", bad2);
        status |= bad1 != 0;
    }
    cudaFree(dv); cudaFree(d1); cudaFree(d2);
    return status;
}
