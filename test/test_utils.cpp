#include "test_precomp.hpp"

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

} // namespace cudaimage_test
