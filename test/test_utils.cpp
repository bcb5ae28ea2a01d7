#include "test_precomp.hpp"

#include <cstdlib>

namespace cudaimage_test {

const std::string& gpuUnavailableReason()
{
    static const std::string reason = [] {
        int n = cv::cuda::getCudaEnabledDeviceCount();
        if (n == -1) return std::string("no CUDA driver (getCudaEnabledDeviceCount() = -1)");
        if (n == 0) return std::string("no CUDA device");
        if (!cv::cuda::DeviceInfo().isCompatible())
            return std::string("this build has no code for the device's architecture");
        return std::string();
    }();
    return reason;
}

cv::Mat randomMat(cv::Size size, int type, cv::RNG& rng)
{
    cv::Mat m(size, type);
    switch (CV_MAT_DEPTH(type))
    {
    case CV_8U:  rng.fill(m, cv::RNG::UNIFORM, 0, 256); break;
    case CV_8S:  rng.fill(m, cv::RNG::UNIFORM, -128, 128); break;
    case CV_16U: rng.fill(m, cv::RNG::UNIFORM, 0, 65536); break;
    case CV_16S: rng.fill(m, cv::RNG::UNIFORM, -32768, 32768); break;
    case CV_32S: rng.fill(m, cv::RNG::UNIFORM, -1000000, 1000000); break;
    default:     rng.fill(m, cv::RNG::UNIFORM, -1000.0, 1000.0); break;
    }
    return m;
}

int countDifferent(const cv::Mat& a, const cv::Mat& b)
{
    if (a.size() != b.size() || a.type() != b.type())
        return -1;
    cv::Mat ne;
    cv::compare(a.reshape(1), b.reshape(1), ne, cv::CMP_NE);
    return cv::countNonZero(ne);
}

int envInt(const char* name, int dflt)
{
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : dflt;
}

cv::Mat toHost(const cv::cuda::GpuMat& g, cv::cuda::Stream& s)
{
    cv::Mat h;
    g.download(h, s);
    s.waitForCompletion();
    return h;
}

cv::cuda::Stream& noCudaStream()
{
    static thread_local cv::cuda::Stream s = cv::cuda::wrapStream(0);
    return s;
}

} // namespace cudaimage_test
