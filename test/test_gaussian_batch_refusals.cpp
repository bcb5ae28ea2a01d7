// A refused call changes nothing. For every refusal a batch call can meet after some of its images'
// kernels were looked up (a bad sigma or ksize at index i, a bad dst, images that overlap), the
// refusal is followed on the same long-lived filter by a good call whose kernels include those of
// the images before the bad index; each of its images must match CPU cv::GaussianBlur and the
// result of a new filter. A seeded sequence mixes good and bad calls on one long-lived filter of
// each kind (batch list and stacked forms, the one-shot batch, a single filter, the one-shot
// single blur). And a batch captured into a CUDA graph after a warm-up call, in each capture mode
// (global: cudaStreamBeginCapture's default and torch.cuda.graph's), replays exactly on new data.
#include "test_precomp.hpp"
#include "gaussian_reference.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <cmath>
#include <functional>
#include <tuple>
#include <cuda_runtime_api.h>

namespace opencv_test { namespace {

// The kernel of image i of a call, as the batch API resolves it: sigmaY = sigmaX unless given.
struct ImageKernel
{
    Size ksize;
    double sigmaX = 0, sigmaY = 0;
};

ImageKernel kernelOf(size_t i, const std::vector<double>& sx, const std::vector<double>& sy, const std::vector<Size>& ks)
{
    auto pick = [i](const auto& v, auto fallback) { return v.empty() ? fallback : v.size() == 1 ? v[0] : v[i]; };
    ImageKernel k;
    k.sigmaX = pick(sx, 1.0);
    k.sigmaY = pick(sy, 0.0);
    k.ksize = pick(ks, Size());
    return k;
}

// `src` as the GPU saw it: a region of a larger image (a list's view) reads its neighbours, a
// stacked batch's image is a whole image (pass a clone). The gold twin of CPU cv::GaussianBlur
// (test/gaussian_reference.hpp), which reads a region's neighbours as the GPU does.
void expectMatchesCpu(const Mat& src, const Mat& got, const ImageKernel& k, int border, const std::string& what)
{
    const GaussianArgs a{k.ksize, k.sigmaX, k.sigmaY, border, border};
    expectWithinDocumentedTolerance(referenceGaussianBlur(src, src.depth(), a), got, src, what);
}

// A batch of n images of `size` as one stacked matrix (host copy and device copy).
struct Stacked
{
    Mat host;
    GpuMat device;
    int rows = 0;
    Stacked(int n, Size size, int type, cv::RNG& rng) : host(randomMat(Size(size.width, size.height * n), type, rng)), rows(size.height)
    {
        device.upload(host);
    }
    Mat image(const Mat& m, int i) const { return m.rowRange(i * rows, (i + 1) * rows); }
    int count() const { return host.rows / rows; }
};

// Runs a good stacked call on `filter` and on a new filter; every image must match the CPU, and
// the two results must be identical.
void expectGoodStackedCall(const cv::Ptr<cv::cuda::GaussianBatchFilter>& filter, const Stacked& in,
                           const std::vector<double>& sx, const std::vector<double>& sy, const std::vector<Size>& ks,
                           int border, const std::string& what)
{
    Stream s;
    GpuMat dst, fresh;
    ASSERT_NO_THROW(filter->applyStacked(in.device, dst, in.rows, sx, sy, ks, s)) << what;
    auto other = cv::cuda::createGaussianBlurBatch(filter->srcType(), -1, Size(), 1.0, 0.0, border);
    other->applyStacked(in.device, fresh, in.rows, sx, sy, ks, s);
    const Mat got = toHost(dst, s), want = toHost(fresh, s);
    EXPECT_EQ(0, countDifferent(got, want)) << what << ": the long-lived filter and a new one differ";
    for (int i = 0; i < in.count(); i++)
        expectMatchesCpu(in.image(in.host, i).clone(), in.image(got, i), kernelOf(i, sx, sy, ks), border,
                         what + cv::format(", image %d", i));
}

// ---- the reproducer: a refused call used to leave kernels without taps in the cache ----------

TEST(CudaImage_GaussianBatch_Refusals, refused_call_then_a_call_with_its_earlier_kernels_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5101);
    auto filter = cv::cuda::createGaussianBlurBatch(CV_8UC3, -1, Size(), 1.0);
    const Stacked small(8, Size(64, 64), CV_8UC3, rng);
    Stream s;
    GpuMat out;
    expectError([&] { filter->applyStacked(small.device, out, 64, {1, 1, 1, -1, 1, 1, 1, 1}, {}, {}, s); },
                cv::Error::StsBadArg, {"image 3", "sigmaX is -1"}, "BATCHSTATE");
    expectError([&] { filter->applyStacked(small.device, out, 64, {0.7, 1.3, 2.1, 0.9, 3.3, NAN, 1, 1}, {}, {}, s); },
                cv::Error::StsBadArg, {"image 5", "sigmaX is nan"}, "BATCHSTATE");
    EXPECT_TRUE(out.empty()) << "a refused call allocated its dst";
    std::vector<double> sigmas;
    for (int i = 0; i < 32; i++)
        sigmas.push_back(0.5 + 0.05 * i);   // 1.0 among them, seen before the bad image above
    sigmas[3] = 0.7, sigmas[4] = 1.3, sigmas[5] = 2.1, sigmas[6] = 0.9, sigmas[7] = 3.3;
    const Stacked big(32, Size(96, 96), CV_8UC3, rng);
    expectGoodStackedCall(filter, big, sigmas, {}, {}, cv::BORDER_REPLICATE, "after two refusals");
}

// ---- every refusal that can come after an image's kernel was looked up ------------------------

struct Refusal
{
    const char* name;
    std::vector<double> sx, sy;
    std::vector<Size> ks;
    std::vector<std::string> needles;
};

typedef ::testing::TestWithParam<int> CudaImage_GaussianBatch_RefusalThenGood;

TEST_P(CudaImage_GaussianBatch_RefusalThenGood, every_refusal_leaves_the_filter_as_new)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int type = GetParam();
    const int n = 6;
    // Kernels of every batched path before the bad index: radius 2, 3, 14 (the large-radius path)
    // and an explicit rectangular ksize.
    const std::vector<double> good = {0.8, 1.1, 4.5, 0.8, 2.2, 1.6};
    const std::vector<Refusal> refusals = {
        {"negative sigma", {0.8, 1.1, 4.5, -1, 2.2, 1.6}, {}, {}, {"image 3", "sigmaX is -1"}},
        {"NaN sigma", {0.8, 1.1, 4.5, 0.8, NAN, 1.6}, {}, {}, {"image 4", "sigmaX is nan"}},
        {"zero sigma", {0.8, 1.1, 4.5, 0.8, 2.2, 0}, {}, {}, {"image 5", "sigmaX is 0"}},
        {"huge sigma", {0.8, 1.1, 4.5, 1e6, 2.2, 1.6}, {}, {}, {"image 3", "sigmaX is 1e+06"}},
        {"NaN sigmaY", {0.8, 1.1, 4.5, 0.8, 2.2, 1.6}, {0.8, 1.1, 4.5, 0.8, 2.2, NAN}, {}, {"image 5", "sigmaY is nan"}},
        {"even ksize", good, {}, {Size(5, 3), Size(5, 3), Size(9, 7), Size(4, 3), Size(5, 3), Size(5, 3)}, {"image 3", "ksize.width is 4"}},
        {"ksize too large", good, {}, {Size(5, 3), Size(5, 3), Size(9, 7), Size(5, 3), Size(3, 1 << 20), Size(5, 3)}, {"image 4", "ksize.height is"}},
    };
    cv::RNG rng(5200 + type);
    const Stacked in(n, Size(41, 29), type, rng);
    auto filter = cv::cuda::createGaussianBlurBatch(type, -1, Size(), 1.0);
    std::vector<GpuMat> list(n);
    for (int i = 0; i < n; i++)
        list[i] = in.device.rowRange(i * in.rows, (i + 1) * in.rows);
    for (const Refusal& r : refusals)
    {
        Stream s;
        GpuMat out;
        std::vector<GpuMat> outs;
        expectError([&] { filter->applyStacked(in.device, out, in.rows, r.sx, r.sy, r.ks, s); }, kAnyCode, r.needles, "BATCHSTATE");
        expectError([&] { filter->apply(list, outs, r.sx, r.sy, r.ks, s); }, kAnyCode, r.needles, "BATCHSTATE");
        EXPECT_TRUE(out.empty() && outs.empty()) << r.name << ": a refused call touched dst";
        // The good call: the refused call's kernels with the bad value replaced.
        std::vector<double> sx = r.sx, sy = r.sy;
        std::vector<Size> ks = r.ks;
        for (size_t i = 0; i < sx.size(); i++)
            if (!(sx[i] > 0 && sx[i] < 100))
                sx[i] = good[i];
        for (size_t i = 0; i < sy.size(); i++)
            if (!(sy[i] > 0 && sy[i] < 100))
                sy[i] = good[i];
        for (Size& k : ks)
            if (k.width % 2 == 0 || k.height > 999)
                k = Size(3, 3);
        expectGoodStackedCall(filter, in, sx, sy, ks, cv::BORDER_REPLICATE, std::string(r.name) + ", stacked");
    }
    // The refusals that name a dst or an overlap, after the kernels were built.
    {
        Stream s;
        std::vector<GpuMat> src = list, dst(n);
        for (int i = 0; i < n; i++)
            dst[i].create(src[i].size(), type);
        dst[4] = src[2];   // image 4 writes what image 2 reads
        expectError([&] { filter->apply(src, dst, good, {}, {}, s); }, cv::Error::StsBadArg,
                    {"dst[4] overlaps the pixels src["}, "BATCHSTATE");
        GpuMat partly(in.device, cv::Rect(1, 0, in.device.cols - 1, in.device.rows));
        expectError([&] { filter->applyStacked(in.device.colRange(0, in.device.cols - 1), partly, in.rows, good, {}, {}, s); },
                    cv::Error::StsBadArg, {"partly overlaps"}, "BATCHSTATE");
        expectGoodStackedCall(filter, in, good, {}, {}, cv::BORDER_REPLICATE, "after the dst refusals");
    }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBatch_RefusalThenGood, ::testing::Values(CV_8UC3, CV_16UC1, CV_32FC1));

// ---- a seeded sequence of good and bad calls on long-lived filters of each kind ---------------

TEST(CudaImage_GaussianBatch_Refusals, random_sequence_of_good_and_bad_calls_on_long_lived_filters)
{
    CUDAIMAGE_REQUIRE_GPU();
    for (int type : {CV_8UC1, CV_8UC4, CV_32FC3})
    {
        cv::RNG rng(5300 + type);
        const int border = type == CV_8UC4 ? cv::BORDER_REFLECT_101 : cv::BORDER_REPLICATE;
        // Few values, so that kernels repeat across calls and meet the cache; 4.5 takes the
        // large-radius path for 8U.
        const double sigmas[] = {0.6, 1.0, 1.7, 2.5, 4.5};
        const double bad[] = {-1.0, 0.0, NAN, 1e6};
        auto batch = cv::cuda::createGaussianBlurBatch(type, -1, Size(), 1.0, 0.0, border);
        auto single = cv::cuda::createGaussianBlur(type, -1, Size(0, 0), 1.7, 0.0, border);
        int goodCalls = 0, badCalls = 0;
        for (int step = 0; step < 60; step++)
        {
            const int n = rng.uniform(1, 9);
            const Size size(rng.uniform(5, 60), rng.uniform(5, 45));
            const Stacked in(n, size, type, rng);
            std::vector<double> sx(n);
            for (double& v : sx)
                v = sigmas[rng.uniform(0, 5)];
            std::vector<Size> ks;
            if (rng.uniform(0, 4) == 0)
                for (int i = 0; i < n; i++)
                    ks.push_back(Size(2 * rng.uniform(0, 5) + 1, 2 * rng.uniform(0, 5) + 1));
            const bool refuse = rng.uniform(0, 3) == 0;
            const int kind = rng.uniform(0, 4);   // stacked, list, one-shot batch, single filters
            const int at = rng.uniform(0, n);
            if (refuse)
            {
                // With an explicit ksize a sigma <= 0 or a huge one is valid (OpenCV derives it or
                // uses it as given): only NaN or an even size is refused there.
                if (!ks.empty())
                {
                    if (rng.uniform(0, 2))
                        ks[at] = Size(4, 3);
                    else
                        sx[at] = NAN;
                }
                else
                    sx[at] = bad[rng.uniform(0, 4)];
            }
            const std::string what = cv::format("type %s step %d kind %d n %d%s at %d", cv::typeToString(type).c_str(), step,
                                                kind, n, refuse ? " refused" : "", at);
            Stream s;
            std::vector<GpuMat> list(n), outs;
            for (int i = 0; i < n; i++)
                list[i] = in.device.rowRange(i * in.rows, (i + 1) * in.rows);
            try
            {
                Mat got;
                if (kind == 0)
                {
                    GpuMat out;
                    batch->applyStacked(in.device, out, in.rows, sx, {}, ks, s);
                    got = toHost(out, s);
                }
                else if (kind == 1 || kind == 2)
                {
                    if (kind == 1)
                        batch->apply(list, outs, sx, {}, ks, s);
                    else
                        cv::cuda::GaussianBlurBatch(list, outs, sx, {}, ks, border, s);
                    got.create(in.host.size(), type);
                    for (int i = 0; i < n; i++)
                        toHost(outs[i], s).copyTo(in.image(got, i));
                }
                else
                {
                    // Image by image through the single filter (its own sigma) or the one-shot blur.
                    got.create(in.host.size(), type);
                    for (int i = 0; i < n; i++)
                    {
                        GpuMat out;
                        const ImageKernel k = kernelOf(i, sx, {}, ks);
                        if (i % 2 == 0 && k.sigmaX == 1.7 && k.ksize == Size())
                            single->apply(list[i], out, s);
                        else
                            cv::cuda::GaussianBlur(list[i], out, k.ksize, k.sigmaX, k.sigmaY, border, s);
                        toHost(out, s).copyTo(in.image(got, i));
                    }
                }
                EXPECT_FALSE(refuse) << what << ": accepted";
                if (!refuse)
                {
                    goodCalls++;
                    for (int i = 0; i < n; i++)   // stacked: whole images; the others: views of one matrix
                        expectMatchesCpu(kind == 0 ? in.image(in.host, i).clone() : in.image(in.host, i), in.image(got, i),
                                         kernelOf(i, sx, {}, ks), border, what + cv::format(", image %d", i));
                }
            }
            catch (const cv::Exception& e)
            {
                EXPECT_TRUE(refuse) << what << ": " << e.what();
                EXPECT_NE(e.code, cv::Error::GpuApiCallError) << what << ": " << e.what();
                badCalls++;
            }
        }
        std::cout << "[ SEQUENCE ] " << cv::typeToString(type) << ": " << goodCalls << " good calls matched the CPU, "
                  << badCalls << " refused" << std::endl;
        EXPECT_GT(goodCalls, 20);
        EXPECT_GT(badCalls, 5);
    }
}

// ---- graph capture after a warm-up call, in each capture mode ---------------------------------

typedef ::testing::TestWithParam<std::tuple<cudaStreamCaptureMode, bool>> CudaImage_GaussianBatch_CaptureModes;

TEST_P(CudaImage_GaussianBatch_CaptureModes, captured_after_a_warm_up_replays_on_new_data)
{
    CUDAIMAGE_REQUIRE_GPU();
    const cudaStreamCaptureMode mode = std::get<0>(GetParam());
    const bool stacked = std::get<1>(GetParam());
    const int n = 12;
    const Size image(70, 52);
    cv::RNG rng(5400 + int(mode) * 2 + stacked);
    std::vector<double> sigmas;
    for (int i = 0; i < n; i++)
        sigmas.push_back(i % 4 == 3 ? 4.5 : rng.uniform(0.3, 2.5));   // fused and large-radius launches
    Stream s(cudaStreamNonBlocking);
    const cudaStream_t raw = cv::cuda::StreamAccessor::getStream(s);
    GpuMat src(image.height * n, image.width, CV_8UC3), dst(src.size(), src.type());
    std::vector<GpuMat> srcs(n), dsts(n);
    for (int i = 0; i < n; i++)
    {
        srcs[i] = src.rowRange(i * image.height, (i + 1) * image.height);
        dsts[i] = dst.rowRange(i * image.height, (i + 1) * image.height);
    }
    auto filter = cv::cuda::createGaussianBlurBatch(CV_8UC3, -1, Size(), 1.0);
    auto call = [&] {
        if (stacked)
            filter->applyStacked(src, dst, image.height, sigmas, {}, {}, s);
        else
            filter->apply(srcs, dsts, sigmas, {}, {}, s);
    };
    const Mat warm = randomMat(src.size(), src.type(), rng);
    src.upload(warm, s);
    call();                      // the warm-up: kernels, taps and a staging buffer in use
    call();                      // and a second one: its staging buffer's copy may still be pending
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(raw, mode));
    EXPECT_NO_THROW(call());
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(raw, &graph)) << "the batch invalidated the capture";
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    replayOnNewData(exec, s, src, dst, rng, 2, [&](const Mat& input, const Mat& got, int round) {
        for (int i = 0; i < n; i++)
        {
            const cv::Rect rows(0, i * image.height, image.width, image.height);
            ImageKernel k;
            k.sigmaX = sigmas[i];
            expectMatchesCpu(stacked ? input(rows).clone() : input(rows), got(rows), k, cv::BORDER_REPLICATE,
                             cv::format("round %d image %d", round, i));
        }
    });
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBatch_CaptureModes,
                        ::testing::Combine(::testing::Values(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                                             cudaStreamCaptureModeRelaxed),
                                           ::testing::Bool()));

}} // namespace opencv_test::<anonymous>
