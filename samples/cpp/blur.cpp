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
#include <cstdlib>
#include <string>

namespace {

constexpr int kSkipped = 77;

std::string findTestImage(const char* argv0)
{
    // From the working folder and from the program's folder (build-standalone/samples/,
    // the bundle's bin/samples/) upwards.
    std::string bases[] = {".", std::string(argv0).substr(0, std::string(argv0).find_last_of('/') + 1) + "."};
    for (const std::string& base : bases)
    {
        std::string up;
        for (int i = 0; i < 5; ++i, up += "../")
        {
            const std::string p = base + "/" + up + "samples/data/blur_test.png";
            if (FILE* f = std::fopen(p.c_str(), "rb")) { std::fclose(f); return p; }
        }
    }
    return "";
}

// A colour test card when there is no image file (or no imgcodecs): bars, stripes, a circle.
cv::Mat syntheticImage()
{
    cv::Mat img(384, 512, CV_8UC3);
    for (int x = 0; x < img.cols; ++x)
        img.col(x).setTo(cv::Scalar(x / 2, 255 - x / 2, (x * 7) % 256));
    for (int y = 200; y < 300; y += 2)
        img.row(y).setTo(cv::Scalar::all(255));
    cv::circle(img, {380, 110}, 60, cv::Scalar(0, 0, 255), cv::FILLED, cv::LINE_AA);
    return img;
}

cv::Mat labelled(const cv::Mat& img, const std::string& text)
{
    const int band = 28;
    cv::Mat out;
    cv::copyMakeBorder(img, out, band, 0, 0, 0, cv::BORDER_CONSTANT, cv::Scalar::all(32));
    cv::putText(out, text, {6, band - 9}, cv::FONT_HERSHEY_SIMPLEX, 0.55, cv::Scalar::all(255), 1, cv::LINE_AA);
    return out;
}

double msPerCall(int repeats, const cv::TickMeter& tm) { return tm.getTimeMilli() / repeats; }

} // namespace

int main(int argc, char** argv)
{
    std::string input, outDir = ".";
    double sigma = 2.0;
    int repeats = 20;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if ((a == "--sigma" || a == "--output-dir" || a == "--repeats") && i + 1 < argc)
        {
            const std::string v = argv[++i];
            if (a == "--sigma") sigma = std::atof(v.c_str());
            else if (a == "--output-dir") outDir = v;
            else repeats = std::max(1, std::atoi(v.c_str()));
        }
        else if (a == "-h" || a == "--help")
        {
            std::printf("usage: %s [IMAGE] [--sigma S] [--output-dir DIR] [--repeats N]\n", argv[0]);
            return 0;
        }
        else if (!a.empty() && a[0] != '-' && input.empty())
            input = a;
        else
        {
            std::fprintf(stderr, "blur: unknown argument '%s' (see --help)\n", a.c_str());
            return 1;
        }
    }
    if (!(sigma > 0))
    {
        std::fprintf(stderr, "blur: --sigma must be > 0\n");
        return 1;
    }

    // 1. The device first, as the tutorial's installation check.
    const int devices = cv::cuda::getCudaEnabledDeviceCount();
    if (devices > 0)
    {
        cv::cuda::DeviceInfo info;
        std::printf("CUDA device: %s (sm_%d%d, %zu MiB)\n", info.name(), info.majorVersion(),
                    info.minorVersion(), info.totalMemory() >> 20);
    }
    else
        std::printf("no CUDA device (%s): CPU part only\n", devices < 0 ? "no driver" : "none found");

    // 2. A colour image, kept in colour.
    cv::Mat img;
#ifdef CUDAIMAGE_HAVE_IMGCODECS
    if (input.empty())
        input = findTestImage(argv[0]);
    if (!input.empty())
    {
        img = cv::imread(input, cv::IMREAD_COLOR);
        if (img.empty())
        {
            std::fprintf(stderr, "blur: cannot read %s\n", input.c_str());
            return 1;
        }
    }
#endif
    if (img.empty())
    {
        input = "(synthetic test card)";
        img = syntheticImage();
    }
    std::printf("input: %s (%dx%d, %d channels)\n", input.c_str(), img.cols, img.rows, img.channels());

    // Kernel size from sigma (13x13 for sigma 2 on 8-bit images) and replicated borders on both
    // sides, so both paths compute the same thing.
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
    std::printf("CPU cv::GaussianBlur:               %8.3f ms per blur (%d threads), %8.1f Mpixel/s\n",
                msPerCall(repeats, tmCpu), cv::getNumThreads(), mpix / (msPerCall(repeats, tmCpu) * 1e-3));

    if (devices < 1)
        return kSkipped;

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
