// The Gaussian filter under CUDA graph capture: every kernel path's apply() captured on a
// cv::cuda::Stream (global mode, the strictest), instantiated and replayed on new input written into
// the same source buffer, against CPU cv::GaussianBlur; a filter's very first call among them. And
// the scratch memory's rule (src/cuda/stream_scratch.hpp): on a device without memory pools a call
// whose stream is being captured is refused with a cv::Exception that says why (pure: no GPU).
//
// Run each case alone too (--gtest_filter='CudaImage_GaussianBlur_GraphPaths*/<name>'): then its
// first call is also the process's first on the device (device queries, pool creation, kernel
// attributes), all of it under capture.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"
#include "../src/cuda/stream_scratch.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <cuda_runtime_api.h>

namespace opencv_test { namespace {

// Without a GPU, and without a device that lacks memory pools: the decision the scratch memory
// takes. The pool serves every call (captured or not: under capture its allocation is a graph
// memory node); without one, cudaMalloc serves calls that are not captured and a captured call is
// refused (cudaMalloc/cudaFree would break the capture or leave the graph with freed memory).
TEST(CudaImage_GaussianBlur_Graph, scratch_without_a_memory_pool_refuses_a_captured_call)
{
    for (cudaStreamCaptureStatus status : {cudaStreamCaptureStatusNone, cudaStreamCaptureStatusActive, cudaStreamCaptureStatusInvalidated})
        EXPECT_EQ(gs::ScratchSource::Pool, gs::scratchSource(true, status, 0)) << "capture status " << int(status);
    EXPECT_EQ(gs::ScratchSource::DeviceMalloc, gs::scratchSource(false, cudaStreamCaptureStatusNone, 0));
    expectError([] { gs::scratchSource(false, cudaStreamCaptureStatusActive, 3); }, cv::Error::StsNotImplemented,
                {"cv::cuda::GaussianBlur: the stream is being captured into a CUDA graph and CUDA device 3 has no memory pool",
                 "two-pass path", "outside the capture"},
                "GRAPH");
    expectError([] { gs::scratchSource(false, cudaStreamCaptureStatusInvalidated, 1); }, cv::Error::StsNotImplemented,
                {"captured into a CUDA graph (already invalidated) and CUDA device 1 has no memory pool"}, "GRAPH");
}

// What the query carries of the device (gaussian_blur.cpp asks the same attributes).
struct DeviceNumbers
{
    size_t sharedMemOptIn = 0;
    int multiprocessors = 0;
    int computeCapability = 0;
};

DeviceNumbers deviceNumbers()
{
    const int device = cv::cuda::getDevice();
    int smem = 0, sms = 0, major = 0, minor = 0;
    EXPECT_EQ(cudaSuccess, cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    EXPECT_EQ(cudaSuccess, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    EXPECT_EQ(cudaSuccess, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    EXPECT_EQ(cudaSuccess, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    DeviceNumbers d;
    d.sharedMemOptIn = static_cast<size_t>(smem);
    d.multiprocessors = sms;
    d.computeCapability = 10 * major + minor;
    return d;
}

// A case's radius, from the units' own numbers, so that a changed limit moves the case with it.
enum class Radius
{
    FromKsize,             // the case's ksize and sigmas
    TensorCoreLowest,      // the tuned minimum of the tensor-core path for the channel count
    TensorCoreHighest,
    TensorCore16ULowest,   // the tuned minimum of the 16U tensor-core path
    TensorCore16UHighest,
    TensorCore32FLowest,   // the tuned minimum of the 32F tensor-core path
    TensorCore32FHighest,
    FusedLowest,
    FusedHighest,
    LargeLowest,
    LargeHighest,
    AboveSingleKernels,    // beyond every single-kernel path's tile
    PastTheTile            // the smallest radius whose tile has no room for the channel count (two passes)
};

struct GraphCase
{
    const char* name;
    int type;
    Radius radius;
    int path;              // the path the case is for (where the device has it)
    bool firstCall;        // the captured apply() is the filter's first
    bool inPlace;
    int border;
    Size size = Size(1031, 263);
    Size ksize = Size();   // Radius::FromKsize
    double sigmaX = 0, sigmaY = 0;
};

void PrintTo(const GraphCase& c, std::ostream* os) { *os << c.name; }

// The kernel size the filter resolves (a zero size derived from sigma, as the library does).
Size resolvedKsize(const GraphCase& c, int r)
{
    if (c.radius != Radius::FromKsize)
        return Size(2 * r + 1, 2 * r + 1);
    const int depth = CV_MAT_DEPTH(c.type);
    return Size(c.ksize.width > 0 ? c.ksize.width : cv::cuda::gaussianKernelSize(c.sigmaX, depth),
                c.ksize.height > 0 ? c.ksize.height : cv::cuda::gaussianKernelSize(c.sigmaY > 0 ? c.sigmaY : c.sigmaX, depth));
}

// The query the filter asks for this case on this device (gaussian_blur.cpp's apply()).
gs::PathQuery queryFor(const GraphCase& c, Size ksize, const DeviceNumbers& d)
{
    gs::PathQuery q;
    q.depth = CV_MAT_DEPTH(c.type);
    q.channels = CV_MAT_CN(c.type);
    q.rx = ksize.width / 2;
    q.ry = ksize.height / 2;
    if (q.depth == CV_8U || q.depth == CV_16U)
    {
        const int bits = q.depth == CV_8U ? 8 : 16;
        auto belowOne = [bits](const std::vector<int64_t>& t) { return std::all_of(t.begin(), t.end(), [bits](int64_t v) { return v < (int64_t(1) << bits); }); };
        q.horizontalTapsBelowOne = belowOne(referenceFixedTaps(ksize.width, c.sigmaX, bits));
        q.verticalTapsBelowOne = belowOne(referenceFixedTaps(ksize.height, c.sigmaY > 0 ? c.sigmaY : c.sigmaX, bits));
    }
    q.unitRowOrColumn = (c.size.width == 1 || c.size.height == 1) && c.border != cv::BORDER_CONSTANT;
    q.dstInSrcAllocation = c.inPlace;
    q.sharedMemOptIn = d.sharedMemOptIn;
    q.multiprocessors = d.multiprocessors;
    q.computeCapability = d.computeCapability;
    return q;
}

// The units' facts about this device as the library queries them; the tensor-core code is taken
// to run on sm_80 and later (the builds carry sm_80+ code for them).
path::List::DeviceFacts unitFactsFor(const DeviceNumbers& d) { return path::factsFor(d.computeCapability, d.computeCapability >= 80); }

// A filter's options as created now (the environment's switches).
path::List::Options filterOptions() { return path::List::options(); }

gs::PathChoice choiceFor(const GraphCase& c, Size ksize, const DeviceNumbers& d)
{
    return gs::choosePath(queryFor(c, ksize, d), unitFactsFor(d), filterOptions());
}

int radiusFor(const GraphCase& c, const DeviceNumbers& d)
{
    const int cn = CV_MAT_CN(c.type);
    switch (c.radius)
    {
    case Radius::TensorCoreLowest: return gs::tensorCoreTuning(d.computeCapability).minRadius(cn);
    case Radius::TensorCoreHighest: return gs::TensorCorePath::Tile::kMaxR;
    case Radius::TensorCore16ULowest: return gs::tensorCore16UTuning(d.computeCapability).minRadius();
    case Radius::TensorCore16UHighest: return gs::TensorCore16UPath::Tile::kMaxR;
    case Radius::TensorCore32FLowest: return gs::tensorCore32FTuning(d.computeCapability).minRadius();
    case Radius::TensorCore32FHighest: return gs::TensorCore32FPath::Tile::kMaxR;
    case Radius::FusedLowest: return gs::FusedPath::Tile::kMinR;
    case Radius::FusedHighest: return gs::FusedPath::Tile::kMaxR;
    case Radius::LargeLowest: return gs::FusedLargePath::Tile::kMinR;
    case Radius::LargeHighest: return gs::FusedLargePath::Tile::kMaxR;
    case Radius::AboveSingleKernels: return std::max<int>(gs::FusedLargePath::Tile::kMaxR, gs::TensorCorePath::Tile::kMaxR) + 1;
    case Radius::PastTheTile:
        for (int r = gs::FusedLargePath::Tile::kMinR; r <= gs::FusedLargePath::Tile::kMaxR; r++)
            if (choiceFor(c, Size(2 * r + 1, 2 * r + 1), d).index == path::TwoPass)
                return r;
        return gs::FusedLargePath::Tile::kMaxR + 1;
    case Radius::FromKsize: break;
    }
    return 0;
}

// Whether path `index` takes the query by its own rule (the paths before it aside).
template <class... Units, std::size_t... I>
bool acceptsAt(const gs::PathList<Units...>*, std::index_sequence<I...>, int index, const gs::PathQuery& q,
               const path::List::DeviceFacts& facts, const path::List::Options& options)
{
    const bool accepted[] = {Units::accepts(q, std::get<I>(facts), std::get<I>(options)).accepted...};
    return index >= 0 && index < static_cast<int>(sizeof...(Units)) && accepted[index];
}

bool acceptsByItsOwnRule(int index, const gs::PathQuery& q, const DeviceNumbers& d)
{
    return acceptsAt(static_cast<const path::List*>(nullptr), std::make_index_sequence<path::List::kCount>(), index, q,
                     unitFactsFor(d), filterOptions());
}

typedef ::testing::TestWithParam<GraphCase> CudaImage_GaussianBlur_GraphPaths;

// One case: the filter's apply() captured into a graph (after one plain call unless the case is
// the filter's first call), the graph instantiated and launched three times, each on new data
// uploaded into the same source buffer (in place: into the buffer the graph also writes), each
// result against CPU cv::GaussianBlur (exact for 8U and 16U). The capture must stay valid through
// apply() and reallocate nothing.
TEST_P(CudaImage_GaussianBlur_GraphPaths, captured_and_replayed_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const GraphCase& k = GetParam();
    const DeviceNumbers dev = deviceNumbers();
    const int r = radiusFor(k, dev);
    const Size ksize = k.radius == Radius::FromKsize ? k.ksize : Size(2 * r + 1, 2 * r + 1);
    const Size resolved = resolvedKsize(k, r);
    const gs::PathQuery q = queryFor(k, resolved, dev);
    const gs::PathChoice choice = choiceFor(k, resolved, dev);
    const bool pathHere = acceptsByItsOwnRule(k.path, q, dev);
    std::cout << cv::format("[ GRAPH    ] %s: %s %dx%d ksize %dx%d, %s%s: path %s (%s)%s", k.name, cv::typeToString(k.type).c_str(),
                            k.size.width, k.size.height, resolved.width, resolved.height, k.inPlace ? "in place" : "separate dst",
                            k.firstCall ? ", first call captured" : "", choice.name, choice.reason,
                            pathHere ? "" : cv::format("; this device has no %s path for it", path::List::name(k.path)).c_str())
              << std::endl;
    if (pathHere)
    {
        EXPECT_EQ(k.path, choice.index) << "the case is for " << path::List::name(k.path) << ", the choice is " << choice.name
                                        << " (" << choice.reason << ")";
    }
    SCOPED_TRACE(cv::format("%s: path %s", k.name, choice.name));

    auto cpuBlur = [&](const Mat& in) {
        Mat out;
        cv::GaussianBlur(in, out, ksize, k.sigmaX, k.sigmaY, k.border);
        return out;
    };
    const int depth = CV_MAT_DEPTH(k.type);
    cv::RNG rng(1000 + static_cast<int>(k.radius) * 16 + k.type);

    Stream s(cudaStreamNonBlocking);
    const cudaStream_t raw = cv::cuda::StreamAccessor::getStream(s);
    GpuMat src(k.size, k.type), dst(k.size, k.type);   // allocated before the capture
    GpuMat& out = k.inPlace ? src : dst;
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(k.type, -1, ksize, k.sigmaX, k.sigmaY, k.border, k.border);
    if (!k.firstCall)
    {
        const Mat before = randomMat(k.size, k.type, rng);
        src.upload(before, s);
        f->apply(src, out, s);
        EXPECT_LE(cv::norm(cpuBlur(before).reshape(1), toHost(out, s).reshape(1), cv::NORM_INF), documentedTolerance(depth, before))
            << "plain call before the capture";
    }
    const uchar* const srcData = src.data;
    const uchar* const outData = out.data;

    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(raw, cudaStreamCaptureModeGlobal));
    std::string error;
    try
    {
        f->apply(src, out, s);
    }
    catch (const cv::Exception& e)
    {
        error = e.what();
    }
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t asked = cudaStreamIsCapturing(raw, &status);
    const cudaError_t ended = cudaStreamEndCapture(raw, &graph);
    const cudaError_t pending = cudaGetLastError();
    EXPECT_EQ("", error) << "apply() under stream capture";
    EXPECT_EQ(cudaSuccess, asked);
    EXPECT_EQ(cudaStreamCaptureStatusActive, status) << "the capture after apply() (invalidated: a call it refused)";
    EXPECT_EQ(cudaSuccess, ended) << "cudaStreamEndCapture: " << cudaGetErrorString(ended);
    EXPECT_EQ(cudaSuccess, pending) << "an error left pending: " << cudaGetErrorString(pending);
    EXPECT_EQ(srcData, src.data);
    EXPECT_EQ(outData, out.data) << "apply() reallocated dst under capture";
    ASSERT_TRUE(graph != nullptr && error.empty() && ended == cudaSuccess);

    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    EXPECT_EQ(cudaSuccess, instantiated) << "cudaGraphInstantiate: " << cudaGetErrorString(instantiated);
    if (instantiated == cudaSuccess)
    {
        for (int launch = 0; launch < 3; launch++)
        {
            const Mat input = randomMat(k.size, k.type, rng);
            src.upload(input, s);   // the buffer the graph reads
            ASSERT_EQ(srcData, src.data);
            if (!k.inPlace)
                dst.setTo(cv::Scalar::all(0), s);
            EXPECT_EQ(cudaSuccess, cudaGraphLaunch(exec, raw));
            const Mat result = toHost(out, s);
            EXPECT_LE(cv::norm(cpuBlur(input).reshape(1), result.reshape(1), cv::NORM_INF), documentedTolerance(depth, input))
                << "graph launch " << launch;
        }
        EXPECT_EQ(cudaSuccess, cudaGraphExecDestroy(exec));
    }
    EXPECT_EQ(cudaSuccess, cudaGraphDestroy(graph));

    // The same filter, applied normally after the graph, still gives the result.
    const Mat after = randomMat(k.size, k.type, rng);
    src.upload(after, s);
    f->apply(src, out, s);
    EXPECT_LE(cv::norm(cpuBlur(after).reshape(1), toHost(out, s).reshape(1), cv::NORM_INF), documentedTolerance(depth, after))
        << "plain call after the graph";
    EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(raw));
}

const int kReplicate = cv::BORDER_REPLICATE, kReflect101 = cv::BORDER_REFLECT_101, kConstant = cv::BORDER_CONSTANT;

GraphCase sized(GraphCase c, Size size) { c.size = size; return c; }
GraphCase kernel(GraphCase c, Size ksize, double sigmaX, double sigmaY) { c.ksize = ksize; c.sigmaX = sigmaX; c.sigmaY = sigmaY; return c; }

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBlur_GraphPaths, ::testing::Values(
    // tensor-core: 8U, byte taps, from the tuned minimum radius
    GraphCase{"tensor_core_8UC1_first_call", CV_8UC1, Radius::TensorCoreLowest, path::TensorCore, true, false, kReflect101},
    GraphCase{"tensor_core_8UC3", CV_8UC3, Radius::TensorCoreLowest, path::TensorCore, false, false, kReplicate},
    GraphCase{"tensor_core_8UC2_largest_radius_first_call", CV_8UC2, Radius::TensorCoreHighest, path::TensorCore, true, false, kConstant},
    GraphCase{"tensor_core_16u_first_call", CV_16UC1, Radius::TensorCore16ULowest, path::TensorCore16U, true, false, kReflect101},
    GraphCase{"tensor_core_16u_largest_radius", CV_16UC1, Radius::TensorCore16UHighest, path::TensorCore16U, false, false, kReplicate},
    GraphCase{"tensor_core_32f_first_call", CV_32FC1, Radius::TensorCore32FLowest, path::TensorCore32F, true, false, kReflect101},
    GraphCase{"tensor_core_32f_largest_radius", CV_32FC1, Radius::TensorCore32FHighest, path::TensorCore32F, false, false, kConstant},
    // fused: radius a template parameter
    GraphCase{"fused_8UC3_first_call", CV_8UC3, Radius::FusedLowest, path::Fused, true, false, kReplicate},
    GraphCase{"fused_16UC4", CV_16UC4, Radius::FusedHighest, path::Fused, false, false, kConstant},
    GraphCase{"fused_32FC1_first_call", CV_32FC1, Radius::FusedHighest, path::Fused, true, false, kReflect101},
    // fused-large: radius at run time
    GraphCase{"fused_large_16SC1_first_call", CV_16SC1, Radius::LargeLowest, path::FusedLarge, true, false, kReflect101},
    GraphCase{"fused_large_16UC3", CV_16UC3, Radius::LargeHighest, path::FusedLarge, false, false, kReplicate},
    GraphCase{"fused_large_32FC2_first_call", CV_32FC2, Radius::LargeHighest, path::FusedLarge, true, false, kReflect101},
    // two-pass: the stream-ordered scratch image (graph memory nodes under capture)
    kernel(GraphCase{"two_pass_8UC1_in_place_first_call", CV_8UC1, Radius::FromKsize, path::TwoPass, true, true, kReflect101}, Size(), 2.0, 0),
    kernel(GraphCase{"two_pass_16UC3_in_place", CV_16UC3, Radius::FromKsize, path::TwoPass, false, true, kReplicate}, Size(), 3.0, 0),
    kernel(GraphCase{"two_pass_64FC2_in_place_first_call", CV_64FC2, Radius::FromKsize, path::TwoPass, true, true, kReflect101}, Size(7, 0), 0, 1.5),
    GraphCase{"two_pass_32FC4_above_single_kernels_first_call", CV_32FC4, Radius::AboveSingleKernels, path::TwoPass, true, false, kReplicate},
    GraphCase{"two_pass_8UC1_above_single_kernels", CV_8UC1, Radius::AboveSingleKernels, path::TwoPass, false, false, kReflect101},
    GraphCase{"two_pass_16SC4_past_the_tile_first_call", CV_16SC4, Radius::PastTheTile, path::TwoPass, true, false, kReplicate},
    sized(GraphCase{"two_pass_8UC1_one_row_first_call", CV_8UC1, Radius::TensorCoreLowest, path::TwoPass, true, false, kReplicate}, Size(1031, 1))),
    [](const ::testing::TestParamInfo<GraphCase>& info) { return std::string(info.param.name); });

}} // namespace opencv_test
