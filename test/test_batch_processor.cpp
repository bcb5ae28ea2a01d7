// The batch helper (cv::cuda::BatchProcessor, processBatch, processBatchGaussian): a list of images
// spread over the GPUs of a host, each result equal to the image's blur alone, in order.
//  - CudaImage_MultiGpuArgs.batch_*: what must fail before any CUDA call; no GPU needed.
//  - CudaImage_MultiGpu.batch_*: one GPU (batches on one device against CPU cv::GaussianBlur,
//    groups of small images, ROI, pageable and page-locked images, SyncedMat transfer counts,
//    failures of the factory and in workers).
//  - CudaImage_MultiGpu2.batch_*: batches over two devices; they skip with "needs 2 GPUs" elsewhere.
// Error messages are printed as "[ MULTIGPU ] test | code | message" (doc/errors.md quotes them).
#include "test_precomp.hpp"
#include "multi_gpu_helpers.hpp"

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace opencv_test { namespace {

using cv::cuda::BatchProcessor;
using cv::cuda::FilterFactory;

FilterFactory gaussianFactory(int type, double sigma)
{
    return [type, sigma] { return cv::cuda::createGaussianBlur(type, -1, Size(0, 0), sigma); };
}

// Images of different sizes (1x1, a row, a column, a prime square, full HD) and so different
// results: a result out of order cannot match.
std::vector<Mat> mixedImages(int type, int n, cv::RNG& rng)
{
    const Size sizes[] = { Size(1, 1), Size(37, 1), Size(1, 37), Size(113, 113), Size(640, 480),
                           Size(1920, 1080), Size(97, 61) };
    std::vector<Mat> v;
    for (int i = 0; i < n; ++i)
        v.push_back(cudaimage_test::randomMat(sizes[i % 7], type, rng));
    return v;
}

// A filter that fails on images of one width; otherwise a Gaussian blur of 8UC1.
struct FailOnWidth : public cv::cuda::Filter
{
    FailOnWidth(int width, bool stdException) : width_(width), std_(stdException),
        inner_(cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1.5)) {}

    void apply(cv::InputArray src, cv::OutputArray dst, Stream& stream) override
    {
        if (src.size().width == width_)
        {
            if (std_)
                throw std::runtime_error("refused width " + std::to_string(width_));
            CV_Error_(cv::Error::StsBadSize, ("refused width %d", width_));
        }
        inner_->apply(src, dst, stream);
    }

    int width_;
    bool std_;
    Ptr<cv::cuda::Filter> inner_;
};

//////////////////////////////////////////////////////////////////////////////////////////////
// No GPU needed

TEST(CudaImage_MultiGpuArgs, batch_null_factory)
{
    std::vector<Mat> images(1, Mat(4, 4, CV_8UC1, Scalar(1))), results;
    expectError([&] { cv::cuda::processBatch(images, FilterFactory(), results); }, cv::Error::StsNullPtr,
                {"cv::cuda::processBatch", "the filter factory is null"});
    expectError([&] { BatchProcessor::create(FilterFactory()); }, cv::Error::StsNullPtr,
                {"cv::cuda::BatchProcessor::create", "the filter factory is null"});
}

TEST(CudaImage_MultiGpuArgs, batch_empty_list)
{
    int calls = 0;
    FilterFactory counting = [&] { ++calls; return cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1); };
    std::vector<Mat> images, results;
    expectError([&] { cv::cuda::processBatch(images, counting, results); }, cv::Error::StsBadArg,
                {"images is empty"});
    std::vector<SyncedMat> synced, syncedResults;
    expectError([&] { cv::cuda::processBatch(synced, counting, syncedResults); }, cv::Error::StsBadArg,
                {"images is empty"});
    expectError([&] { cv::cuda::processBatchGaussian(images, results, Size(3, 3), 1); }, cv::Error::StsBadArg,
                {"cv::cuda::processBatchGaussian", "images is empty"});
    EXPECT_EQ(0, calls);
}

TEST(CudaImage_MultiGpuArgs, batch_empty_image)
{
    std::vector<Mat> images = { Mat(4, 4, CV_8UC1, Scalar(1)), Mat(3, 3, CV_8UC1, Scalar(2)), Mat() }, results;
    expectError([&] { cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1), results); }, cv::Error::StsBadArg,
                {"images[2] is empty"});
    EXPECT_TRUE(results.empty());
}

TEST(CudaImage_MultiGpuArgs, batch_3d_image)
{
    const int sz[] = { 2, 3, 4 };
    std::vector<Mat> images = { Mat(3, sz, CV_8UC1, Scalar(0)) }, results;
    expectError([&] { cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1), results); }, cv::Error::StsBadArg,
                {"images[0] has 3 dimensions"});
}

TEST(CudaImage_MultiGpuArgs, batch_synced_empty_or_uninitialised)
{
    std::vector<SyncedMat> empty(2), results;
    expectError([&] { cv::cuda::processBatch(empty, gaussianFactory(CV_8UC1, 1), results); }, cv::Error::StsBadArg,
                {"images[0] is empty"});
    std::vector<SyncedMat> uninit = { SyncedMat(4, 4, CV_8UC1) };
    expectError([&] { cv::cuda::processBatch(uninit, gaussianFactory(CV_8UC1, 1), results); }, cv::Error::StsError,
                {"images[0] (4x4 CV_8UC1) is uninitialised"});
}

TEST(CudaImage_MultiGpuArgs, batch_negative_device)
{
    int calls = 0;
    FilterFactory counting = [&] { ++calls; return cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1); };
    expectError([&] { BatchProcessor::create(counting, {0, -1}); }, cv::Error::StsOutOfRange,
                {"devices[1] is -1"});
    EXPECT_EQ(0, calls);
}

TEST(CudaImage_MultiGpuArgs, batch_repeated_device)
{
    int calls = 0;
    FilterFactory counting = [&] { ++calls; return cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1); };
    expectError([&] { BatchProcessor::create(counting, {0, 1, 0}); }, cv::Error::StsBadArg,
                {"devices lists CUDA device 0 twice (devices[0] and devices[2])"});
    EXPECT_EQ(0, calls);
}

TEST(CudaImage_MultiGpuArgs, batch_device_beyond_count)
{
    // Without a device: "no CUDA device"; with N devices: "devices[0] is 999; allowed: 0 to N-1".
    const bool gpu = cudaimage_test::gpuUnavailableReason().empty();
    expectError([&] { BatchProcessor::create(gaussianFactory(CV_8UC1, 1), {999}); }, kAnyCode,
                gpu ? std::vector<std::string>{"devices[0] is 999; allowed: 0 to"}
                    : std::vector<std::string>{"no CUDA device"});
}

// Reported under processBatchGaussian's names: the image whose type is refused, borderType (not
// createGaussianBlur's srcType and rowBorderMode).
TEST(CudaImage_MultiGpuArgs, batch_gaussian_bad_arguments)
{
    std::vector<Mat> images = { Mat(4, 4, CV_8UC1, Scalar(1)), Mat(4, 4, CV_8UC1, Scalar(1)), Mat(4, 4, CV_8SC1, Scalar(1)) }, results;
    expectError([&] { cv::cuda::processBatchGaussian(images, results, Size(3, 3), 1); },
                cv::Error::StsUnsupportedFormat, {"cv::cuda::processBatchGaussian: images[2] type is CV_8SC1; allowed: depth CV_8U"});
    images.pop_back();
    expectError([&] { cv::cuda::processBatchGaussian(images, results, Size(4, 3), 1); },
                cv::Error::StsBadSize, {"cv::cuda::processBatchGaussian: ksize.width is 4; allowed"});
    expectError([&] { cv::cuda::processBatchGaussian(images, results, Size(3, 3), 1, 0, 99); },
                cv::Error::StsBadFlag, {"cv::cuda::processBatchGaussian: borderType is 99; allowed: BORDER_CONSTANT (0)"});
    EXPECT_TRUE(results.empty());
}

//////////////////////////////////////////////////////////////////////////////////////////////
// One GPU

TEST(CudaImage_MultiGpu, batch_one_device_equals_cpu_in_order)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(8);
    std::vector<Mat> images = mixedImages(CV_8UC3, 9, rng);
    const std::vector<Mat> u16 = mixedImages(CV_16UC1, 5, rng);
    images.insert(images.end(), u16.begin(), u16.end());
    const int dev = cv::cuda::getDevice();
    for (const std::vector<int>& devices : { std::vector<int>{dev}, std::vector<int>() })
    {
        std::vector<Mat> results;
        cv::cuda::processBatchGaussian(images, results, Size(0, 0), 2.0, 0, cv::BORDER_REPLICATE, devices);
        ASSERT_EQ(images.size(), results.size());
        for (size_t i = 0; i < images.size(); ++i)
            EXPECT_MAT_EQ(cpuBlur(images[i], 2.0), results[i]) << "image " << i;
    }
    EXPECT_EQ(dev, cv::cuda::getDevice());
}

// A Gaussian blur whose result is converted to CV_32F, written where dst points or (newMemory) into
// memory of its own that dst is then pointed at: BatchProcessor must not assume where a result lands.
struct BlurToFloat : public cv::cuda::Filter
{
    explicit BlurToFloat(bool newMemory) : newMemory_(newMemory),
        inner_(cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1.3)) {}

    void apply(cv::InputArray src, cv::OutputArray dst, Stream& stream) override
    {
        GpuMat blurred;
        inner_->apply(src, blurred, stream);
        if (newMemory_)
        {
            GpuMat own;
            blurred.convertTo(own, CV_32F, stream);
            dst.getGpuMatRef() = own;
        }
        else
            blurred.convertTo(dst, CV_32F, stream);
        held_.push_back(blurred);   // kept until the stream is done (the next call waits for it)
        if (held_.size() > 64)
        {
            stream.waitForCompletion();
            held_.clear();
        }
    }

    bool newMemory_;
    Ptr<cv::cuda::Filter> inner_;
    std::vector<GpuMat> held_;
};

TEST(CudaImage_MultiGpu, batch_small_images_move_in_groups)
{
    CUDAIMAGE_REQUIRE_GPU();
    // Many small pageable images go in groups (one transfer each way per group); a large one, a
    // page-locked one and the first of each type go alone. Each result as if alone, in order;
    // with a filter that changes the type, and one that puts its result in memory of its own.
    cv::RNG rng(31);
    std::vector<Mat> images;
    for (int i = 0; i < 300; ++i)
        images.push_back(cudaimage_test::randomMat(Size(5 + (i * 7) % 90, 3 + (i * 5) % 70), CV_8UC1, rng));
    images.insert(images.begin() + 40, cudaimage_test::randomMat(Size(1100, 1000), CV_8UC1, rng));   // above a group's image limit
    cv::cuda::HostMem locked(Size(33, 21), CV_8UC1, cv::cuda::HostMem::PAGE_LOCKED);
    rng.fill(locked, cv::RNG::UNIFORM, 0, 256);
    images.insert(images.begin() + 100, locked.createMatHeader());
    const Mat parent = cudaimage_test::randomMat(Size(120, 90), CV_8UC1, rng);
    images.insert(images.begin() + 200, parent(Rect(7, 5, 60, 40)));
    const int dev = cv::cuda::getDevice();

    Ptr<BatchProcessor> same = BatchProcessor::create(gaussianFactory(CV_8UC1, 1.3), {dev});
    for (int round = 0; round < 2; ++round)   // the second call reuses the groups' buffers
    {
        std::vector<Mat> results;
        same->process(images, results);
        ASSERT_EQ(images.size(), results.size());
        for (size_t i = 0; i < images.size(); ++i)
            ASSERT_EQ(0, cudaimage_test::countDifferent(cpuBlur(images[i].clone(), 1.3), results[i])) << "image " << i;
        EXPECT_EQ((int)images.size(), same->imagesPerDevice()[0]);
    }
    for (const bool newMemory : {false, true})
    {
        std::vector<Mat> results;
        cv::cuda::processBatch(images, [newMemory] { return cv::makePtr<BlurToFloat>(newMemory); }, results, {dev});
        ASSERT_EQ(images.size(), results.size());
        for (size_t i = 0; i < images.size(); ++i)
        {
            Mat want;
            cpuBlur(images[i].clone(), 1.3).convertTo(want, CV_32F);
            ASSERT_EQ(CV_32FC1, results[i].type()) << "image " << i;
            ASSERT_EQ(0, cv::norm(want, results[i], cv::NORM_INF)) << "image " << i << (newMemory ? " (new memory)" : "");
        }
    }
}

TEST(CudaImage_MultiGpu, batch_processor_reused_factory_once_per_device)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int dev = cv::cuda::getDevice();
    std::vector<int> factoryDevices;
    Ptr<BatchProcessor> p = BatchProcessor::create([&] {
        factoryDevices.push_back(cv::cuda::getDevice());
        return cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1.5);
    });
    EXPECT_EQ(dev, cv::cuda::getDevice());
    EXPECT_EQ(p->devices(), factoryDevices);
    EXPECT_EQ(cv::cuda::getCudaEnabledDeviceCount(), (int)p->devices().size());
    cv::RNG rng(9);
    const std::vector<Mat> a = mixedImages(CV_8UC1, 12, rng), b = mixedImages(CV_8UC1, 5, rng);
    std::vector<Mat> results;
    for (const std::vector<Mat>* batch : { &a, &b, &a })
    {
        p->process(*batch, results);
        ASSERT_EQ(batch->size(), results.size());
        for (size_t i = 0; i < batch->size(); ++i)
            EXPECT_MAT_EQ(cpuBlur((*batch)[i], 1.5), results[i]) << "image " << i;
        int total = 0;
        for (int n : p->imagesPerDevice())
            total += n;
        EXPECT_EQ((int)batch->size(), total);
    }
    EXPECT_EQ(p->devices().size(), factoryDevices.size());   // not called again
    EXPECT_EQ(dev, cv::cuda::getDevice());
}

TEST(CudaImage_MultiGpu, batch_results_may_be_the_images)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(10);
    std::vector<Mat> images = mixedImages(CV_8UC1, 7, rng);
    std::vector<Mat> expected;
    for (const Mat& m : images)
        expected.push_back(cpuBlur(m, 1.0));
    const uchar* firstData = images[0].data;
    cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1.0), images, {cv::cuda::getDevice()});
    for (size_t i = 0; i < images.size(); ++i)
        EXPECT_MAT_EQ(expected[i], images[i]) << "image " << i;
    EXPECT_EQ(firstData, images[0].data);   // written in place (same size and type)
}

// Pageable 4K frames are staged in bands over the host's threads (src/host_copy.hpp): ROI inputs and
// ROI results (written in place, nothing around them touched), on 1 and 4 threads. A batch image is
// an image of its own: only the ROI is uploaded, so the pixels around it are not read (the CPU
// reference blurs a copy; on the ROI itself the CPU would read them).
TEST(CudaImage_MultiGpu, batch_pageable_4k_roi_images_and_results_in_bands)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int threads = cv::getNumThreads();
    cv::RNG rng(12);
    const Size frame(3840, 2160);
    Mat bigIn = cudaimage_test::randomMat(Size(frame.width + 9, frame.height * 2 + 5), CV_8UC3, rng);
    const std::vector<Mat> images = { bigIn(cv::Rect(4, 1, frame.width, frame.height)),
                                      bigIn(cv::Rect(9, frame.height + 5, frame.width, frame.height)) };
    for (int n : { 1, 4 })
    {
        cv::setNumThreads(n);
        Mat bigOut(frame.height + 2, frame.width * 2 + 3, CV_8UC3, cv::Scalar::all(3));
        std::vector<Mat> results = { bigOut(cv::Rect(1, 1, frame.width, frame.height)),
                                     bigOut(cv::Rect(frame.width + 3, 0, frame.width, frame.height)) };
        const uchar* firstData = results[0].data;
        cv::cuda::processBatch(images, gaussianFactory(CV_8UC3, 2.0), results, {cv::cuda::getDevice()});
        for (size_t i = 0; i < images.size(); ++i)
            EXPECT_MAT_EQ(cpuBlur(images[i].clone(), 2.0), results[i]) << "image " << i << ", " << n << " threads";
        EXPECT_EQ(firstData, results[0].data);
        Mat untouched = bigOut.clone();
        untouched(cv::Rect(1, 1, frame.width, frame.height)).setTo(cv::Scalar::all(3));
        untouched(cv::Rect(frame.width + 3, 0, frame.width, frame.height)).setTo(cv::Scalar::all(3));
        EXPECT_EQ(0, cv::norm(untouched, Mat(bigOut.size(), CV_8UC3, cv::Scalar::all(3)), cv::NORM_INF));
    }
    cv::setNumThreads(threads);
}

TEST(CudaImage_MultiGpu, batch_page_locked_images_and_results_without_staging)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::MatAllocator* pinned = cv::cuda::HostMem::getAllocator(cv::cuda::HostMem::PAGE_LOCKED);
    cv::RNG rng(16);
    std::vector<Mat> images(6), results(6), expected;
    std::vector<const uchar*> resultData;
    for (int i = 0; i < 6; ++i)
    {
        images[i].allocator = pinned;
        images[i].create(Size(300 + 7 * i, 200), CV_8UC3);
        rng.fill(images[i], cv::RNG::UNIFORM, 0, 256);
        expected.push_back(cpuBlur(images[i], 2.0));
        if (i % 2 == 0)   // page-locked results of the right size and type: written directly
        {
            results[i].allocator = pinned;
            results[i].create(images[i].size(), CV_8UC3);
        }
        resultData.push_back(results[i].data);
    }
    cv::cuda::processBatch(images, gaussianFactory(CV_8UC3, 2.0), results, {cv::cuda::getDevice()});
    for (int i = 0; i < 6; ++i)
    {
        EXPECT_MAT_EQ(expected[i], results[i]) << "image " << i;
        if (i % 2 == 0)
        {
            EXPECT_EQ(resultData[i], results[i].data) << "image " << i;
        }
    }
}

TEST(CudaImage_MultiGpu, batch_factory_null_or_throwing)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int dev = cv::cuda::getDevice();
    const std::string onDev = "for CUDA device " + std::to_string(dev);
    expectError([&] { BatchProcessor::create([] { return Ptr<cv::cuda::Filter>(); }, {dev}); },
                cv::Error::StsNullPtr, {"the filter factory returned a null filter", onDev});
    expectError([&] { BatchProcessor::create([]() -> Ptr<cv::cuda::Filter> { CV_Error(cv::Error::StsBadFlag, "no filter today"); }, {dev}); },
                cv::Error::StsBadFlag, {"the filter factory failed", onDev, "no filter today"});
    expectError([&] { BatchProcessor::create([]() -> Ptr<cv::cuda::Filter> { throw std::runtime_error("out of ideas"); }, {dev}); },
                cv::Error::StsError, {"the filter factory failed", onDev, "out of ideas"});
    EXPECT_EQ(dev, cv::cuda::getDevice());
}

TEST(CudaImage_MultiGpu, batch_worker_failure_is_rethrown_and_processor_stays_usable)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int dev = cv::cuda::getDevice();
    cv::RNG rng(11);
    std::vector<Mat> images;
    for (int i = 0; i < 10; ++i)
        images.push_back(cudaimage_test::randomMat(Size(i == 6 ? 13 : 320, 200), CV_8UC1, rng));
    for (bool stdException : { false, true })
    {
        Ptr<BatchProcessor> p = BatchProcessor::create([&] { return cv::makePtr<FailOnWidth>(13, stdException); }, {dev});
        std::vector<Mat> results;
        expectError([&] { p->process(images, results); },
                    stdException ? cv::Error::StsError : cv::Error::StsBadSize,
                    {"cv::cuda::BatchProcessor::process: images[6] on CUDA device " + std::to_string(dev), "refused width 13"});
        // Usable afterwards: a batch without the refused width.
        std::vector<Mat> good(images.begin(), images.begin() + 6);
        p->process(good, results);
        ASSERT_EQ(good.size(), results.size());
        for (size_t i = 0; i < good.size(); ++i)
            EXPECT_MAT_EQ(cpuBlur(good[i], 1.5), results[i]) << "image " << i;
    }
}

TEST(CudaImage_MultiGpu, batch_filter_refusing_an_image_type)
{
    CUDAIMAGE_REQUIRE_GPU();
    std::vector<Mat> images = { Mat(8, 8, CV_8UC1, Scalar(1)), Mat(8, 8, CV_8UC1, Scalar(2)), Mat(8, 8, CV_8UC3, Scalar(3)) }, results;
    expectError([&] { cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1), results, {cv::cuda::getDevice()}); },
                cv::Error::StsUnmatchedFormats, {"images[2] on CUDA device", "src type is CV_8UC3"});
}

TEST(CudaImage_MultiGpu, batch_invalid_device_id)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int n = cv::cuda::getCudaEnabledDeviceCount();
    expectError([&] { BatchProcessor::create(gaussianFactory(CV_8UC1, 1), {n}); }, cv::Error::StsOutOfRange,
                {"devices[0] is " + std::to_string(n) + "; allowed: 0 to " + std::to_string(n - 1)});
}

TEST(CudaImage_MultiGpu, batch_synced_one_device)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int dev = cv::cuda::getDevice();
    cv::RNG rng(12);
    const std::vector<Mat> host = mixedImages(CV_8UC3, 7, rng);
    std::vector<SyncedMat> images, results;
    for (const Mat& m : host)
        images.push_back(SyncedMat(m));
    images[3].setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
    cv::cuda::processBatch(images, gaussianFactory(CV_8UC3, 2.0), results, {dev});
    ASSERT_EQ(images.size(), results.size());
    for (size_t i = 0; i < images.size(); ++i)
    {
        const TransferStats in = images[i].stats(), out = results[i].stats();
        EXPECT_EQ(1, in.uploads) << i;                       // read on the device once
        EXPECT_EQ(1, in.count(TransferStats::READ_DEVICE)) << i;
        EXPECT_EQ(0, in.downloads) << i;
        EXPECT_EQ(0, in.peerCopies) << i;
        EXPECT_EQ(1, out.downloads) << i;                    // prefetched to the host
        EXPECT_EQ(bytesOf(results[i]), out.downloadBytes) << i;
        EXPECT_EQ(0, out.uploads) << i;
        EXPECT_EQ(dev, results[i].deviceId()) << i;
        EXPECT_EQ((int)SyncedMat::BOTH_VALID, results[i].state()) << i;
        EXPECT_EQ(images[i].crossDevicePolicy(), results[i].crossDevicePolicy()) << i;
        EXPECT_MAT_EQ(cpuBlur(host[i], 2.0), results[i].readHost()) << i;
        EXPECT_EQ(1, results[i].stats().downloads) << i;     // readHost copied nothing more
    }
}

TEST(CudaImage_MultiGpu, batch_synced_shared_storage_refused)
{
    CUDAIMAGE_REQUIRE_GPU();
    SyncedMat whole(Mat(16, 16, CV_8UC1, Scalar(5)));
    std::vector<SyncedMat> images = { SyncedMat(Mat(4, 4, CV_8UC1, Scalar(1))), SyncedMat(whole, Rect(0, 0, 8, 8)),
                                      SyncedMat(whole, Rect(8, 8, 8, 8)) }, results;
    expectError([&] { cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1), results); }, cv::Error::StsBadArg,
                {"images[1] and images[2] share one storage"});
    EXPECT_EQ(0, whole.stats().uploads);
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Two GPUs

TEST(CudaImage_MultiGpu2, batch_over_two_devices_equals_cpu)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    std::vector<int> factoryDevices;
    Ptr<BatchProcessor> p = BatchProcessor::create([&] {
        factoryDevices.push_back(cv::cuda::getDevice());
        return cv::cuda::createGaussianBlur(CV_8UC3, -1, Size(0, 0), 2.0);
    }, {dev0, dev1});
    EXPECT_EQ((std::vector<int>{dev0, dev1}), factoryDevices);
    cv::RNG rng(14);
    std::vector<Mat> images;
    for (int i = 0; i < 32; ++i)
        images.push_back(cudaimage_test::randomMat(i % 5 == 4 ? Size(1280, 720) : Size(1920, 1080), CV_8UC3, rng));
    std::vector<Mat> results;
    p->process(images, results);
    ASSERT_EQ(images.size(), results.size());
    for (size_t i = 0; i < images.size(); ++i)
        EXPECT_MAT_EQ(cpuBlur(images[i], 2.0), results[i]) << "image " << i;
    const std::vector<int> per = p->imagesPerDevice();
    ASSERT_EQ(2u, per.size());
    EXPECT_EQ(32, per[0] + per[1]);
    EXPECT_GT(per[0], 0);
    EXPECT_GT(per[1], 0);
    std::cout << "images per device: " << dev0 << ": " << per[0] << ", " << dev1 << ": " << per[1] << std::endl;
    EXPECT_EQ(dev0, cv::cuda::getDevice());
}

TEST(CudaImage_MultiGpu2, batch_synced_over_two_devices_keeps_device_data_where_it_is)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    cv::RNG rng(15);
    std::vector<Mat> host;
    std::vector<SyncedMat> images;
    for (int i = 0; i < 12; ++i)
    {
        host.push_back(cudaimage_test::randomMat(Size(320 + i, 240), CV_8UC1, rng));
        images.push_back(SyncedMat(host.back()));       // host-only, bound to dev0
    }
    cv::cuda::setDevice(dev1);                           // the odd ones: device-valid on dev1
    {
        Stream s1;
        for (int i = 1; i < 12; i += 2)
        {
            images[i].setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
            images[i].upload(s1);
        }
        s1.waitForCompletion();
    }
    cv::cuda::setDevice(dev0);
    for (SyncedMat& m : images)
        m.resetStats();
    std::vector<SyncedMat> results;
    cv::cuda::processBatch(images, gaussianFactory(CV_8UC1, 1.5), results, {dev0, dev1});
    ASSERT_EQ(images.size(), results.size());
    for (int i = 0; i < 12; ++i)
    {
        const TransferStats in = images[i].stats();
        EXPECT_EQ(0, in.peerCopies) << i;                // host-only ones are re-bound, not copied
        if (i % 2 == 1)
        {
            EXPECT_EQ(dev1, results[i].deviceId()) << i; // processed where its data was
            EXPECT_EQ(0, in.uploads) << i;
        }
        else
        {
            EXPECT_EQ(1, in.uploads) << i;
        }
        EXPECT_EQ(images[i].deviceId(), results[i].deviceId()) << i;
        EXPECT_EQ((int)SyncedMat::BOTH_VALID, results[i].state()) << i;
        EXPECT_MAT_EQ(cpuBlur(host[i], 1.5), results[i].readHost()) << i;   // host valid: from any device
    }
}

TEST(CudaImage_MultiGpu2, batch_failure_on_one_device_is_rethrown)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    Ptr<BatchProcessor> p = BatchProcessor::create([&]() -> Ptr<cv::cuda::Filter> {
        if (cv::cuda::getDevice() == dev1)
            return cv::makePtr<FailOnWidth>(640, false);  // refuses every image below
        return cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1.5);
    }, {dev0, dev1});
    // Enough work that both workers take images (each image costs dev0 well over a thread start).
    std::vector<Mat> images(200, Mat(480, 640, CV_8UC1, Scalar(50))), results;
    expectError([&] { p->process(images, results); }, cv::Error::StsBadSize,
                {"on CUDA device " + std::to_string(dev1), "refused width 640"});
}

}} // namespace opencv_test::<anonymous>
