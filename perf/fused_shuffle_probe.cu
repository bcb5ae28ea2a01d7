// Probe for the small-sigma lever of perf/NOTES.md 4.8: the fused 8UC1 blur with its vertical sums
// kept in registers and its horizontal pass fed by warp shuffles, so that a block has no shared
// memory and no barrier (the library's fused kernel, src/paths/fused, stages the vertical sums in
// shared memory between two barriers). Same arithmetic as the library: vertical sums by DP4A on
// 4x4-transposed bytes against phase-shifted tap words, out of the 2^23 float bits by one FADD;
// horizontal in FP32 with the taps scaled by 2^-16 (exact); one round-down FADD against 2^23.
//
// SHFL issues at a quarter of the FFMA rate on sm_90 and is the cost that grows with the radius
// (perf/NOTES.md 4.8), so the probe measures ways to need fewer per output: 4 or 8 columns per lane
// (8: half the shuffles per output, one halo lane a side up to radius 8), and one or two vertical
// sums per shuffle (each sum is below 2^16, so a pair travels as the low half-words of their biased
// float bits: 2 ceil(R / 2) shuffles per row instead of 2R, with a PRMT to pack and a PRMT and an
// FADD to unpack each neighbour); strips of 8 and 16 rows for 4 columns, 4 and 8 rows for 8.
//
// Standalone (CUDA only, no OpenCV); measures radius 1..8, every way, on a WxW 8UC1
// image against a device-to-device copy of the same bytes, after checking every output of three
// odd-sized images and a sample of the large one against an integer CPU reference
// (BORDER_REPLICATE, taps of 8 fraction bits as the CPU's 8U fixed point uses):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v perf/fused_shuffle_probe.cu -o fused_shuffle_probe
//   ./fused_shuffle_probe [--size 16384] [--reps 20]
//
// Compare its ms with `gaussian_bench --ours-only --sweep-types 8UC1` in the same call (the
// library's fused kernel at radius 1..8). Exit status 1 if any output differs from the reference.
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include "../src/cuda/dp4a_column_sums.cuh"   // the library's DP4A vertical sums (no OpenCV needed)

using cv::cuda::gaussian::fused::dp4aColumnSums;
using cv::cuda::gaussian::fused::kDp4aBias;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(2); } } while (0)

constexpr int kWarps = 4;   // warps per block: each takes its own column tile

struct Taps
{
    uint32_t vw[4][5];      // vertical tap words, vw[ph][q] byte b = tv[4q + b - ph] (0 outside)
    float h[17];            // horizontal taps x 2^-16
};

// Lanes of halo on each side of a warp's tile, a lane holding `cols` columns (4 or 8).
__host__ __device__ constexpr int haloLanes(int r, int cols) { return (r + cols - 1) / cols; }
// Output columns of one warp.
__host__ __device__ constexpr int warpOutputs(int r, int cols) { return cols * (32 - 2 * haloLanes(r, cols)); }

// A source word that leaves the image: its columns clamped (BORDER_REPLICATE). Out of line, as the
// library's edge loads are, so that the unrolled interior path stays small in the instruction cache.
__device__ __noinline__ uint32_t loadWordClamped(const uint8_t* row, int x, int width)
{
    uint32_t w = 0;
    for (int b = 0; b < 4; b++)
        w |= static_cast<uint32_t>(__ldg(row + ::min(::max(x + b, 0), width - 1))) << (8 * b);
    return w;
}

// The part of an output word inside the image (the right edge, or a row pitch not a multiple of 4).
__device__ __noinline__ void storeWordPartial(uint8_t* out, uint32_t word, int x, int width)
{
    for (int c = 0; c < 4 && x + c < width; c++)
        out[c] = static_cast<uint8_t>(word >> (8 * c));
}

// A lane's kWords source words (4 columns each, from x) of a row: one 4- or 8-byte load inside.
template <int kWords>
__device__ __forceinline__ void loadWords(const uint8_t* row, int x, int width, bool inside, uint32_t (&w)[kWords])
{
    if (inside && kWords == 2)
    {
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(row + x));
        w[0] = v.x;
        w[kWords - 1] = v.y;
    }
    else if (inside)
        w[0] = __ldg(reinterpret_cast<const uint32_t*>(row + x));
    else
#pragma unroll
        for (int i = 0; i < kWords; i++)
            w[i] = loadWordClamped(row, x + 4 * i, width);
}

// A vertical sum out of its 2^23-biased float bits, given as the half-word `half` of a packed word.
__device__ __forceinline__ float unpackSum(uint32_t packed, int half)
{
    return __uint_as_float(__byte_perm(packed, kDp4aBias, half ? 0x7632 : 0x7610)) - 8388608.0f;
}

// kCols: columns per lane (4: one source word; 8: two, half the shuffles per output and one halo
// lane a side up to radius 8). Packed: a neighbour's vertical sums travel two to a shuffle (each
// below 2^16: the low half-word of its biased float bits is the exact sum), so a row takes
// 2 ceil(R / 2) shuffles instead of 2R.
template <int R, int S, int kCols, bool Packed>
__global__ void __launch_bounds__(32 * kWarps) shuffleBlur(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst,
                                                         int width, int height, size_t pitch, const Taps taps)
{
    constexpr int kWords = kCols / 4;
    constexpr int H = haloLanes(R, kCols);
    constexpr int kGroups = (S + 2 * R + 3) / 4;
    const int lane = threadIdx.x & 31;
    const int tile = blockIdx.x * kWarps + (threadIdx.x >> 5);
    const int x0 = tile * warpOutputs(R, kCols) - kCols * H;   // first column this warp loads
    if (x0 + kCols * H >= width)
        return;                                            // a whole warp past the image: no shuffles to serve
    const int x = x0 + kCols * lane;
    const bool inside = x >= 0 && x + kCols <= width && pitch % kCols == 0;
    const bool outputs = lane >= H && lane < 32 - H && x < width;

    for (int y0 = blockIdx.y * S; y0 < height; y0 += gridDim.y * S)
    {
        uint32_t w[kWords][4 * kGroups];
#pragma unroll
        for (int j = 0; j < 4 * kGroups; j++)
        {
            const int y = ::min(::max(y0 - R + j, 0), height - 1);
            uint32_t row[kWords] = {};
            if (j < S + 2 * R)
                loadWords<kWords>(src + static_cast<size_t>(y) * pitch, x, width, inside, row);
#pragma unroll
            for (int i = 0; i < kWords; i++)
                w[i][j] = row[i];
        }
        uint32_t acc[kWords][S][4];
#pragma unroll
        for (int i = 0; i < kWords; i++)
        {
#pragma unroll
            for (int v = 0; v < S; v++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[i][v][c] = kDp4aBias;              // acc reads as the float 2^23 + sum
            dp4aColumnSums<S, R>(w[i], taps.vw, acc[i]);
        }
#pragma unroll
        for (int v = 0; v < S; v++)
        {
            const int y = y0 + v;
            float f[kCols];
            uint32_t pair[kCols / 2];                      // packed: columns (2p, 2p + 1)
#pragma unroll
            for (int e = 0; e < kCols; e++)
                f[e] = __uint_as_float(acc[e / 4][v][e % 4]) - 8388608.0f;
#pragma unroll
            for (int p = 0; p < kCols / 2; p++)
                pair[p] = __byte_perm(acc[p / 2][v][2 * (p % 2)], acc[p / 2][v][2 * (p % 2) + 1], 0x5410);
            // win[R + d] is column x + d, d = -R .. kCols - 1 + R: lane + floor(d / kCols)'s column
            // d mod kCols. Packed: a pair is shuffled where the window enters it (an even column, or
            // the window's first), its second column reuses it.
            float win[kCols + 2 * R];
            uint32_t got = 0;
#pragma unroll
            for (int d = -R; d < kCols + R; d++)
            {
                const int e = ((d % kCols) + kCols) % kCols;
                const int lanes = d < 0 ? (kCols - 1 - d) / kCols : d / kCols;
                if (d >= 0 && d < kCols)
                    win[R + d] = f[d];
                else if (!Packed)
                    win[R + d] = d < 0 ? __shfl_up_sync(0xffffffffu, f[e], lanes) : __shfl_down_sync(0xffffffffu, f[e], lanes);
                else
                {
                    if (d == -R || (e & 1) == 0)
                        got = d < 0 ? __shfl_up_sync(0xffffffffu, pair[e >> 1], lanes)
                                    : __shfl_down_sync(0xffffffffu, pair[e >> 1], lanes);
                    win[R + d] = unpackSum(got, e & 1);
                }
            }
            uint32_t word[kWords];
#pragma unroll
            for (int i = 0; i < kWords; i++)
            {
                word[i] = 0;
#pragma unroll
                for (int c = 0; c < 4; c++)
                {
                    float s = 0.5f;
#pragma unroll
                    for (int k = 0; k <= 2 * R; k++)
                        s = fmaf(taps.h[k], win[4 * i + c + k], s);
                    word[i] |= (__float_as_uint(__fadd_rd(s, 8388608.0f)) & 0xffu) << (8 * c);
                }
            }
            if (outputs && y < height)
            {
                uint8_t* out = dst + static_cast<size_t>(y) * pitch + x;
                if (inside && kWords == 2)
                    *reinterpret_cast<uint2*>(out) = make_uint2(word[0], word[kWords - 1]);
                else if (inside)
                    *reinterpret_cast<uint32_t*>(out) = word[0];
                else
#pragma unroll
                    for (int i = 0; i < kWords; i++)
                        storeWordPartial(out + 4 * i, word[i], x + 4 * i, width);
            }
        }
    }
}

// ---- host ---------------------------------------------------------------------------------------

// Integer taps of 8 fraction bits summing to 256 (a rounded Gaussian, the centre taking the rest).
static std::vector<int> fixedTaps(int r)
{
    const double sigma = std::max(0.3, r / 3.0);
    std::vector<double> g(2 * r + 1);
    double sum = 0;
    for (int k = -r; k <= r; k++)
        sum += g[k + r] = std::exp(-0.5 * k * k / (sigma * sigma));
    std::vector<int> t(2 * r + 1);
    int total = 0;
    for (int k = 0; k <= 2 * r; k++)
        total += t[k] = static_cast<int>(std::lround(256.0 * g[k] / sum));
    t[r] += 256 - total;
    return t;
}

static Taps packTaps(const std::vector<int>& tv, const std::vector<int>& th)
{
    Taps p{};
    const int n = static_cast<int>(tv.size());
    for (int ph = 0; ph < 4; ph++)
        for (int q = 0; q < 5; q++)
            for (int b = 0; b < 4; b++)
            {
                const int j = 4 * q + b - ph;
                if (j >= 0 && j < n)
                    p.vw[ph][q] |= static_cast<uint32_t>(tv[j]) << (8 * b);
            }
    for (int k = 0; k < static_cast<int>(th.size()); k++)
        p.h[k] = std::ldexp(static_cast<float>(th[k]), -16);
    return p;
}

static uint8_t reference(const std::vector<uint8_t>& img, int w, int h, size_t pitch, const std::vector<int>& t, int x, int y)
{
    const int r = static_cast<int>(t.size()) / 2;
    int64_t s = 0;
    for (int j = -r; j <= r; j++)
    {
        const uint8_t* row = img.data() + static_cast<size_t>(std::min(std::max(y + j, 0), h - 1)) * pitch;
        int64_t rowSum = 0;
        for (int k = -r; k <= r; k++)
            rowSum += t[k + r] * row[std::min(std::max(x + k, 0), w - 1)];
        s += t[j + r] * rowSum;
    }
    return static_cast<uint8_t>((s + 32768) >> 16);
}

template <int R, int S, int kCols, bool Packed>
static void launch(const uint8_t* src, uint8_t* dst, int w, int h, size_t pitch, const Taps& taps, cudaStream_t st)
{
    const int tiles = (w + warpOutputs(R, kCols) - 1) / warpOutputs(R, kCols);
    const dim3 grid((tiles + kWarps - 1) / kWarps, std::min((h + S - 1) / S, 65535));
    shuffleBlur<R, S, kCols, Packed><<<grid, 32 * kWarps, 0, st>>>(src, dst, w, h, pitch, taps);
}

typedef void (*LaunchFn)(const uint8_t*, uint8_t*, int, int, size_t, const Taps&, cudaStream_t);

// The ways measured: columns per lane, rows per strip, sums per shuffle. Eight columns keep 4- and
// 8-row strips (16 rows of two words would pass 128 registers).
struct Variant
{
    int cols, rows;
    bool packed;
};
static const Variant kVariants[] = {{4, 8, false}, {4, 8, true}, {4, 16, false}, {4, 16, true},
                                    {8, 4, false}, {8, 4, true}, {8, 8, false}, {8, 8, true}};

template <int R> static LaunchFn pick(const Variant& v)
{
    if (v.cols == 4 && v.rows == 8)
        return v.packed ? launch<R, 8, 4, true> : launch<R, 8, 4, false>;
    if (v.cols == 4)
        return v.packed ? launch<R, 16, 4, true> : launch<R, 16, 4, false>;
    if (v.rows == 4)
        return v.packed ? launch<R, 4, 8, true> : launch<R, 4, 8, false>;
    return v.packed ? launch<R, 8, 8, true> : launch<R, 8, 8, false>;
}
static LaunchFn launcher(int r, const Variant& v)
{
    switch (r)
    {
    case 1: return pick<1>(v); case 2: return pick<2>(v); case 3: return pick<3>(v); case 4: return pick<4>(v);
    case 5: return pick<5>(v); case 6: return pick<6>(v); case 7: return pick<7>(v); default: return pick<8>(v);
    }
}

// The median ms of reps calls of work (on the default stream, CUDA events), after 3 untimed ones.
template <class F>
static double medianMs(F work, int reps)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int i = 0; i < reps + 3; i++)
    {
        CHECK(cudaEventRecord(a));
        work();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= 3)
            times.push_back(t);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Runs the probe on a w x h image; checks every output (sample > 0: that many random ones and the
// border rows and columns) and returns the median ms of reps calls (0 when reps is 0).
static double run(int w, int h, int r, const Variant& var, int reps, long sample, bool& exact)
{
    const size_t pitch = (static_cast<size_t>(w) + 3) & ~size_t(3);
    std::vector<uint8_t> img(pitch * h);
    std::mt19937 gen(1234 + w + r);
    for (size_t i = 0; i + 4 <= img.size(); i += 4)
    {
        const uint32_t v = gen();
        std::memcpy(&img[i], &v, 4);
    }
    const std::vector<int> t = fixedTaps(r);
    const Taps taps = packTaps(t, t);
    uint8_t *dSrc, *dDst;
    CHECK(cudaMalloc(&dSrc, img.size()));
    CHECK(cudaMalloc(&dDst, img.size()));
    CHECK(cudaMemcpy(dSrc, img.data(), img.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dDst, 0xA5, img.size()));
    const LaunchFn fn = launcher(r, var);
    fn(dSrc, dDst, w, h, pitch, taps, 0);
    CHECK(cudaGetLastError());
    std::vector<uint8_t> out(img.size());
    CHECK(cudaMemcpy(out.data(), dDst, out.size(), cudaMemcpyDeviceToHost));
    long bad = 0;
    auto check = [&](int x, int y) {
        if (out[static_cast<size_t>(y) * pitch + x] != reference(img, w, h, pitch, t, x, y) && bad++ < 5)
            std::printf("  differs: %dx%d r=%d cols=%d rows=%d%s at (%d, %d): %d, reference %d\n", w, h, r, var.cols, var.rows,
                        var.packed ? " packed" : "", x, y,
                        out[static_cast<size_t>(y) * pitch + x], reference(img, w, h, pitch, t, x, y));
    };
    if (sample == 0)
    {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                check(x, y);
    }
    else
    {
        for (long i = 0; i < sample; i++)
            check(static_cast<int>(gen() % w), static_cast<int>(gen() % h));
        for (int x = 0; x < w; x += 7) { check(x, 0); check(x, h - 1); }
        for (int y = 0; y < h; y += 7) { check(0, y); check(w - 1, y); }
    }
    exact = exact && bad == 0;
    const double ms = reps > 0 ? medianMs([&] { fn(dSrc, dDst, w, h, pitch, taps, 0); }, reps) : 0.0;
    CHECK(cudaFree(dSrc));
    CHECK(cudaFree(dDst));
    return ms;
}

static double copyMs(size_t bytes, int reps)
{
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 0x5A, bytes));
    const double ms = medianMs([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, reps);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return ms;
}

int main(int argc, char** argv)
{
    int size = 16384, reps = 20;
    for (int i = 1; i < argc; i++)
    {
        const std::string a = argv[i];
        if ((a == "--size" || a == "--reps") && i + 1 < argc)
            (a == "--size" ? size : reps) = std::atoi(argv[++i]);
        else
        {
            std::fprintf(stderr, "usage: %s [--size N] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    if (size < 64 || reps < 1)
    {
        std::fprintf(stderr, "--size is at least 64 and --reps at least 1\n");
        return 2;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    bool exact = true;
    // Every output of odd sizes (tiles cut by the right edge, a narrow image, a short one).
    const int sizes[][2] = {{997, 1013}, {37, 113}, {1920, 5}, {1018, 67}};   // the last: a pitch of 4 mod 8
    for (int r = 1; r <= 8; r++)
        for (const Variant& v : kVariants)
            for (const auto& s : sizes)
                run(s[0], s[1], r, v, 0, 0, exact);
    std::printf("exactness, every output of 997x1013, 37x113, 1920x5, 1018x67, radius 1..8, every way measured: %s\n",
                exact ? "identical to the reference" : "DIFFERS");
    const double copy = copyMs(static_cast<size_t>(size) * size, reps);
    std::printf("%s, %dx%d 8UC1, BORDER_REPLICATE, median of %d calls; copy %.3f ms (%.0f GB/s)\n", prop.name, size, size,
                reps, copy, 2.0 * size * size / copy / 1e6);
    std::printf("| radius | columns per lane | rows | sums per shuffle | ms | %% of copy |\n|---|---|---|---|---|---|\n");
    for (int r = 1; r <= 8; r++)
        for (const Variant& v : kVariants)
        {
            const double ms = run(size, size, r, v, reps, 1000000, exact);
            std::printf("| %d | %d | %d | %d | %.3f | %.1f %% |\n", r, v.cols, v.rows, v.packed ? 2 : 1, ms, 100.0 * copy / ms);
        }
    std::printf("exactness, 10^6 random outputs and the border rows and columns of each large image: %s\n",
                exact ? "identical" : "DIFFERS");
    return exact ? 0 : 1;
}
