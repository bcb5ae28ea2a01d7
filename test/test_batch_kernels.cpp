// The batch filter's kernel cache (src/batch_kernels.hpp) as pure host code: no GPU, so these run in
// CI. What a refused call leaves, the cache's bound, which lookups share an entry, and the bound
// below which the device may not build a fixed-point kernel's taps (a centre tap of 1.0).
#include "test_precomp.hpp"
#include <cmath>
#include <limits>
#include "../src/batch_kernels.hpp"

namespace opencv_test { namespace {

using cv::cuda::gaussian::BatchKernels;
using cv::cuda::gaussian::KernelEntry;
using cv::cuda::gaussian::filterShape;
using cv::cuda::gaussian::filterTaps;
using cv::cuda::gaussian::tapsSurelyBelowOne;

const char* const kFunction = "test";

BatchKernels kernelsFor(int type, bool deviceTaps, double sigma = 1.0)
{
    BatchKernels::Filter f;
    f.srcType = type;
    f.dstType = type;
    f.rowBorder = BORDER_REFLECT_101;
    f.columnBorder = -1;
    f.defaults.sigmaX = sigma;
    f.deviceTaps = deviceTaps;
    return BatchKernels(f);
}

std::vector<double> sigmasFrom(double first, size_t n, double step)
{
    std::vector<double> s(n);
    for (size_t i = 0; i < n; i++)
        s[i] = first + step * static_cast<double>(i);
    return s;
}

TEST(CudaImage_BatchKernels, a_refused_call_names_the_image_and_leaves_the_cache_as_it_was)
{
    for (bool deviceTaps : {false, true})
    {
        BatchKernels k = kernelsFor(CV_8UC1, deviceTaps);
        k.resolve(2, {1.0, 2.0}, {}, {}, kFunction);
        const std::vector<const KernelEntry*> first = k.resolve(2, {1.0, 2.0}, {}, {}, kFunction);   // cached by now
        ASSERT_EQ(2u, k.size());
        for (double bad : {std::nan(""), -std::numeric_limits<double>::infinity(), 1e300})
        {
            try
            {
                k.resolve(3, {3.0, 4.0, bad}, {}, {}, kFunction);
                FAIL() << "sigma " << bad << " was accepted";
            }
            catch (const cv::Exception& e)
            {
                EXPECT_NE(std::string::npos, e.err.find("image 2")) << e.err;
                EXPECT_NE(std::string::npos, e.err.find("sigma")) << e.err;
            }
            EXPECT_EQ(2u, k.size()) << "deviceTaps " << deviceTaps << ", sigma " << bad;
        }
        EXPECT_THROW(k.resolve(3, {1.0, 2.0}, {}, {}, kFunction), cv::Exception);   // 2 values for 3 images
        EXPECT_THROW(k.resolve(2, {1.0}, {}, {Size(3, 3), Size(4, 3)}, kFunction), cv::Exception);   // even ksize
        EXPECT_EQ(2u, k.size());
        // The entries kept are the ones the earlier call returned.
        const std::vector<const KernelEntry*> again = k.resolve(2, {2.0, 1.0}, {}, {}, kFunction);
        EXPECT_EQ(first[1], again[0]);
        EXPECT_EQ(first[0], again[1]);
        // The refused calls counted for nothing: sigma 3 is new to the next call.
        k.resolve(1, {3.0}, {}, {}, kFunction);
        EXPECT_EQ(deviceTaps ? 2u : 3u, k.size());
    }
}

TEST(CudaImage_BatchKernels, a_kernel_the_device_builds_is_cached_from_its_second_call)
{
    BatchKernels k = kernelsFor(CV_32FC1, true);
    const std::vector<double> sigmas = sigmasFrom(0.5, 100, 0.01);
    const std::vector<const KernelEntry*> a = k.resolve(sigmas.size(), sigmas, {}, {}, kFunction);
    EXPECT_EQ(0u, k.size());   // the call's own
    for (size_t i = 0; i < sigmas.size(); i++)
    {
        ASSERT_TRUE(a[i]->deviceTaps);
        ASSERT_EQ(sigmas[i], a[i]->sigmaX);
        ASSERT_EQ(a[i]->shape.rx, a[i]->ksize.width / 2);
    }
    const std::vector<const KernelEntry*> b = k.resolve(sigmas.size(), sigmas, {}, {}, kFunction);
    EXPECT_EQ(sigmas.size(), k.size());
    const std::vector<const KernelEntry*> c = k.resolve(sigmas.size(), sigmas, {}, {}, kFunction);
    EXPECT_EQ(b, c);
    // New sigmas in every call never enter the cache.
    for (int call = 0; call < 5; call++)
        k.resolve(sigmas.size(), sigmasFrom(3.0 + call, 100, 1e-3), {}, {}, kFunction);
    EXPECT_EQ(sigmas.size(), k.size());
}

TEST(CudaImage_BatchKernels, repeated_kernels_share_one_entry_within_and_across_calls)
{
    for (bool deviceTaps : {false, true})
    {
        BatchKernels k = kernelsFor(CV_16UC1, deviceTaps);
        const std::vector<double> sigmas{1.5, 1.5, 2.5, 1.5, 2.5, 2.5};
        const std::vector<const KernelEntry*> a = k.resolve(6, sigmas, {}, {}, kFunction);
        EXPECT_EQ(deviceTaps ? 0u : 2u, k.size());
        EXPECT_EQ(a[0], a[1]);
        EXPECT_EQ(a[0], a[3]);
        EXPECT_EQ(a[2], a[4]);
        EXPECT_NE(a[0], a[2]);
        const std::vector<const KernelEntry*> c = k.resolve(6, sigmas, {}, {}, kFunction);
        EXPECT_EQ(2u, k.size());
        EXPECT_EQ(c[0], c[3]);
        EXPECT_EQ(c[2], c[5]);
        const std::vector<const KernelEntry*> b = k.resolve(2, {2.5}, {}, {}, kFunction);   // one value: every image
        EXPECT_EQ(c[2], b[0]);
        EXPECT_EQ(c[2], b[1]);
        // 0.0 and -0.0 are one kernel (given with a ksize).
        const std::vector<const KernelEntry*> z = k.resolve(2, {0.0, -0.0}, {}, {Size(5, 5)}, kFunction);
        EXPECT_EQ(z[0], z[1]);
    }
}

TEST(CudaImage_BatchKernels, an_explicit_sigmaX_without_sigmaY_means_sigmaY_equals_sigmaX)
{
    BatchKernels::Filter f;
    f.srcType = CV_32FC1;
    f.dstType = CV_32FC1;
    f.defaults.sigmaX = 1.0;
    f.defaults.sigmaY = 4.0;   // belongs to the filter's sigmaX
    BatchKernels k(f);
    const KernelEntry* given = k.resolve(1, {2.0}, {}, {}, kFunction)[0];
    EXPECT_EQ(0.0, given->args.sigmaY);   // OpenCV's "the same as sigmaX"
    EXPECT_EQ(given->shape.rx, given->shape.ry);
    const KernelEntry* filters = k.resolve(1, {}, {}, {}, kFunction)[0];
    EXPECT_EQ(4.0, filters->args.sigmaY);
    EXPECT_GT(filters->shape.ry, filters->shape.rx);
}

TEST(CudaImage_BatchKernels, past_its_bound_the_cache_keeps_the_calls_own_kernels)
{
    const size_t n = BatchKernels::kMaxCached * 3 / 4;
    for (bool deviceTaps : {false, true})
    {
        BatchKernels k = kernelsFor(CV_8UC1, deviceTaps);
        const std::vector<double> first = sigmasFrom(0.5, n, 1e-4);
        // A device-built kernel joins in its second call, or a later one where another kernel's
        // mark took its slot (a few calls for a few thousand kernels).
        const int calls = deviceTaps ? 6 : 1;
        for (int c = 0; c < calls; c++)
            k.resolve(n, first, {}, {}, kFunction);
        EXPECT_EQ(n, k.size());
        // New kernels and a few of the first call's: more than the bound, so only this call's stay.
        std::vector<double> second = sigmasFrom(2.5, n, 1e-4);
        second[0] = first[0];
        second[n - 1] = first[n - 1];
        for (int c = 1; c < calls; c++)
            k.resolve(n, second, {}, {}, kFunction);
        const std::vector<const KernelEntry*> e = k.resolve(n, second, {}, {}, kFunction);
        EXPECT_EQ(n, k.size());
        for (size_t i = 0; i < n; i++)
        {
            ASSERT_EQ(second[i], e[i]->args.sigmaX) << i;   // still valid after the cache was cleared
            ASSERT_EQ(deviceTaps, e[i]->deviceTaps) << i;
        }
        // The kernels kept are found again: no new entry.
        k.resolve(n, second, {}, {}, kFunction);
        EXPECT_EQ(n, k.size());
    }
}

TEST(CudaImage_BatchKernels, device_built_kernels_have_the_host_built_shape)
{
    // Every kernel of at most 257 taps is built on the device, with the shape the host's taps give
    // it, whether its taps fit a byte (16 bits) included: the bound (tapsSurelyBelowOne) and, below
    // it, the few fixed-point taps the resolution builds. Sigmas from 0.01 to 3 with ksize from
    // sigma, and with every odd ksize 3..257, 8U and 16U.
    for (int type : {CV_8UC1, CV_16UC3})
    {
        const int depth = CV_MAT_DEPTH(type);
        BatchKernels device = kernelsFor(type, true), host = kernelsFor(type, false);
        std::vector<double> sigmas = sigmasFrom(0.01, 300, 0.01);
        sigmas.push_back(0.0);
        int centreOnly = 0;
        auto compare = [&](const KernelEntry* d, const KernelEntry* h, const std::string& what) {
            ASSERT_TRUE(d->deviceTaps) << what;
            ASSERT_FALSE(h->deviceTaps) << what;
            ASSERT_EQ(h->shape.rx, d->shape.rx) << what;
            ASSERT_EQ(h->shape.ry, d->shape.ry) << what;
            ASSERT_EQ(h->shape.horizontalTapsBelowOne, d->shape.horizontalTapsBelowOne) << what;
            ASSERT_EQ(h->shape.verticalTapsBelowOne, d->shape.verticalTapsBelowOne) << what;
            if (!h->shape.horizontalTapsBelowOne)
                centreOnly++;
        };
        for (int n = 1; n <= 257; n += 2)
        {
            const std::vector<Size> ksize{Size(n, n)};
            for (size_t i = 0; i < sigmas.size(); i += (n < 31 ? 1 : 7))
            {
                const std::vector<double> s{sigmas[i]};
                const std::string what = typeToString(type) + ", ksize " + std::to_string(n) + ", sigma " + std::to_string(sigmas[i]);
                const KernelEntry* d = device.resolve(1, s, {}, ksize, kFunction)[0];
                const KernelEntry* h = host.resolve(1, s, {}, ksize, kFunction)[0];
                compare(d, h, what);
                if (tapsSurelyBelowOne(depth, n, sigmas[i]))
                {
                    ASSERT_TRUE(h->shape.horizontalTapsBelowOne) << "the bound is wrong: " << what;
                }
            }
        }
        for (size_t i = 0; i + 1 < sigmas.size(); i++)   // ksize from sigma (not sigma 0)
            compare(device.resolve(1, {sigmas[i]}, {}, {}, kFunction)[0], host.resolve(1, {sigmas[i]}, {}, {}, kFunction)[0],
                    typeToString(type) + ", sigma " + std::to_string(sigmas[i]));
        EXPECT_GT(centreOnly, 0) << "no kernel with all its weight on the centre was tried";
    }
}

TEST(CudaImage_BatchKernels, kernels_beyond_the_batched_taps_and_float_depths)
{
    // A kernel wider than the batched kernels' taps is built on the host; float depths have no
    // fixed-point taps, so every kernel within the bound may be built on the device.
    BatchKernels u8 = kernelsFor(CV_8UC1, true);
    EXPECT_FALSE(u8.resolve(1, {1.0}, {}, {Size(259, 3)}, kFunction)[0]->deviceTaps);
    const KernelEntry* unit = u8.resolve(1, {1.0}, {}, {Size(1, 5)}, kFunction)[0];   // a 1-tap direction is 1.0
    EXPECT_TRUE(unit->deviceTaps);
    EXPECT_FALSE(unit->shape.horizontalTapsBelowOne);
    EXPECT_TRUE(unit->shape.verticalTapsBelowOne);
    BatchKernels f32 = kernelsFor(CV_32FC1, true);
    EXPECT_TRUE(f32.resolve(1, {0.05}, {}, {Size(3, 3)}, kFunction)[0]->deviceTaps);
    EXPECT_TRUE(f32.resolve(1, {1.0}, {}, {Size(1, 5)}, kFunction)[0]->deviceTaps);
    BatchKernels off = kernelsFor(CV_32FC1, false);
    EXPECT_FALSE(off.resolve(1, {1.0}, {}, {}, kFunction)[0]->deviceTaps);
    const KernelEntry* hostBuilt = off.resolve(1, {1.0}, {}, {}, kFunction)[0];
    ASSERT_TRUE(hostBuilt->host != nullptr);
    EXPECT_FALSE(hostBuilt->host->taps.x.real.empty());
    EXPECT_TRUE(f32.resolve(1, {1.0}, {}, {}, kFunction)[0]->host == nullptr);   // device-built: no host part
}

}} // namespace
