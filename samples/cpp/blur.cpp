// The seed tutorial's demo, in C++ with cudaimage: blur a colour image with sigma 2 on the GPU,
// compare it with CPU cv::GaussianBlur (time and pixels) and save original | blurred side by side.
//
//   blur [IMAGE] [--sigma S] [--output-dir DIR] [--repeats N]
//
// IMAGE defaults to samples/data/blur_test.png (looked up from the current folder and from this
// program's folder upwards). Writes DIR/blurred.png and DIR/side_by_side.png (DIR default: the
// current folder). The tutorial's kernel converts to grey, reads floats as bytes, recompiles on
// every call and copies both ways every time; here the image stays in colour, the filter is built
// once, and a SyncedMat pays exactly one upload and one download.
//
// Exit status: 0 done (GPU result identical to the CPU's); 1 failure; 77 no CUDA device (the CPU
// part still ran; 77 is what CTest and the bundle's run-all.sh report as "skipped").
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/cudaimage.hpp>
#ifdef CUDAIMAGE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <string>

#include "sample_util.hpp"

namespace {

cv::Mat labelled(const cv::Mat& img, const std::string& text)
{
    const int band = 28;
    cv::Mat out;
    cv::copyMakeBorder(img, out, band, 0, 0, 0, cv::BORDER_CONSTANT, cv::Scalar::all(32));
    cv::putText(out, text, {6, band - 9}, cv::FONT_HERSHEY_SIMPLEX, 0.55, cv::Scalar::all(255), 1, cv::LINE_AA);
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    sample::CommandLine cl;
    if (const int status = sample::parseCommandLine(argc, argv, {"--sigma", "--output-dir", "--repeats"}, true,
                                                    "[IMAGE] [--sigma S] [--output-dir DIR] [--repeats N]", cl);
        status >= 0)
        return status;
    const double sigma = cl.number("--sigma", 2.0);
    const std::string outDir = cl.text("--output-dir", ".");
    const int repeats = std::max(1, static_cast<int>(cl.number("--repeats", 20)));
    if (!(sigma > 0))
    {
        std::fprintf(stderr, "blur: --sigma must be > 0\n");
        return 1;
    }

    // 1. The device first, as the tutorial's installation check.
    const int devices = sample::printCudaDevice();

    // 2. A colour image, kept in colour.
    std::string input = cl.image;
    const cv::Mat img = sample::loadImage(input, argv[0]);
    if (img.empty())
        return 1;
    std::printf("input: %s (%dx%d, %d channels)\n", input.c_str(), img.cols, img.rows, img.channels());

    // Kernel size from sigma (cv::cuda::gaussianKernelSize: 13x13 for sigma 2 on 8-bit images) and
    // replicated borders on both sides, so both paths compute the same thing.
    const cv::Size ksize(0, 0);
    const int border = cv::BORDER_REPLICATE;

    // 3. CPU reference and its time.
    cv::Mat cpu;
    cv::GaussianBlur(img, cpu, ksize, sigma, sigma, border);   // warm-up
    cv::TickMeter tmCpu;
    tmCpu.start();
    for (int i = 0; i < repeats; ++i)
        cv::GaussianBlur(img, cpu, ksize, sigma, sigma, border);
    tmCpu.stop();
    const double mpix = img.total() / 1e6;
    const double msCpu = tmCpu.getTimeMilli() / repeats;
    std::printf("CPU cv::GaussianBlur:               %8.3f ms per blur (%d threads), %8.1f Mpixel/s\n",
                msCpu, cv::getNumThreads(), mpix / (msCpu * 1e-3));

    if (devices < 1)
        return sample::kSkipped;   // the CPU part ran

    // 4. The GPU: the filter is built once; the SyncedMat holds the image in pinned host memory
    //    and on the device, and copies only when a side is stale.
    cv::cuda::SyncedMat src(img), dst;
    cv::Ptr<cv::cuda::Filter> blur = cv::cuda::createGaussianBlur(img.type(), -1, ksize, sigma, sigma, border);
    cv::cuda::Stream stream;

    cv::TickMeter tmFirst;
    tmFirst.start();
    cv::cuda::applyFilter(blur, src, dst, stream);   // uploads src once; dst is written on the device
    cv::Mat gpu = dst.readHost();                    // downloads once and waits for it
    tmFirst.stop();

    // Device-only time (data resident: what a pipeline that keeps its images on the GPU pays),
    // on the device view of src into a plain GpuMat, so dst keeps its valid host side.
    cv::cuda::GpuMat srcDevice = src.readDevice(stream), scratch;
    blur->apply(srcDevice, scratch, stream);   // warm-up: allocates scratch outside the timing
    cv::cuda::Event start, stop;
    start.record(stream);
    for (int i = 0; i < repeats; ++i)
        blur->apply(srcDevice, scratch, stream);
    stop.record(stream);
    stop.waitForCompletion();
    const double msDevice = cv::cuda::Event::elapsedTime(start, stop) / repeats;
    std::printf("GPU cudaimage, data on the device:  %8.3f ms per blur,            %8.1f Mpixel/s\n",
                msDevice, mpix / (msDevice * 1e-3));
    std::printf("GPU first call incl. set-up, upload and download: %.3f ms\n", tmFirst.getTimeMilli());

    // The one-shot form gives the same pixels.
    cv::cuda::GpuMat oneShot;
    cv::cuda::GaussianBlur(srcDevice, oneShot, ksize, sigma, sigma, border, stream);
    cv::Mat oneShotHost;
    oneShot.download(oneShotHost, stream);
    stream.waitForCompletion();

    const double diff = cv::norm(gpu, cpu, cv::NORM_INF);
    const double diffOneShot = cv::norm(oneShotHost, cpu, cv::NORM_INF);
    std::printf("max |GPU - CPU| = %g, one-shot cv::cuda::GaussianBlur: %g (8-bit: bit-exact expected)\n",
                diff, diffOneShot);
    const cv::cuda::TransferStats s = src.stats(), d = dst.stats();
    std::printf("transfers: src %d upload(s), %d download(s); dst %d upload(s), %d download(s)\n",
                s.uploads, s.downloads, d.uploads, d.downloads);

#ifdef CUDAIMAGE_HAVE_IMGCODECS
    cv::Mat side;
    cv::hconcat(labelled(img, "original"), labelled(gpu, "GPU cudaimage sigma=" + cv::format("%g", sigma)), side);
    const std::string blurredPath = outDir + "/blurred.png", sidePath = outDir + "/side_by_side.png";
    if (!cv::imwrite(blurredPath, gpu) || !cv::imwrite(sidePath, side))
    {
        std::fprintf(stderr, "blur: cannot write into %s\n", outDir.c_str());
        return 1;
    }
    std::printf("wrote %s and %s\n", blurredPath.c_str(), sidePath.c_str());
#endif
    if (diff != 0 || diffOneShot != 0 || s.uploads != 1 || d.downloads != 1)
    {
        std::fprintf(stderr, "blur: FAILED: the GPU result differs from the CPU's or unexpected transfers\n");
        return 1;
    }
    return 0;
}
