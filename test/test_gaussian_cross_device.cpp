// The Gaussian filter on several GPUs: a filter belongs to the device it was created on and refuses
// another device's thread, memory and stream; the one-shot blur follows the current device.
// CudaImage_MultiGpu2.*: two GPUs; they skip with "needs 2 GPUs" elsewhere.
// Error messages are printed as "[ MULTIGPU ] test | code | message" (doc/errors.md quotes them).
#include "test_precomp.hpp"
#include "multi_gpu_helpers.hpp"

#include <string>

namespace opencv_test { namespace {

//////////////////////////////////////////////////////////////////////////////////////////////
// Two GPUs

TEST(CudaImage_MultiGpu2, filter_refuses_memory_thread_and_stream_of_another_device)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    const Mat host(64, 64, CV_8UC1, Scalar(100));
    Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(5, 5), 1);
    GpuMat src0(host), dst0;
    cv::cuda::setDevice(dev1);
    GpuMat src1(host), dst1(host.size(), host.type());
    Stream s1;
    const std::string d0 = std::to_string(dev0), d1 = std::to_string(dev1);
    expectError([&] { f->apply(src1, dst1, s1); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBlur: the filter was created on CUDA device " + d0 +
                 " but the calling thread's current device is " + d1});
    cv::cuda::setDevice(dev0);
    expectError([&] { f->apply(src1, dst0); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBlur: src lives on CUDA device " + d1 + " but the filter was created on device " + d0});
    expectError([&] { f->apply(src0, dst1); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBlur: dst lives on CUDA device " + d1 + " but the filter was created on device " + d0});
    expectError([&] { f->apply(src0, dst0, s1); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBlur: the stream belongs to CUDA device " + d1});
    EXPECT_TRUE(dst0.empty());
    // And it works with what belongs to it.
    f->apply(src0, dst0);
    Mat expected;
    cv::GaussianBlur(host, expected, Size(5, 5), 1, 1, cv::BORDER_REPLICATE);
    Stream& n0 = Stream::Null();
    EXPECT_MAT_EQ(expected, toHost(dst0, n0));
}

TEST(CudaImage_MultiGpu2, oneshot_gaussian_follows_the_current_device)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    cv::RNG rng(13);
    const Mat host = cudaimage_test::randomMat(Size(200, 100), CV_8UC3, rng);
    const Mat expected = cpuBlur(host, 2.0);
    for (int dev : { dev0, dev1, dev0 })
    {
        cv::cuda::setDevice(dev);
        GpuMat src(host), dst;
        cv::cuda::GaussianBlur(src, dst, Size(0, 0), 2.0);
        EXPECT_MAT_EQ(expected, toHost(dst, Stream::Null())) << "device " << dev;
    }
    cv::cuda::setDevice(dev0);
}

}} // namespace opencv_test::<anonymous>
