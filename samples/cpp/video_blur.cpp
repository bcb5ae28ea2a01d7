// Streaming frames through the GPU: upload, blur and download of successive frames overlap, on two
// CUDA streams with page-locked (pinned) host memory, and the frame rate is compared with what the
// PCIe link allows, measured in the same run.
//
//   video_blur [--frames N] [--size WxH] [--sigma S] [--streams K] [--input IMAGE]
//
// No video codec is involved: the "decoder" is a pool of 8 frames already in pinned memory (the
// input image, by default samples/data/blur_test.png, scrolled sideways), which is what a real
// decoder writing into pinned buffers hands over. Each frame i goes to stream i % K:
//
//   stream 0:  [up 0][blur 0][down 0]            [up 2][blur 2][down 2]
//   stream 1:         [up 1][blur 1][down 1]            [up 3] ...
//
// The GPU has separate copy engines for each direction, so an upload on one stream runs while the
// other stream downloads; a frame slot is reused only after its stream finished (the host waits for
// the stream of frame i - K before enqueuing frame i). For a blur that takes less time than a copy,
// the best possible rate is the copy-only rate: the same loop without the blur, measured here too.
//
// Prints: the pinned copy rates (H2D, D2H), the sequential rate (one stream, wait per frame), the
// copy-only limit and the pipelined rate as a fraction of it. The first frames of the pipelined
// path are checked against CPU cv::GaussianBlur (bit-exact for 8-bit images).
//
// Exit status: 0 done; 1 failure (wrong pixels, bad arguments); 77 no CUDA device.
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/cudaimage.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "sample_util.hpp"

namespace {

constexpr int kPoolFrames = 8;

// dst = src scrolled left by `shift` columns (with wrap-around), written into dst's own memory.
void scroll(const cv::Mat& src, cv::Mat& dst, int shift)
{
    const int w = src.cols, s = shift % w;
    if (s == 0)
    {
        src.copyTo(dst);
        return;
    }
    src.colRange(s, w).copyTo(dst.colRange(0, w - s));
    src.colRange(0, s).copyTo(dst.colRange(w - s, w));
}

double fpsOf(int frames, const cv::TickMeter& tm) { return frames / (tm.getTimeSec() > 0 ? tm.getTimeSec() : 1e-9); }

} // namespace

int main(int argc, char** argv)
{
    const char* usage = "[--frames N] [--size WxH] [--sigma S] [--streams K (1-16)] [--input IMAGE]";
    sample::CommandLine cl;
    if (const int status = sample::parseCommandLine(argc, argv, {"--frames", "--size", "--sigma", "--streams", "--input"},
                                                    false, usage, cl);
        status >= 0)
        return status;
    const int frames = static_cast<int>(cl.number("--frames", 300));
    const double sigma = cl.number("--sigma", 2.0);
    const int K = static_cast<int>(cl.number("--streams", 2));
    cv::Size size(1920, 1080);
    if (std::sscanf(cl.text("--size", "1920x1080").c_str(), "%dx%d", &size.width, &size.height) != 2 || frames < 1 ||
        !(sigma > 0) || K < 1 || K > 16 || size.width < 8 || size.height < 8)
    {
        std::fprintf(stderr, "usage: %s %s\n", argv[0], usage);
        return 1;
    }
    if (sample::printCudaDevice() < 1)
        return sample::kSkipped;   // nothing to stream

    // --- frames in pinned memory ------------------------------------------------------------------
    std::string input = cl.text("--input");   // the "decoded" picture: --input, the test image or the test card
    const cv::Mat picture = sample::loadImage(input, argv[0]);
    if (picture.empty())
        return 1;
    cv::Mat base;
    cv::resize(picture, base, size, 0, 0, cv::INTER_AREA);
    const int type = base.type();
    const double frameBytes = double(base.total() * base.elemSize());
    std::vector<cv::cuda::HostMem> poolMem;
    std::vector<cv::Mat> pool, expected;   // pool: headers on poolMem (no reference count of their own)
    poolMem.reserve(kPoolFrames);
    for (int p = 0; p < kPoolFrames; ++p)
    {
        poolMem.emplace_back(size, type, cv::cuda::HostMem::PAGE_LOCKED);
        pool.push_back(poolMem.back().createMatHeader());
        scroll(base, pool.back(), p * size.width / kPoolFrames);
        cv::Mat ref;
        cv::GaussianBlur(pool.back(), ref, {0, 0}, sigma, sigma, cv::BORDER_REPLICATE);
        expected.push_back(ref);
    }
    std::printf("frames: %d of %dx%d %s (%.2f MB each), pinned pool of %d, %d stream(s), sigma %g\n",
                frames, size.width, size.height, cv::typeToString(type).c_str(), frameBytes / 1e6,
                kPoolFrames, K, sigma);

    // --- per-stream slots: a stream, device input/output, pinned output ------------------------------
    std::vector<cv::cuda::Stream> streams(K);
    std::vector<cv::cuda::GpuMat> dIn, dOut;
    std::vector<cv::cuda::HostMem> outMem;
    std::vector<cv::Mat> hostOut;
    outMem.reserve(K);
    for (int k = 0; k < K; ++k)
    {
        dIn.emplace_back(size, type);
        dOut.emplace_back(size, type);
        outMem.emplace_back(size, type, cv::cuda::HostMem::PAGE_LOCKED);
        hostOut.push_back(outMem.back().createMatHeader());
    }
    cv::Ptr<cv::cuda::Filter> blur =
        cv::cuda::createGaussianBlur(type, -1, {0, 0}, sigma, sigma, cv::BORDER_REPLICATE);

    // The streaming loop: frame i is uploaded, blurred (or, withBlur false, only copied back) and
    // downloaded on stream i % K; `consume` sees frame i's result once its stream is done with it.
    auto streamFrames = [&](int frames, bool withBlur, const std::function<void(int, const cv::Mat&)>& consume) {
        for (int i = 0; i < frames + K; ++i)
        {
            const int k = i % K;
            if (i >= K)   // the slot's previous frame (i - K) is done: hand it over, reuse the slot
            {
                streams[k].waitForCompletion();
                if (consume)
                    consume(i - K, hostOut[k]);
            }
            if (i >= frames)
                continue;
            dIn[k].upload(pool[i % kPoolFrames], streams[k]);   // pinned: asynchronous
            if (withBlur)
            {
                blur->apply(dIn[k], dOut[k], streams[k]);
                dOut[k].download(hostOut[k], streams[k]);
            }
            else
                dIn[k].download(hostOut[k], streams[k]);
        }
    };

    // --- 1. correctness of the pipelined path, and warm-up (scratch images per stream) -------------
    int wrong = 0;
    streamFrames(std::max(kPoolFrames, K), true, [&](int i, const cv::Mat& out) {
        const double d = cv::norm(out, expected[i % kPoolFrames], cv::NORM_INF);
        if (d != 0)
        {
            ++wrong;
            std::fprintf(stderr, "frame %d: max |GPU - CPU| = %g\n", i, d);
        }
    });
    streamFrames(K, false, nullptr);
    std::printf("check: first %d frames of the pipelined path %s CPU cv::GaussianBlur\n",
                std::max(kPoolFrames, K), wrong ? "DIFFER from" : "equal");

    // --- 2. the PCIe link: pinned copies in each direction, event-timed ------------------------------
    auto copyRate = [&](bool h2d) {
        const int reps = std::max(10, std::min(200, int(2e9 / frameBytes)));   // about 2 GB
        cv::cuda::Event start, stop;
        start.record(streams[0]);
        for (int r = 0; r < reps; ++r)
        {
            if (h2d) dIn[0].upload(pool[r % kPoolFrames], streams[0]);
            else dIn[0].download(hostOut[0], streams[0]);
        }
        stop.record(streams[0]);
        stop.waitForCompletion();
        return reps * frameBytes / (cv::cuda::Event::elapsedTime(start, stop) * 1e-3) / 1e9;
    };
    const double h2d = copyRate(true), d2h = copyRate(false);
    std::printf("PCIe, pinned memory, measured now: host->device %.1f GB/s, device->host %.1f GB/s\n", h2d, d2h);

    // --- 3. sequential: one frame at a time ----------------------------------------------------------
    cv::TickMeter tmSeq;
    tmSeq.start();
    for (int i = 0; i < frames; ++i)
    {
        dIn[0].upload(pool[i % kPoolFrames], streams[0]);
        blur->apply(dIn[0], dOut[0], streams[0]);
        dOut[0].download(hostOut[0], streams[0]);
        streams[0].waitForCompletion();
    }
    tmSeq.stop();

    // --- 4. copy-only limit and the pipelined blur, same loop -----------------------------------------
    cv::TickMeter tmCopy, tmPipe;
    tmCopy.start();
    streamFrames(frames, false, nullptr);
    tmCopy.stop();
    tmPipe.start();
    streamFrames(frames, true, nullptr);
    tmPipe.stop();

    const double fpsSeq = fpsOf(frames, tmSeq), fpsCopy = fpsOf(frames, tmCopy), fpsPipe = fpsOf(frames, tmPipe);
    // One upload and one download per frame: with both directions at full speed at once, the link
    // allows min(h2d, d2h) / frameBytes frames per second; one direction at a time, half the harmonic.
    const double fpsDuplex = std::min(h2d, d2h) * 1e9 / frameBytes;
    const double fpsSimplex = 1e9 / (frameBytes / h2d + frameBytes / d2h);
    std::printf("PCIe limit from those rates: %.0f fps if both directions overlap, %.0f fps if not\n",
                fpsDuplex, fpsSimplex);
    std::printf("sequential (1 stream, wait per frame):      %8.1f fps\n", fpsSeq);
    std::printf("copy only (%d streams, upload + download):   %8.1f fps  = the copy limit of this loop\n", K, fpsCopy);
    std::printf("pipelined blur (%d streams):                 %8.1f fps  = %.0f%% of the copy limit, "
                "%.0f%% of the duplex PCIe limit, %.2fx sequential; %.1f GB/s each way\n",
                K, fpsPipe, 100 * fpsPipe / fpsCopy, 100 * fpsPipe / fpsDuplex, fpsPipe / fpsSeq,
                fpsPipe * frameBytes / 1e9);
    return wrong ? 1 : 0;
}
