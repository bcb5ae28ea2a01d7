// Why the synchronised image matters: several filters chained on ONE cv::cuda::SyncedMat cost one
// upload and one download, whatever the number of filters (the tutorial's approach copies both ways
// around every call).
//
//   pipeline [IMAGE] [--output PATH]
//
// Chain, all in place on the device: cudaimage Gaussian blur (sigma 1, denoise) -> a 3x3 sharpen
// with cudafilters' cv::cuda::createLinearFilter (any cv::cuda::Filter works with applyFilter) ->
// cudaimage Gaussian blur (sigma 2). The same chain on the CPU (cv::GaussianBlur, cv::filter2D) is
// the reference. cudafilters' linear filter takes 1 or 4 channels, so the image is used as BGRA.
//
// Exit status: 0 done (1 upload, 1 download, result equal to the CPU chain); 1 failure; 77 no CUDA
// device (the CPU chain still ran).
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/cudafilters.hpp>
#include <opencv2/cudaimage.hpp>
#ifdef CUDAIMAGE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <cstdio>
#include <string>

#include "sample_util.hpp"

namespace {

const float kSharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
constexpr double kSigma1 = 1.0, kSigma2 = 2.0;
constexpr int kBorder = cv::BORDER_REPLICATE;

cv::Mat cpuChain(const cv::Mat& bgra)
{
    const cv::Mat kernel(3, 3, CV_32F, const_cast<float*>(kSharpen));
    cv::Mat a, b;
    cv::GaussianBlur(bgra, a, {0, 0}, kSigma1, kSigma1, kBorder);
    cv::filter2D(a, b, -1, kernel, {-1, -1}, 0, kBorder);
    cv::GaussianBlur(b, a, {0, 0}, kSigma2, kSigma2, kBorder);
    return a;
}

} // namespace

int main(int argc, char** argv)
{
    sample::CommandLine cl;
    if (const int status = sample::parseCommandLine(argc, argv, {"--output"}, true, "[IMAGE] [--output PATH]", cl);
        status >= 0)
        return status;
    const std::string output = cl.text("--output");

    const int devices = sample::printCudaDevice();
    std::string input = cl.image;
    const cv::Mat bgr = sample::loadImage(input, argv[0]);
    if (bgr.empty())
        return 1;
    cv::Mat bgra;
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    std::printf("input: %s, %dx%d used as BGRA (%.2f MB)\n", input.c_str(), bgra.cols, bgra.rows,
                bgra.total() * bgra.elemSize() / 1e6);

    const cv::Mat expected = cpuChain(bgra);
    std::printf("CPU chain: blur(sigma %g) -> sharpen 3x3 -> blur(sigma %g) done\n", kSigma1, kSigma2);
    if (devices < 1)
        return sample::kSkipped;   // the CPU chain ran

    // The filters are built once, before any image moves.
    const int type = bgra.type();
    cv::Ptr<cv::cuda::Filter> denoise = cv::cuda::createGaussianBlur(type, -1, {0, 0}, kSigma1, kSigma1, kBorder);
    cv::Ptr<cv::cuda::Filter> sharpen = cv::cuda::createLinearFilter(
        type, -1, cv::Mat(3, 3, CV_32F, const_cast<float*>(kSharpen)), {-1, -1}, kBorder);
    cv::Ptr<cv::cuda::Filter> smooth = cv::cuda::createGaussianBlur(type, -1, {0, 0}, kSigma2, kSigma2, kBorder);

    cv::cuda::SyncedMat img(bgra);   // host valid (pinned copy), nothing on the device yet
    cv::cuda::Stream stream;
    const struct { const char* name; cv::Ptr<cv::cuda::Filter> filter; } chain[] = {
        {"cudaimage GaussianBlur sigma 1", denoise},
        {"cudafilters linear filter (sharpen)", sharpen},
        {"cudaimage GaussianBlur sigma 2", smooth}};
    for (const auto& step : chain)
    {
        cv::cuda::applyFilter(step.filter, img, stream);   // in place: read-write on the device
        const cv::cuda::TransferStats s = img.stats();
        std::printf("  after %-38s uploads %d, downloads %d\n", step.name, s.uploads, s.downloads);
    }
    const cv::Mat result = img.readHost();   // the one download; blocks until it is done

    const cv::cuda::TransferStats s = img.stats();
    const double mb = bgra.total() * bgra.elemSize() / 1e6;
    std::printf("transfers: %d upload(s) (%.2f MB), %d download(s) (%.2f MB); by reason:", s.uploads,
                s.uploadBytes / 1e6, s.downloads, s.downloadBytes / 1e6);
    for (int r = 0; r < cv::cuda::TransferStats::REASON_COUNT; ++r)
        if (s.count(r) > 0)
            std::printf(" %s %d", cv::cuda::TransferStats::reasonName(r).c_str(), s.count(r));
    std::printf("\n");
    std::printf("an upload and a download around each of the %d filters would have copied %.2f MB, "
                "this copied %.2f MB\n", 3, 2 * 3 * mb, (s.uploadBytes + s.downloadBytes) / 1e6);

    const double diff = cv::norm(result, expected, cv::NORM_INF);
    std::printf("max |GPU chain - CPU chain| = %g\n", diff);
#ifdef CUDAIMAGE_HAVE_IMGCODECS
    if (!output.empty() && !cv::imwrite(output, result))
    {
        std::fprintf(stderr, "pipeline: cannot write %s\n", output.c_str());
        return 1;
    }
#endif
    // The blurs are bit-exact and the sharpen's integer taps make its float sums exact, so the
    // chains should agree; 1 level of slack for the linear filter's rounding.
    if (s.uploads != 1 || s.downloads != 1 || diff > 1)
    {
        std::fprintf(stderr, "pipeline: FAILED (expected 1 upload, 1 download, difference <= 1)\n");
        return 1;
    }
    std::printf("OK: one upload, one download\n");
    return 0;
}
