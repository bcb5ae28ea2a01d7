// cudaimage-blur: Gaussian blur of an image file on the GPU (cudaimage) or on the CPU.
//
//   cudaimage-blur IN OUT --sigma S [--sigma-y SY] [--ksize K|WxH]
//                  [--border replicate|reflect101|reflect|wrap|constant] [--cpu] [--bench [N]]
//
// The image is read unchanged (8-bit, 16-bit or float; 1 to 4 channels), blurred with the same
// arguments CPU cv::GaussianBlur takes, and written in OUT's format (by its extension). The GPU
// result is bit-exact with the CPU one for 8- and 16-bit images, so --cpu gives the same file.
//
// Exit status: 0 done; 1 the work failed (unreadable input, unwritable output, no CUDA device
// without --cpu, an OpenCV or CUDA error); 2 bad command line. Messages go to stderr and start with
// "cudaimage-blur: error:".
//
// Built as $OPENCV_BUILD/bin/cudaimage-blur by the module build (target opencv_cudaimage_blur,
// installed to bin/) and as build-standalone/cudaimage-blur by the standalone build.
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/cudaimage.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char* const kProgram = "cudaimage-blur";

const char* const kUsage =
    "usage: cudaimage-blur IN OUT --sigma S [options]\n"
    "\n"
    "Gaussian blur of the image file IN into OUT (format from OUT's extension), on the GPU with\n"
    "cv::cuda::createGaussianBlur (cudaimage) or on the CPU with cv::GaussianBlur. 8- and 16-bit\n"
    "results are identical on both.\n"
    "\n"
    "options:\n"
    "  --sigma S         Gaussian sigma in x (required; > 0, or 0 with --ksize to derive it)\n"
    "  --sigma-y SY      sigma in y (default: S)\n"
    "  --ksize K|WxH     kernel size, odd (default 0: from sigma, OpenCV's rule)\n"
    "  --border B        replicate (default), reflect101, reflect, wrap, constant (zeros)\n"
    "  --cpu             blur on the CPU (cv::GaussianBlur) even when there is a CUDA device\n"
    "  --bench [N]       also time N blurs (default 50) after a warm-up and print ms, Mpixel/s, GB/s\n"
    "  -q, --quiet       print nothing on success\n"
    "  -h, --help        this text\n"
    "\n"
    "exit status: 0 done, 1 failed (I/O, no CUDA device without --cpu, OpenCV/CUDA error),\n"
    "2 bad command line\n";

// A bad command line: reported with a pointer to --help, exit status 2.
struct UsageError : std::runtime_error { using std::runtime_error::runtime_error; };
// Anything else that stops the work: exit status 1.
struct Failure : std::runtime_error { using std::runtime_error::runtime_error; };

struct Options
{
    std::string input, output;
    double sigmaX = -1, sigmaY = 0;
    bool haveSigma = false;
    cv::Size ksize{0, 0};
    int border = cv::BORDER_REPLICATE;
    std::string borderName = "replicate";
    bool cpu = false;
    int benchRuns = 0;   // 0: no benchmark
    bool quiet = false;
};

double parseDouble(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        throw UsageError(option + " needs a finite number, got '" + text + "'");
    return v;
}

int parseInt(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || v < 0 || v > (1 << 20))
        throw UsageError(option + " needs an integer from 0 to 1048576, got '" + text + "'");
    return static_cast<int>(v);
}

cv::Size parseKsize(const std::string& text)
{
    const size_t x = text.find_first_of("xX");
    const int w = parseInt("--ksize", text.substr(0, x));
    const int h = x == std::string::npos ? w : parseInt("--ksize", text.substr(x + 1));
    for (int k : {w, h})
        if (k != 0 && k % 2 == 0)
            throw UsageError("--ksize must be 0 or odd, got '" + text + "'");
    if ((w == 0) != (h == 0))
        throw UsageError("--ksize: give both sizes odd, or 0 alone, got '" + text + "'");
    return {w, h};
}

int parseBorder(const std::string& text)
{
    static const struct { const char* name; int mode; } kBorders[] = {
        {"replicate", cv::BORDER_REPLICATE}, {"reflect101", cv::BORDER_REFLECT_101},
        {"reflect_101", cv::BORDER_REFLECT_101}, {"reflect", cv::BORDER_REFLECT},
        {"wrap", cv::BORDER_WRAP}, {"constant", cv::BORDER_CONSTANT}};
    for (const auto& b : kBorders)
        if (text == b.name)
            return b.mode;
    throw UsageError("--border must be replicate, reflect101, reflect, wrap or constant, got '" + text + "'");
}

Options parseArgs(int argc, char** argv)
{
    Options o;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i], value;
        bool inlineValue = false;
        if (arg.size() > 2 && arg.compare(0, 2, "--") == 0)
        {
            const size_t eq = arg.find('=');
            if (eq != std::string::npos)
            {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                inlineValue = true;
            }
        }
        auto next = [&]() -> std::string {
            if (inlineValue)
                return value;
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "-h" || arg == "--help")
        {
            std::cout << kUsage;
            std::exit(0);
        }
        else if (arg == "--sigma")   { o.sigmaX = parseDouble(arg, next()); o.haveSigma = true; }
        else if (arg == "--sigma-y") { o.sigmaY = parseDouble(arg, next()); }
        else if (arg == "--ksize")   { o.ksize = parseKsize(next()); }
        else if (arg == "--border")  { o.borderName = next(); o.border = parseBorder(o.borderName); }
        else if (arg == "--cpu")     { o.cpu = true; }
        else if (arg == "-q" || arg == "--quiet") { o.quiet = true; }
        else if (arg == "--bench")
        {
            o.benchRuns = 50;
            if (inlineValue)
                o.benchRuns = parseInt(arg, value);
            else if (i + 1 < argc && argv[i + 1][0] != '\0' &&
                     std::string(argv[i + 1]).find_first_not_of("0123456789") == std::string::npos)
                o.benchRuns = parseInt(arg, argv[++i]);   // a file name such as "2.png" stays a file
            if (o.benchRuns < 1)
                throw UsageError("--bench needs at least 1 run");
        }
        else if (arg.size() > 1 && arg[0] == '-')
            throw UsageError("unknown option '" + arg + "'");
        else
            positional.push_back(arg);
    }
    if (positional.size() != 2)
        throw UsageError("expected IN and OUT, got " + std::to_string(positional.size()) + " file name(s)");
    o.input = positional[0];
    o.output = positional[1];
    if (!o.haveSigma)
        throw UsageError("--sigma is required");
    if (o.sigmaX < 0 || o.sigmaY < 0)
        throw UsageError("--sigma and --sigma-y must be >= 0");
    if (o.sigmaX == 0 && o.ksize.width == 0)
        throw UsageError("--sigma 0 needs --ksize (the sigma is then derived from the kernel size)");
    return o;
}

std::string typeName(const cv::Mat& m)
{
    return cv::typeToString(m.type());
}

// CPU cv::GaussianBlur rejects BORDER_WRAP; cudaimage defines it as the CPU result on the image
// padded by copyMakeBorder(BORDER_WRAP), which is what this computes.
void blurCpu(const cv::Mat& src, cv::Mat& dst, const Options& o)
{
    if (o.border != cv::BORDER_WRAP)
    {
        cv::GaussianBlur(src, dst, o.ksize, o.sigmaX, o.sigmaY, o.border);
        return;
    }
    // The kernel size GaussianBlur derives, to know how much padding is enough.
    const int kx = o.ksize.width > 0 ? o.ksize.width : cv::cuda::gaussianKernelSize(o.sigmaX, src.depth());
    const int ky = o.ksize.height > 0 ? o.ksize.height
                                      : cv::cuda::gaussianKernelSize(o.sigmaY > 0 ? o.sigmaY : o.sigmaX, src.depth());
    const int rx = kx / 2, ry = ky / 2;
    cv::Mat padded, blurred;
    cv::copyMakeBorder(src, padded, ry, ry, rx, rx, cv::BORDER_WRAP);
    cv::GaussianBlur(padded, blurred, cv::Size(kx, ky), o.sigmaX, o.sigmaY, cv::BORDER_REPLICATE);
    blurred(cv::Rect(rx, ry, src.cols, src.rows)).copyTo(dst);
}

void printRate(const char* what, double ms, const cv::Mat& img)
{
    const double mpix = img.total() / 1e6;
    const double bytes = 2.0 * img.total() * img.elemSize();   // read once, written once
    std::printf("  %-44s %9.3f ms  %9.1f Mpixel/s  %7.1f GB/s\n", what, ms, mpix / (ms * 1e-3),
                bytes / (ms * 1e-3) / 1e9);
}

int run(const Options& o)
{
    // Fail on the output before spending time on the input.
    if (!cv::haveImageWriter(o.output))
        throw UsageError("cannot write '" + o.output + "': no image format for that file name extension");
    {
        std::ifstream probe(o.input, std::ios::binary);
        if (!probe)
            throw Failure("cannot open '" + o.input + "': " + std::strerror(errno));
    }
    cv::Mat src = cv::imread(o.input, cv::IMREAD_UNCHANGED);
    if (src.empty())
        throw Failure("cannot read '" + o.input + "' as an image (unknown or damaged format)");
    const int depth = src.depth();
    if (depth != CV_8U && depth != CV_16U && depth != CV_16S && depth != CV_32F && depth != CV_64F)
        throw Failure("'" + o.input + "' is " + typeName(src) + "; supported depths: 8U, 16U, 16S, 32F, 64F");

    bool gpu = !o.cpu;
    std::string where = "CPU (cv::GaussianBlur)";
    if (gpu)
    {
        const int n = cv::cuda::getCudaEnabledDeviceCount();
        if (n < 1)
            throw Failure(std::string(n < 0 ? "no CUDA driver" : "no CUDA device") +
                          " (use --cpu to blur on the CPU)");
        cv::cuda::DeviceInfo info;
        where = std::string("GPU ") + info.name() + " (cudaimage)";
    }

    cv::Mat dst;
    if (gpu)
    {
        // One upload, one download: the SyncedMat counts them (printed with --bench).
        cv::cuda::SyncedMat in(src), out;
        cv::Ptr<cv::cuda::Filter> blur = cv::cuda::createGaussianBlur(
            src.type(), -1, o.ksize, o.sigmaX, o.sigmaY, o.border, o.border);
        cv::cuda::Stream stream;
        cv::cuda::applyFilter(blur, in, out, stream);
        dst = out.readHost();   // waits for the download
        if (o.benchRuns > 0)
        {
            std::printf("%s: %dx%d %s, %d runs after a warm-up, on %s\n", kProgram, src.cols, src.rows,
                        typeName(src).c_str(), o.benchRuns, where.c_str());
            cv::cuda::Event start, stop;
            start.record(stream);
            for (int i = 0; i < o.benchRuns; ++i)
                cv::cuda::applyFilter(blur, in, out, stream);   // device only: nothing to copy
            stop.record(stream);
            stop.waitForCompletion();
            printRate("blur on the device (data resident)", cv::cuda::Event::elapsedTime(start, stop) / o.benchRuns, src);

            // With transfers: new host data each time (upload), result read back (download).
            cv::TickMeter tm;
            for (int i = 0; i < o.benchRuns; ++i)
            {
                tm.start();
                cv::Mat host = in.writeHost();   // discard-write: nothing downloaded
                src.copyTo(host);
                cv::cuda::applyFilter(blur, in, out, stream);
                (void)out.readHost();
                tm.stop();
            }
            printRate("upload + blur + download (pinned memory)", tm.getTimeMilli() / o.benchRuns, src);
            const cv::cuda::TransferStats si = in.stats(), so = out.stats();
            std::printf("  transfers: %d uploads (%.1f MB), %d downloads (%.1f MB)\n",
                        si.uploads + so.uploads, (si.uploadBytes + so.uploadBytes) / 1e6,
                        si.downloads + so.downloads, (si.downloadBytes + so.downloadBytes) / 1e6);
            dst = out.readHost();
        }
    }
    else
    {
        blurCpu(src, dst, o);
        if (o.benchRuns > 0)
        {
            std::printf("%s: %dx%d %s, %d runs after a warm-up, on %s, %d threads\n", kProgram, src.cols,
                        src.rows, typeName(src).c_str(), o.benchRuns, where.c_str(), cv::getNumThreads());
            cv::TickMeter tm;
            tm.start();
            for (int i = 0; i < o.benchRuns; ++i)
                blurCpu(src, dst, o);
            tm.stop();
            printRate("cv::GaussianBlur", tm.getTimeMilli() / o.benchRuns, src);
        }
    }

    bool written = false;
    try
    {
        written = cv::imwrite(o.output, dst);
    }
    catch (const cv::Exception& e)
    {
        throw Failure("cannot write '" + o.output + "': " + e.err);
    }
    if (!written)
        throw Failure("cannot write '" + o.output + "' (folder missing or not writable, or the format "
                      "does not take a " + typeName(dst) + " image)");
    if (!o.quiet)
        std::printf("%s: %s (%dx%d %s) -> %s: sigma %g/%g, ksize %dx%d, border %s, on %s\n", kProgram,
                    o.input.c_str(), src.cols, src.rows, typeName(src).c_str(), o.output.c_str(), o.sigmaX,
                    o.sigmaY > 0 ? o.sigmaY : o.sigmaX, o.ksize.width, o.ksize.height, o.borderName.c_str(),
                    where.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try
    {
        return run(parseArgs(argc, argv));
    }
    catch (const UsageError& e)
    {
        std::cerr << kProgram << ": error: " << e.what() << "\n(see " << kProgram << " --help)\n";
        return 2;
    }
    catch (const Failure& e)
    {
        std::cerr << kProgram << ": error: " << e.what() << "\n";
        return 1;
    }
    catch (const cv::Exception& e)
    {
        // Arguments cv::cuda::createGaussianBlur refuses (e.g. a kernel too large) land here too.
        std::cerr << kProgram << ": error: " << (e.err.empty() ? e.what() : e.err) << " (in " << e.func << ")\n";
        return 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << kProgram << ": error: " << e.what() << "\n";
        return 1;
    }
}
