// Device helpers shared by the single-kernel Gaussian paths (src/paths/fused: radius <= 8 as a
// template parameter; src/paths/fused_large: larger radii at run time; src/paths/tensor_core): vector
// loads of four source elements with border mapping at the image edges, and the stores of one item
// of consecutive outputs. 8U's DP4A sums: dp4a_column_sums.cuh; depth types: gaussian_depth.cuh.
#ifndef CUDAIMAGE_CUDA_GAUSSIAN_FUSED_COMMON_CUH
#define CUDAIMAGE_CUDA_GAUSSIAN_FUSED_COMMON_CUH

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../cuda_check.hpp"
#include "checked_launch.cuh"
#include "../gaussian_tile.hpp"
#include "../gaussian_blur_call.hpp"
#include "border.hpp"
#include "dp4a_column_sums.cuh"
#include "gaussian_depth.cuh"

namespace cv { namespace cuda { namespace gaussian { namespace fused {

using tile::kPad;                 // Work elements after each shared row (conflict-free LDS.128)
using tile::roundUp;
constexpr int kMaxGridY = 65535;
constexpr int kMaxGridZ = 65535;   // images per batched launch (a batch of more takes several)

// ---- loads of 4 consecutive elements of one source row (whole-image element E..E+3) ----------
// Fast paths inline; whatever maps borders (the top and bottom strips, the left and right tiles)
// is out of line, so that the unrolled kernels stay small enough for the instruction cache.

// The row of whole-image row y after the column border, or null for a constant-border row.
static __device__ __noinline__ const unsigned char* mappedRow(const unsigned char* srcWhole, size_t step, int y, int height, int border)
{
    const int ys = mapBorder(y, height, border);
    return ys < 0 ? nullptr : srcWhole + static_cast<ptrdiff_t>(ys) * static_cast<ptrdiff_t>(step);
}

// Source row of whole-image row firstRow + j; `inside`: the caller checked that all rows of the
// strip are inside the image.
__device__ __forceinline__ const unsigned char* rowAt(const BlurCall& p, int firstRow, bool inside, int j)
{
    return inside ? p.srcWhole + static_cast<ptrdiff_t>(firstRow + j) * static_cast<ptrdiff_t>(p.srcStep)
                  : mappedRow(p.srcWhole, p.srcStep, firstRow + j, p.wholeHeight, p.columnBorder);
}

// Where elements E..E+3 of every source row lie after the row border: element offsets within a
// row, -1 for a constant border's zero. The same for every row, so a thread at a left or right
// edge maps its columns once per block, not once per row it loads.
struct EdgeColumns
{
    int offset[4];
};

static __device__ __noinline__ EdgeColumns mapEdgeColumns(int E, int Cn, int wholeWidth, int border)
{
    EdgeColumns c;
    for (int i = 0; i < 4; i++)
    {
        const int e = E + i;
        const int x = e >= 0 ? e / Cn : -((-e + Cn - 1) / Cn);
        int xs = x;
        if ((unsigned)x >= (unsigned)wholeWidth)
            xs = mapBorder(x, wholeWidth, border);
        c.offset[i] = xs < 0 ? -1 : xs * Cn + (e - x * Cn);
    }
    return c;
}

// The columns of a thread whose loads are not whole aligned vectors (`vec` false); unused otherwise.
__device__ __forceinline__ EdgeColumns edgeColumns(int E, bool vec, int Cn, int wholeWidth, int border)
{
    return vec ? EdgeColumns{{E, E + 1, E + 2, E + 3}} : mapEdgeColumns(E, Cn, wholeWidth, border);
}

static __device__ __noinline__ uint32_t loadWord8UEdge(const unsigned char* row, EdgeColumns cols)
{
    uint32_t w = 0;
    for (int i = 0; i < 4; i++)
        if (cols.offset[i] >= 0)
            w |= static_cast<uint32_t>(__ldg(row + cols.offset[i])) << (8 * i);
    return w;
}

// Four bytes as one word (byte i = element E+i); row null: zeros.
__device__ __forceinline__ uint32_t loadWord8U(const unsigned char* row, int E, bool vec, const EdgeColumns& cols)
{
    if (!row)
        return 0;
    if (vec)
        return __ldg(reinterpret_cast<const uint32_t*>(row + E));
    return loadWord8UEdge(row, cols);
}

template <class W> struct Four { W v[4]; };

template <class Src, class W>
__device__ __noinline__ Four<W> load4Edge(const Src* row, EdgeColumns cols)
{
    Four<W> f;
    for (int i = 0; i < 4; i++)
        f.v[i] = cols.offset[i] >= 0 ? W(row[cols.offset[i]]) : W(0);
    return f;
}

// Four elements E..E+3 of a row by vector loads (the caller knows they lie inside the row and are
// aligned: BlurCall::srcAligned4), converted to the working type.
template <int Depth, class W>
__device__ __forceinline__ void load4Vec(const typename DepthPolicy<Depth>::Src* row, int E, W (&x)[4])
{
    typedef typename DepthPolicy<Depth>::Src Src;
    constexpr int kBytes = DepthPolicy<Depth>::kElementBytes;
    static_assert(kBytes >= 2, "8U loads words of 4 bytes (dp4a_column_sums.cuh)");
    if constexpr (kBytes == 8)
    {
        const double2 a = __ldg(reinterpret_cast<const double2*>(row + E));
        const double2 b = __ldg(reinterpret_cast<const double2*>(row + E) + 1);
        x[0] = W(a.x); x[1] = W(a.y); x[2] = W(b.x); x[3] = W(b.y);
    }
    else if constexpr (kBytes == 4)
    {
        const float4 a = __ldg(reinterpret_cast<const float4*>(row + E));
        x[0] = W(a.x); x[1] = W(a.y); x[2] = W(a.z); x[3] = W(a.w);
    }
    else
    {
        const uint2 a = __ldg(reinterpret_cast<const uint2*>(row + E));
        Src s[4];
        memcpy(s, &a, sizeof(a));
#pragma unroll
        for (int i = 0; i < 4; i++)
            x[i] = W(s[i]);
    }
}

template <int Depth, class W>
__device__ __forceinline__ void load4(const unsigned char* rowBytes, int E, bool vec, const EdgeColumns& cols, W (&x)[4])
{
    typedef typename DepthPolicy<Depth>::Src Src;
    const Src* row = reinterpret_cast<const Src*>(rowBytes);
    if (!row)
    {
#pragma unroll
        for (int i = 0; i < 4; i++)
            x[i] = W(0);
        return;
    }
    if (vec)
    {
        load4Vec<Depth>(row, E, x);
        return;
    }
    const Four<W> f = load4Edge<Src, W>(row, cols);
#pragma unroll
    for (int i = 0; i < 4; i++)
        x[i] = f.v[i];
}

// Byte `byteIndex` (0: low, 1: high) of each of four values, as one word (byte c = value c): 3 PRMT.
__device__ __forceinline__ uint32_t packByte(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3, int byteIndex)
{
    const uint32_t sel = byteIndex ? 0x0051u : 0x0040u;
    return __byte_perm(__byte_perm(s0, s1, sel), __byte_perm(s2, s3, sel), 0x5410);
}

// ---- the vertical pass's accumulators and its results in shared memory --------------------------

template <int kRows, class T>
__device__ __forceinline__ void fillAcc(T (&acc)[kRows][4], T value)
{
#pragma unroll
    for (int v = 0; v < kRows; v++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            acc[v][c] = value;
}

// This thread's 4 columns of kRows vertical results into shared rows of kStride elements. 8U: the
// DP4A sums leave their float bias (2^23 + s - 2^23 = s, exact) and go out as one float4 per row.
template <int kStride, int kRows>
__device__ __forceinline__ void storeVertical(const uint32_t (&acc)[kRows][4], float* vert, int lane = threadIdx.x)
{
#pragma unroll
    for (int v = 0; v < kRows; v++)
    {
        float4 f;
        f.x = __uint_as_float(acc[v][0]) - 8388608.0f;
        f.y = __uint_as_float(acc[v][1]) - 8388608.0f;
        f.z = __uint_as_float(acc[v][2]) - 8388608.0f;
        f.w = __uint_as_float(acc[v][3]) - 8388608.0f;
        *reinterpret_cast<float4*>(vert + v * kStride + 4 * lane) = f;
    }
}

// The other depths: the sums (DepthPolicy::VerticalAcc) as working-type elements (16U: uint32 ->
// double, exact).
template <int kStride, int kRows, class A, class W>
__device__ __forceinline__ void storeVertical(const A (&acc)[kRows][4], W* vert, int lane = threadIdx.x)
{
#pragma unroll
    for (int v = 0; v < kRows; v++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            vert[v * kStride + 4 * lane + c] = static_cast<W>(acc[v][c]);
}

// The vertical taps of a tap set (FusedTapsF/D, FusedLargeTapsT) in the type of the vertical sums
// (DepthPolicy::VerticalAcc): the integer copy `vi` where the sums are integers (16U), else `v`.
template <class A, class T>
__device__ __forceinline__ const A* verticalTaps(const T& taps)
{
    if constexpr (std::is_same<A, uint32_t>::value)
        return taps.vi;
    else
        return taps.v;
}

// One 16-byte shared load: 4 floats or 2 doubles.
template <class W>
__device__ __forceinline__ void loadVec(const W* s, W* out)
{
    if (sizeof(W) == 4)
    {
        const float4 f = *reinterpret_cast<const float4*>(s);
        out[0] = W(f.x); out[1] = W(f.y); out[2] = W(f.z); out[3] = W(f.w);
    }
    else
    {
        const double2 d = *reinterpret_cast<const double2*>(s);
        out[0] = W(d.x); out[1] = W(d.y);
    }
}

// ---- the horizontal pass's items ---------------------------------------------------------------

// Item `it` of a strip's horizontal pass, numbered rows fastest (a quarter warp reads 8 different
// rows: with the shared row stride kPad off a multiple of 128 bytes, no bank conflicts): its row v
// in the strip, its chunk, its output row y and its first output element e0.
struct StripItem
{
    int v, chunk, y, e0;
    __device__ __forceinline__ StripItem(int it, int rows, int y0, int tileE0, int item)
        : v(it % rows), chunk(it / rows), y(y0 + v), e0(tileE0 + chunk * item) {}
    __device__ __forceinline__ bool inside(int height, int elements) const { return y < height && e0 < elements; }
};

// An item's accumulators at their start value (the rounding offset, or zero for float output).
template <int Depth, int N, class W>
__device__ __forceinline__ void initItem(W (&acc)[N], bool floatOutput)
{
    const W init = DepthPolicy<Depth>::workInit(floatOutput);
#pragma unroll
    for (int i = 0; i < N; i++)
        acc[i] = init;
}

// ---- stores of one item (kItem consecutive outputs of one row) --------------------------------

template <int Depth, int N, class W>
__device__ __forceinline__ void storeItem(const BlurCall& p, int y, int e0, const W (&acc)[N])
{
    typedef DepthPolicy<Depth> P;
    typedef typename P::Src Src;
    const int elements = p.width * p.channels;
    unsigned char* rowBytes = p.dst + static_cast<size_t>(y) * p.dstStep;
    const bool full = e0 + N <= elements;
    if (p.floatOutput)
    {
        float* out = reinterpret_cast<float*>(rowBytes) + e0;
        if (full && p.dstAligned16)
        {
#pragma unroll
            for (int i = 0; i < N; i += 4)
                *reinterpret_cast<float4*>(out + i) = make_float4(float(acc[i]), float(acc[i + 1]), float(acc[i + 2]), float(acc[i + 3]));
        }
        else
            for (int i = 0; i < N && e0 + i < elements; i++)
                out[i] = float(acc[i]);
        return;
    }
    Src v[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        v[i] = P::fromWork(acc[i]);
    Src* out = reinterpret_cast<Src*>(rowBytes) + e0;
    if (full && p.dstAligned16)
    {
        static_assert((N * P::kElementBytes) % 16 == 0, "items are whole 16-byte vectors");
#pragma unroll
        for (int i = 0; i < N; i += 16 / P::kElementBytes)
        {
            uint4 q;
            memcpy(&q, &v[i], 16);
            *reinterpret_cast<uint4*>(out + i) = q;
        }
    }
    else
        for (int i = 0; i < N && e0 + i < elements; i++)
            out[i] = v[i];
}

// 8U: pack the low bytes of four round-down sums into one word (3 PRMT), then 16-byte stores.
template <>
__device__ __forceinline__ void storeItem<CV_8U, 16, float>(const BlurCall& p, int y, int e0, const float (&acc)[16])
{
    const int elements = p.width * p.channels;
    unsigned char* rowBytes = p.dst + static_cast<size_t>(y) * p.dstStep;
    if (p.floatOutput)
    {
        float* out = reinterpret_cast<float*>(rowBytes) + e0;
        if (e0 + 16 <= elements && p.dstAligned16)
        {
#pragma unroll
            for (int i = 0; i < 16; i += 4)
                *reinterpret_cast<float4*>(out + i) = make_float4(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]);
        }
        else
            for (int i = 0; i < 16 && e0 + i < elements; i++)
                out[i] = acc[i];
        return;
    }
    uint32_t word[4];
#pragma unroll
    for (int q = 0; q < 4; q++)
    {
        const uint32_t b0 = DepthPolicy<CV_8U>::byteOf(acc[4 * q]), b1 = DepthPolicy<CV_8U>::byteOf(acc[4 * q + 1]);
        const uint32_t b2 = DepthPolicy<CV_8U>::byteOf(acc[4 * q + 2]), b3 = DepthPolicy<CV_8U>::byteOf(acc[4 * q + 3]);
        word[q] = packByte(b0, b1, b2, b3, 0);
    }
    uint8_t* out = rowBytes + e0;
    if (e0 + 16 <= elements && p.dstAligned16)
        *reinterpret_cast<uint4*>(out) = make_uint4(word[0], word[1], word[2], word[3]);
    else
        for (int i = 0; i < 16 && e0 + i < elements; i++)
            out[i] = static_cast<uint8_t>(word[i / 4] >> (8 * (i % 4)));
}

// More than 48 KB of dynamic shared memory needs an opt-in per kernel and device (once each; `mask`
// is the kernel's own set of devices done). The caller's path choice has checked `bytes` against the
// device's opt-in limit. The attribute is no stream work: set in relaxed capture mode, so that a
// filter's first call can be captured in a CUDA graph.
template <class Kernel>
void optInSharedMemory(Kernel kernel, size_t bytes, std::atomic<uint64_t>& mask)
{
    int device = 0;
    CUDAIMAGE_CHECK(cudaGetDevice(&device));
    const uint64_t bit = uint64_t(1) << (device & 63);
    if (mask.load(std::memory_order_relaxed) & bit)
        return;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CUDAIMAGE_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    CUDAIMAGE_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    CUDAIMAGE_CHECK(err);
    mask.fetch_or(bit);
}

// ---- host: the launchers' shared dispatch and tap packing -------------------------------------

// The CUDA-core kernels' grids (src/paths/fused, fused_large): tiles across by strips of `rows`
// rows. One image: `across` tiles of its row, its height. A batch (BatchLaunch): blockIdx.z the
// image, the grid covering the launch's widest and tallest image, one launch per kMaxGridZ images;
// `stripsPerBlock` > 1 where every block takes that many strips at once (the fused kernel's warp
// teams). Each kernel opts in once per device for the shared memory it asks for.
template <class Kernel, class... Args>
void launchStrips(const char* name, Kernel kernel, std::atomic<uint64_t>& optedIn, int threads, size_t smem, long long across,
                  int height, int rows, cudaStream_t stream, const Args&... args)
{
    optInSharedMemory(kernel, smem, optedIn);
    const dim3 grid(static_cast<unsigned>(across), ::min((height + rows - 1) / rows, kMaxGridY));
    launchChecked(name, kernel, grid, threads, smem, stream, args...);
}
template <class Kernel, class... Args>
void launchStrips(const char* name, Kernel kernel, std::atomic<uint64_t>& optedIn, int threads, size_t smem, const BatchLaunch& b,
                  int rows, int stripsPerBlock, cudaStream_t stream, const Args&... args)
{
    optInSharedMemory(kernel, smem, optedIn);
    const int strips = ::min(((b.maxHeight + rows - 1) / rows + stripsPerBlock - 1) / stripsPerBlock, kMaxGridY);
    for (int first = 0; first < b.count; first += kMaxGridZ)
        launchChecked(name, kernel, dim3(static_cast<unsigned>(b.blocksAcross), strips, ::min(b.count - first, kMaxGridZ)), threads,
                      smem, stream, b.items + first, args...);
}

// f(std::integral_constant<int, Cn>()) for 1 to 4 channels (f checks its launches).
template <class F>
void forChannels(int channels, F&& f)
{
    switch (channels)
    {
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    case 3: f(std::integral_constant<int, 3>()); break;
    case 4: f(std::integral_constant<int, 4>()); break;
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported channel count %d", channels));
    }
}

// f(std::integral_constant<int, R>()) for a run-time radius kMin <= r <= kMax: the host's dispatch to
// kernels instantiated per radius.
template <int kMin, class F, int... I>
void forRadiusIn(int r, F& f, std::integer_sequence<int, I...>)
{
    (void)((r == kMin + I ? (f(std::integral_constant<int, kMin + I>()), true) : false) || ...);
}
template <int kMin, int kMax, class F>
void forRadius(int r, F&& f)
{
    if (r < kMin || r > kMax)
        CV_Error(Error::StsOutOfRange, cv::format("gaussian: radius %d outside the kernel instances %d..%d", r, kMin, kMax));
    forRadiusIn<kMin>(r, f, std::make_integer_sequence<int, kMax - kMin + 1>());
}

// The float or the double half of a pair of tap sets, by a depth's working type W.
template <class W> struct WorkTaps;
template <> struct WorkTaps<float>
{ template <class TF, class TD> static TF& pick(TF& f, TD&) { return f; } };
template <> struct WorkTaps<double>
{ template <class TF, class TD> static TD& pick(TF&, TD& d) { return d; } };

}}}} // namespace cv::cuda::gaussian::fused

#endif
