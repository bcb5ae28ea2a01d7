// Throughput of cv::cuda::BatchProcessor over several GPUs (the multi-GPU issue's benchmark):
// 4K (3840x2160) 8UC3 frames, Gaussian blur sigma 2 (ksize 13, BORDER_REPLICATE), host images in and
// host results out: each frame is copied into page-locked staging, uploaded, blurred, downloaded and
// copied out, with two slots (streams) per GPU overlapping these steps.
//
//   opencv_perf_cudaimage --gtest_filter='BatchPerf*'
//
//  - BatchPerf_Scaling.gaussian_4K_8UC3: images per second on one GPU and on every GPU of the machine,
//    and the ratio (goal: >= 1.8 on 2 GPUs), one line for ordinary (pageable) frames and results,
//    the usual case, and one for page-locked ones (no staging copies: the GPUs and links alone):
//      [ BATCH    ] 4K 8UC3 sigma 2, 64 pageable frames, median of 5 batches: 1 GPU: ... images/s
//      (... GB/s host<->device; images per device: 64); 2 GPUs: ...; ratio ...x on 2 GPUs (goal >= 1.8x on 2)
//    CUDAIMAGE_BATCH_FRAMES (default 64) and CUDAIMAGE_BATCH_RUNS (default 5) change the batch.
//  - BatchPerf.processBatch/<devices>: the same batch timed by OpenCV's harness, on the first device
//    only (1) and on every device (0), ten batches each, for the usual perf report.
#include "perf_precomp.hpp"
#include "bench_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace opencv_test { namespace {

const Size kFrame(3840, 2160);
const int kType = CV_8UC3;
const double kSigma = 2.0;

int envInt(const char* name, int dflt)
{
    const char* v = std::getenv(name);
    return v && *v ? std::max(1, std::atoi(v)) : dflt;
}

cuda::FilterFactory blurFactory()
{
    return [] { return cuda::createGaussianBlur(kType, -1, Size(0, 0), kSigma, kSigma, BORDER_REPLICATE); };
}

// n frames of random data, each in its own memory (8 distinct patterns, copied: filling 1.6 GB
// with random numbers would take longer than the benchmark); page-locked with `pinned`.
std::vector<Mat> randomFrames(int n, bool pinned = false)
{
    RNG rng(20261202);
    std::vector<Mat> patterns(8);
    for (Mat& p : patterns)
    {
        p.create(kFrame, kType);
        rng.fill(p, RNG::UNIFORM, 0, 256);
    }
    std::vector<Mat> frames(n);
    for (int i = 0; i < n; ++i)
    {
        if (pinned)
            frames[i].allocator = cuda::HostMem::getAllocator(cuda::HostMem::PAGE_LOCKED);
        patterns[i % patterns.size()].copyTo(frames[i]);
    }
    return frames;
}

Mat cpuBlur(const Mat& src)
{
    Mat dst;
    cv::GaussianBlur(src, dst, Size(0, 0), kSigma, kSigma, BORDER_REPLICATE);
    return dst;
}

// Median wall time of `runs` batches (process() returns when every result is on the host), after
// one batch of warm-up (staging and device buffers, taps, results).
double medianSeconds(cuda::BatchProcessor& p, const std::vector<Mat>& frames, std::vector<Mat>& results, int runs)
{
    return cudaimage_bench::hostMedianMs([&] { p.process(frames, results); }, runs, 1) / 1000;
}

// One line: images/s on the current device alone and on every device, and the ratio.
// pinned: frames and results in page-locked memory (no staging copies: what the GPUs and the
// PCIe links sustain); otherwise ordinary memory (the usual case: host copies included).
void scaling(bool pinned)
{
    const int nDevices = cuda::getCudaEnabledDeviceCount();
    const int nFrames = envInt("CUDAIMAGE_BATCH_FRAMES", 64), runs = envInt("CUDAIMAGE_BATCH_RUNS", 5);
    const std::vector<Mat> frames = randomFrames(nFrames, pinned);
    const double bytesPerImage = 2.0 * kFrame.area() * CV_ELEM_SIZE(kType);   // up and down

    struct Result { int gpus; double imagesPerSecond; std::vector<int> perDevice; };
    std::vector<Result> measured;
    for (const std::vector<int>& devices : { std::vector<int>{cuda::getDevice()}, std::vector<int>() })
    {
        Ptr<cuda::BatchProcessor> p = cuda::BatchProcessor::create(blurFactory(), devices);
        std::vector<Mat> results(nFrames);
        if (pinned)
            for (Mat& r : results)
            {
                r.allocator = cuda::HostMem::getAllocator(cuda::HostMem::PAGE_LOCKED);
                r.create(kFrame, kType);
            }
        const double sec = medianSeconds(*p, frames, results, runs);
        // The results are the blur of their own frame, in order.
        for (int i : { 0, nFrames - 1 })
            ASSERT_EQ(0.0, cvtest::norm(cpuBlur(frames[i]), results[i], NORM_INF)) << "frame " << i;
        measured.push_back({ (int)p->devices().size(), nFrames / sec, p->imagesPerDevice() });
        if (nDevices == 1)
            break;   // "every GPU" is the same run
    }
    const Result& one = measured.front();
    const Result& all = measured.back();
    std::ostringstream line;
    line << "[ BATCH    ] 4K 8UC3 sigma " << kSigma << ", " << nFrames << (pinned ? " page-locked" : " pageable")
         << " frames, median of " << runs << " batches: ";
    for (const Result& r : measured)
    {
        line << r.gpus << (r.gpus == 1 ? " GPU: " : " GPUs: ") << cv::format("%.1f", r.imagesPerSecond)
             << " images/s (" << cv::format("%.1f", r.imagesPerSecond * bytesPerImage / 1e9)
             << " GB/s host<->device; images per device:";
        for (int n : r.perDevice)
            line << " " << n;
        line << "); ";
    }
    line << "ratio " << cv::format("%.2f", all.imagesPerSecond / one.imagesPerSecond) << "x on " << all.gpus
         << (all.gpus == 1 ? " GPU" : " GPUs") << (all.gpus >= 2 ? " (goal >= 1.8x on 2)" : "");
    std::cout << line.str() << std::endl;
    const std::string tag = pinned ? "pinned_" : "pageable_";
    ::testing::Test::RecordProperty(tag + "images_per_second_1gpu", cv::format("%.1f", one.imagesPerSecond));
    ::testing::Test::RecordProperty(tag + "images_per_second_all", cv::format("%.1f", all.imagesPerSecond));
    ::testing::Test::RecordProperty("gpus", all.gpus);
}

TEST(BatchPerf_Scaling, gaussian_4K_8UC3)
{
    if (cuda::getCudaEnabledDeviceCount() <= 0)
        throw SkipTestException("needs a CUDA device");
    scaling(false);
    scaling(true);
}

typedef perf::TestBaseWithParam<int> BatchPerf;

// 0: every device; 1: the current device only.
PERF_TEST_P(BatchPerf, processBatch, testing::Values(1, 0))
{
    if (!PERF_RUN_CUDA())
        throw SkipTestException("needs a CUDA device");
    const std::vector<int> devices = GetParam() == 1 ? std::vector<int>{cuda::getDevice()} : std::vector<int>();
    const std::vector<Mat> frames = randomFrames(envInt("CUDAIMAGE_BATCH_FRAMES", 64));
    Ptr<cuda::BatchProcessor> p = cuda::BatchProcessor::create(blurFactory(), devices);
    std::vector<Mat> results;
    p->process(frames, results);   // warm-up
    // Ten batches: one batch of 64 4K frames takes ~0.6 s on one GPU with pageable frames, and the
    // harness's default of up to 100 samples ran past a minute per parameter.
    TEST_CYCLE_N(10) p->process(frames, results);
    SANITY_CHECK_NOTHING();
}

}} // namespace opencv_test::<anonymous>
