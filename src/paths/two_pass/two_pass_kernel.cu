// Separable Gaussian blur in two passes through a scratch image; every depth, border and kernel
// size (no radius limit: taps are read from global memory, the radius is a run-time value).
//
//   source (whole image, ROI at roiX,roiY)      scratch: height + 2*ry rows        destination
//   row mapRow(roiY - ry + j) --pass 1 (x)-->   row j              --pass 2 (y)--> row y <- rows y..y+2ry
//
// Register blocking: a thread computes several outputs, sliding a register window over the taps,
// so each tap costs one multiply-add per output but few loads, and stores are vectors.
//
//   pass 1, thread: kOutputs consecutive elements of a row (window slides Cn elements per tap;
//           loads per output and tap: Cn/kOutputs; one or two 16-byte stores)
//   pass 2, thread: 4 consecutive elements x kOutputs consecutive rows (one vector load per row
//           and tap; loads per output: (kOutputs + 2ry) / kOutputs / 4)
//
// Arithmetic: gaussian_depth.cuh (two-pass types and rounding). Invariants: 64-bit row offsets; rows beyond 65535 are covered
// by grid-stride loops in y; the last group of a row / rows of a column stores only what exists.
//
// Memory of one call, one stream-ordered allocation (stream_scratch.hpp), nothing kept between calls:
//
//   [ taps x | taps y | one tap ]  (padded to 256 bytes)   [ scratch: height + 2*ry rows, pitch 256-aligned ]
//
// The taps reach it through a kernel parameter (copyTaps), so a call needs no host memory to outlive
// it, no upload to wait for and no synchronisation; under graph capture: kernel and memory nodes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"
#include "../../cuda_check.hpp"
#include "two_pass_path.hpp"
#include "../../cuda/border.hpp"
#include "../../cuda/checked_launch.cuh"
#include "../../cuda/gaussian_depth.cuh"
#include "../../cuda/gaussian_tap_packer.cuh"
#include "../../cuda/vec4.cuh"
#include "../../cuda/stream_scratch.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr int kBlock = 256;
constexpr int kOutputs = 8;     // outputs per thread in each pass
constexpr int kMaxGridY = 65535;

// Pass 1: horizontal taps, the row border as a type, the channel count as a constant. A thread
// owns kOutputs consecutive elements (pixel channels) e0 .. e0+kOutputs-1 of one scratch row; at
// tap k they need the kOutputs consecutive inputs starting at element e0 + (k - rx)*Cn, so the
// window slides by Cn elements per tap. The source row is mapped once per row, at run time.
template <int Depth, class Border, int Cn>
__global__ void __launch_bounds__(kBlock) rowPass(const TwoPassPlan p)
{
    typedef DepthPolicy<Depth> T;
    typedef typename T::RowAcc Acc;
    static_assert(kOutputs % 4 == 0 && kOutputs >= Cn, "a thread's outputs must cover whole vector stores");
    const int elements = p.width * Cn;
    const int e0 = (blockIdx.x * blockDim.x + threadIdx.x) * kOutputs;
    if (e0 >= elements)
        return;
    // Whole-image element index of the first window element, and the pixel range the window spans.
    const int E0 = p.roiX * Cn + e0 - p.rx * Cn;
    const int firstPixel = p.roiX + e0 / Cn - p.rx;
    const int lastPixel = p.roiX + (e0 + kOutputs - 1) / Cn + p.rx;
    const bool interior = firstPixel >= 0 && lastPixel < p.wholeWidth;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsX);

    for (int j = blockIdx.y; j < p.height + 2 * p.ry; j += gridDim.y)
    {
        typename T::Scratch* out = reinterpret_cast<typename T::Scratch*>(p.scratch + static_cast<size_t>(j) * p.scratchStep) + e0;
        const int srcY = mapBorder(p.roiY - p.ry + j, p.wholeHeight, p.columnBorder);
        Acc acc[kOutputs];
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
            acc[i] = 0;
        if (srcY >= 0)
        {
            const typename T::Src* src = reinterpret_cast<const typename T::Src*>(p.srcWhole + static_cast<size_t>(srcY) * p.srcStep);
            auto load = [&](int E) -> Acc {
                if (interior)
                    return static_cast<Acc>(src[E]);
                const int pixel = E >= 0 ? E / Cn : -((-E + Cn - 1) / Cn);  // floor(E / Cn)
                const int xs = Border::map(pixel, p.wholeWidth);
                return xs < 0 ? Acc(0) : static_cast<Acc>(src[xs * Cn + (E - pixel * Cn)]);
            };
            Acc w[kOutputs];
#pragma unroll
            for (int i = 0; i < kOutputs; i++)
                w[i] = load(E0 + i);
            for (int k = 0; k <= 2 * p.rx; k++)
            {
                const Acc tk = static_cast<Acc>(__ldg(taps + k));
#pragma unroll
                for (int i = 0; i < kOutputs; i++)
                    acc[i] += tk * w[i];
                if (k == 2 * p.rx)
                    break;
#pragma unroll
                for (int i = 0; i < kOutputs - Cn; i++)
                    w[i] = w[i + Cn];
#pragma unroll
                for (int m = 0; m < Cn; m++)
                    w[kOutputs - Cn + m] = load(E0 + (k + 1) * Cn + kOutputs - Cn + m);
            }
        }
        if (e0 + kOutputs <= elements)
        {
            // Scratch rows are ours: pitch and e0 keep these stores aligned.
#pragma unroll
            for (int i = 0; i < kOutputs; i += 4)
                storeVec4<typename T::Scratch>(out + i, acc[i], acc[i + 1], acc[i + 2], acc[i + 3]);
        }
        else
        {
#pragma unroll
            for (int i = 0; i < kOutputs; i++)
                if (e0 + i < elements)
                    out[i] = static_cast<typename T::Scratch>(acc[i]);
        }
    }
}

// Four consecutive outputs e0..e0+3 of row y (only those below `elements` exist); one vector store
// when the destination allows it (plan.dstAligned4).
template <class T>
__device__ __forceinline__ void storeResult4(const TwoPassPlan& p, int y, int e0, int elements, const typename T::ColAcc (&acc)[4])
{
    unsigned char* row = p.dst + static_cast<size_t>(y) * p.dstStep;
    // Four converted outputs: one vector store where aligned and whole, else element by element.
    auto store = [&](auto* out, auto convert) {
        if (p.dstAligned4 && e0 + 4 <= elements)
            storeVec4(out, convert(acc[0]), convert(acc[1]), convert(acc[2]), convert(acc[3]));
        else
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (e0 + i < elements)
                    out[i] = convert(acc[i]);
    };
    if (p.floatOutput)
        store(reinterpret_cast<float*>(row) + e0, [](const typename T::ColAcc& a) { return T::toFloat(a); });
    else
        store(reinterpret_cast<typename T::Src*>(row) + e0, [](const typename T::ColAcc& a) { return T::round(a); });
}

// Pass 2: vertical taps over scratch rows y .. y+2ry, tap by tap from the top. A thread owns 4
// consecutive elements (one vector load per row) of kOutputs consecutive rows.
template <int Depth>
__global__ void __launch_bounds__(kBlock) columnPass(const TwoPassPlan p)
{
    typedef DepthPolicy<Depth> T;
    typedef typename T::ColAcc Acc;
    const int elements = p.width * p.channels;
    const int e0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (e0 >= elements)
        return;
    const bool full = e0 + 4 <= elements;
    const typename T::Tap* taps = static_cast<const typename T::Tap*>(p.tapsY);
    const int lastRow = p.height + 2 * p.ry - 1;
    auto load = [&](int row, Acc (&v)[4]) {
        const int r = ::min(row, lastRow); // rows past the end feed outputs that are not stored
        const typename T::Scratch* s = reinterpret_cast<const typename T::Scratch*>(p.scratch + static_cast<size_t>(r) * p.scratchStep) + e0;
        if (full)
            loadVec4(s, v);
        else
#pragma unroll
            for (int i = 0; i < 4; i++)
                v[i] = e0 + i < elements ? static_cast<Acc>(s[i]) : Acc(0);
    };

    for (int y0 = blockIdx.y * kOutputs; y0 < p.height; y0 += gridDim.y * kOutputs)
    {
        Acc w[kOutputs][4], acc[kOutputs][4];
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
        {
            load(y0 + i, w[i]);
#pragma unroll
            for (int c = 0; c < 4; c++)
                acc[i][c] = 0;
        }
        for (int k = 0; k <= 2 * p.ry; k++)
        {
            const Acc tk = static_cast<Acc>(__ldg(taps + k));
#pragma unroll
            for (int i = 0; i < kOutputs; i++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[i][c] += tk * w[i][c];
            if (k == 2 * p.ry)
                break;
#pragma unroll
            for (int i = 0; i < kOutputs - 1; i++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    w[i][c] = w[i + 1][c];
            load(y0 + k + kOutputs, w[kOutputs - 1]);
        }
#pragma unroll
        for (int i = 0; i < kOutputs; i++)
            if (y0 + i < p.height)
                storeResult4<T>(p, y0 + i, e0, elements, acc[i]);
    }
}

// Tap bytes as a kernel parameter, copied into the call's device memory. Small kernels take 3,840
// bytes (with the other parameters under 4 KB, the classic limit: short launches): both directions
// up to radius 237 with 4-byte taps, 118 with doubles. Larger ones take 32,512-byte chunks (the
// 32 KB parameter limit of CUDA 12.1+, which the large-radius kernel's taps need already): radius
// about 2,000 / 1,000 in one launch, one more launch per chunk beyond.
template <int Bytes>
struct TapChunk
{
    alignas(16) unsigned char bytes[Bytes];
};
constexpr int kSmallTapChunk = 3840;
constexpr int kLargeTapChunk = 32512;

template <int Bytes>
__global__ void __launch_bounds__(kBlock) copyTaps(unsigned char* dst, int n, const __grid_constant__ TapChunk<Bytes> chunk)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        dst[i] = chunk.bytes[i];
}

template <int Bytes>
void copyTapsToDevice(const std::vector<unsigned char>& bytes, unsigned char* dst, cudaStream_t stream)
{
    std::unique_ptr<TapChunk<Bytes>> chunk(new TapChunk<Bytes>());   // 32 KB: not on a caller's stack; zeroed
    for (size_t at = 0; at < bytes.size(); at += Bytes)
    {
        const int n = static_cast<int>(std::min<size_t>(Bytes, bytes.size() - at));
        std::memcpy(chunk->bytes, bytes.data() + at, static_cast<size_t>(n));
        launchChecked("copyTaps", copyTaps<Bytes>, 1, kBlock, 0, stream, dst + at, n, *chunk);
    }
}

unsigned gridY(int rows) { return static_cast<unsigned>(rows < 1 ? 1 : (rows < kMaxGridY ? rows : kMaxGridY)); }

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

// One direction's taps in the kernels' tap type, appended at a 16-byte aligned offset.
template <int Depth>
size_t appendTaps(std::vector<unsigned char>& bytes, const Taps1D& taps)
{
    typedef typename DepthPolicy<Depth>::Tap T;
    std::vector<T> packed(taps.real.size());
    const int r = static_cast<int>(taps.real.size()) / 2;
    packCentred<Depth>(spanOf(taps), TapUse::Integer, r, packed.data());
    const size_t offset = alignUp(bytes.size(), 16);
    bytes.resize(offset + packed.size() * sizeof(T));
    std::memcpy(bytes.data() + offset, packed.data(), packed.size() * sizeof(T));
    return offset;
}

template <int Depth, class Border>
void launchRows(const TwoPassPlan& p, dim3 grid, cudaStream_t stream)
{
    void (*kernel)(const TwoPassPlan) = nullptr;
    switch (p.channels)
    {
    case 1: kernel = rowPass<Depth, Border, 1>; break;
    case 2: kernel = rowPass<Depth, Border, 2>; break;
    case 3: kernel = rowPass<Depth, Border, 3>; break;
    case 4: kernel = rowPass<Depth, Border, 4>; break;
    default: CV_Error(Error::StsUnsupportedFormat, cv::format("gaussian: unsupported channel count %d", p.channels));
    }
    launchChecked(TwoPassPath::kKernel, kernel, grid, kBlock, 0, stream, p);
}

template <int Depth>
void runDepth(const TwoPassPlan& p, cudaStream_t stream)
{
    const int elements = p.width * p.channels;
    const int rowThreads = (elements + kOutputs - 1) / kOutputs;
    const dim3 rowGrid((rowThreads + kBlock - 1) / kBlock, gridY(p.height + 2 * p.ry));
    switch (p.rowBorder)
    {
    case BORDER_REPLICATE:   launchRows<Depth, BorderReplicate>(p, rowGrid, stream); break;
    case BORDER_CONSTANT:    launchRows<Depth, BorderConstant>(p, rowGrid, stream); break;
    case BORDER_REFLECT:     launchRows<Depth, BorderReflect>(p, rowGrid, stream); break;
    case BORDER_REFLECT_101: launchRows<Depth, BorderReflect101>(p, rowGrid, stream); break;
    case BORDER_WRAP:        launchRows<Depth, BorderWrap>(p, rowGrid, stream); break;
    default: CV_Error(Error::StsBadArg, cv::format("gaussian: unsupported row border %d", p.rowBorder));
    }
    const int colThreads = (elements + 3) / 4;
    const dim3 colGrid((colThreads + kBlock - 1) / kBlock, gridY((p.height + kOutputs - 1) / kOutputs));
    launchChecked("columnPass", columnPass<Depth>, colGrid, kBlock, 0, stream, p);
}

} // namespace

size_t scratchElemSize(int depth)
{
    return forDepth(depth, [](auto d) { return sizeof(typename DepthPolicy<decltype(d)::value>::Scratch); });
}

TwoPassTaps TwoPassPath::prepare(const FilterTaps& f)
{
    const Taps1D unit = makeTaps(1, 0, fixedPointBits(f.depth));
    TwoPassTaps t;
    forDepth(f.depth, [&](auto d) {
        constexpr int Depth = decltype(d)::value;
        t.x = appendTaps<Depth>(t.bytes, f.x);
        t.y = appendTaps<Depth>(t.bytes, f.y);
        t.unit = appendTaps<Depth>(t.bytes, unit);
    });
    return t;
}

void TwoPassPath::launch(const BlurCall& call, const TwoPassTaps& taps, const PathChoice&, cudaStream_t stream)
{
    TwoPassPlan p;
    static_cast<BlurCall&>(p) = call;
    // Pitch and offsets of 256 bytes keep every vector load and store of both passes aligned.
    const size_t tapBytes = alignUp(taps.bytes.size(), 256);
    const size_t pitch = alignUp(static_cast<size_t>(p.width) * static_cast<size_t>(p.channels) * scratchElemSize(p.depth), 256);
    const size_t rows = static_cast<size_t>(p.height) + 2 * static_cast<size_t>(p.ry);
    StreamScratch memory(tapBytes + pitch * rows, stream);   // freed on `stream` after the passes

    if (taps.bytes.size() <= static_cast<size_t>(kSmallTapChunk))
        copyTapsToDevice<kSmallTapChunk>(taps.bytes, memory.data(), stream);
    else
        copyTapsToDevice<kLargeTapChunk>(taps.bytes, memory.data(), stream);
    p.tapsX = memory.data() + (p.unitX ? taps.unit : taps.x);
    p.tapsY = memory.data() + (p.unitY ? taps.unit : taps.y);
    p.scratch = memory.data() + tapBytes;
    p.scratchStep = pitch;

    forDepth(p.depth, [&](auto d) { runDepth<decltype(d)::value>(p, stream); });
}

}}} // namespace cv::cuda::gaussian
