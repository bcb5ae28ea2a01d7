// What the C++ samples share, so that each of them reads as the example it is: the command line,
// the input image and the device line. Not a sample itself: the build makes a program of each
// samples/cpp/*.cpp only.
#ifndef CUDAIMAGE_SAMPLE_UTIL_HPP
#define CUDAIMAGE_SAMPLE_UTIL_HPP

#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgproc.hpp>
#ifdef CUDAIMAGE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <string>

namespace sample {

// Exit status without a CUDA device: CTest (SKIP_RETURN_CODE) and the GPU bundle's run-all.sh
// report it as "skipped".
constexpr int kSkipped = 77;

// A command line of `--name value` options and at most one image path (where the sample takes one).
struct CommandLine
{
    std::string image;
    std::map<std::string, std::string> options;

    double number(const std::string& name, double fallback) const
    {
        const auto it = options.find(name);
        return it == options.end() ? fallback : std::atof(it->second.c_str());
    }
    std::string text(const std::string& name, const std::string& fallback = "") const
    {
        const auto it = options.find(name);
        return it == options.end() ? fallback : it->second;
    }
};

// Parses argv into `cl`, accepting the options named in `valueOptions` (each followed by its value)
// and, with `takesImage`, one image path. Returns -1 to go on; otherwise the exit status: 0 after
// printing `usage` for -h/--help, 1 after saying which argument is wrong.
inline int parseCommandLine(int argc, char** argv, std::initializer_list<const char*> valueOptions,
                            bool takesImage, const char* usage, CommandLine& cl)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        bool known = false;
        for (const char* name : valueOptions)
            known = known || a == name;
        if (known && i + 1 < argc)
            cl.options[a] = argv[++i];
        else if (a == "-h" || a == "--help")
        {
            std::printf("usage: %s %s\n", argv[0], usage);
            return 0;
        }
        else if (takesImage && !a.empty() && a[0] != '-' && cl.image.empty())
            cl.image = a;
        else
        {
            std::fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", argv[0], a.c_str());
            return 1;
        }
    }
    return -1;
}

// samples/data/blur_test.png, looked up from the current folder and from the program's folder
// (build-standalone/samples/, the bundle's bin/samples/) upwards; "" when it is not there.
inline std::string findTestImage(const char* argv0)
{
    const std::string program(argv0);
    const std::string bases[] = {".", program.substr(0, program.find_last_of('/') + 1) + "."};
    for (const std::string& base : bases)
    {
        std::string up;
        for (int i = 0; i < 5; ++i, up += "../")
        {
            const std::string p = base + "/" + up + "samples/data/blur_test.png";
            if (FILE* f = std::fopen(p.c_str(), "rb"))
            {
                std::fclose(f);
                return p;
            }
        }
    }
    return "";
}

// A colour test card: bars, stripes and a circle.
inline cv::Mat testCard(cv::Size size = cv::Size(512, 384))
{
    cv::Mat img(size, CV_8UC3);
    for (int x = 0; x < img.cols; ++x)
        img.col(x).setTo(cv::Scalar(x / 2 % 256, 255 - x / 2 % 256, (x * 7) % 256));
    for (int y = img.rows / 2; y < img.rows * 3 / 4; y += 2)
        img.row(y).setTo(cv::Scalar::all(255));
    cv::circle(img, {img.cols * 3 / 4, img.rows / 4}, img.rows / 6, cv::Scalar(0, 0, 255), cv::FILLED, cv::LINE_AA);
    return img;
}

// The colour image to work on: `path`, or when it is empty the test image, or when there is none
// (or no imgcodecs) the test card; `path` then names what was used. An empty Mat, after a
// message, when `path` cannot be read.
inline cv::Mat loadImage(std::string& path, const char* argv0)
{
#ifdef CUDAIMAGE_HAVE_IMGCODECS
    if (path.empty())
        path = findTestImage(argv0);
    if (!path.empty())
    {
        cv::Mat img = cv::imread(path, cv::IMREAD_COLOR);
        if (img.empty())
            std::fprintf(stderr, "%s: cannot read %s\n", argv0, path.c_str());
        return img;
    }
#else
    (void)argv0;
#endif
    path = "(test card)";
    return testCard();
}

// Prints the CUDA device, or why there is none, as the first line; returns the number of devices.
inline int printCudaDevice()
{
    const int devices = cv::cuda::getCudaEnabledDeviceCount();
    if (devices > 0)
    {
        const cv::cuda::DeviceInfo info;
        std::printf("CUDA device: %s (sm_%d%d, %zu MiB)\n", info.name(), info.majorVersion(), info.minorVersion(),
                    info.totalMemory() >> 20);
    }
    else
        std::printf("no CUDA device (%s)\n", devices < 0 ? "no driver" : "none found");
    return devices;
}

} // namespace sample

#endif
