// A batch call's layout (src/batch_plan.hpp) as pure host code: no GPU, so these run in CI. Stacks
// of images at made-up addresses are described, given their kernels and paths as the batch filter
// gives them, laid out and encoded; the tests check every item, tap struct, tap job and launch of
// the upload against the images they came from.
#include "test_precomp.hpp"
#include <algorithm>
#include <cstring>
#include "../src/batch_plan.hpp"
#include "gaussian_path_ids.hpp"

namespace opencv_test { namespace {

namespace gs = cv::cuda::gaussian;
using gs::BatchKernels;
using gs::BatchPlan;
using gs::EncodedBatch;
using gs::ImageWork;

// An sm_90 with 132 SMs whose tensor-core code runs (as on an H100).
gs::DeviceLimits h100()
{
    gs::DeviceLimits d;
    d.sharedMemOptIn = 227 * 1024;
    d.multiprocessors = 132;
    d.computeCapability = 90;
    d.paths = cudaimage_test::path::factsFor(90, true);
    return d;
}

unsigned char* fakeAddress(uintptr_t a) { return reinterpret_cast<unsigned char*>(a); }

/** A stack of `n` images of `size` and `type`, at made-up device addresses, with these sigmas. */
struct Stack
{
    BatchKernels kernels;
    gs::GaussianPaths::Options options;
    std::vector<ImageWork> work;

    Stack(int type, Size size, const std::vector<double>& sigmas, bool deviceTaps = true) : kernels(filter(type, deviceTaps))
    {
        const int n = static_cast<int>(sigmas.size());
        const size_t step = cv::alignSize(size.width * CV_ELEM_SIZE(type), 256);
        const GpuMat src(size.height * n, size.width, type, fakeAddress(1 << 20), step);
        const GpuMat dst(size.height * n, size.width, type, fakeAddress(1 << 30), step);
        const std::vector<const gs::KernelEntry*> k = kernels.resolve(sigmas.size(), sigmas, {}, {}, "test");
        work = gs::describeStacked(src, dst, size.height, k, h100(), kernels, options);
        gs::attachTaps(work, type);
    }
    static BatchKernels::Filter filter(int type, bool deviceTaps)
    {
        BatchKernels::Filter f;
        f.srcType = type;
        f.dstType = type;
        f.rowBorder = BORDER_REFLECT_101;
        f.deviceTaps = deviceTaps;
        return f;
    }
};

std::vector<double> randomSigmas(size_t n, double lo, double hi, uint64 seed)
{
    cv::RNG rng(seed);
    std::vector<double> s(n);
    for (double& v : s)
        v = rng.uniform(lo, hi);
    return s;
}

/** Checks the plan and its encoding of `work` against the images: every batched image is one item
 * of its group's launch with its own call and taps; every tap struct and job lies inside the
 * device memory, aligned and apart from the others. */
void checkEncoding(std::vector<ImageWork>& work, int type, uint64_t call)
{
    const int depth = CV_MAT_DEPTH(type), cn = CV_MAT_CN(type);
    const BatchPlan plan = gs::planBatch(work, depth, cn, call);
    unsigned char* const device = fakeAddress(uintptr_t(1) << 40);
    std::vector<unsigned char> host(plan.uploaded + 16);
    const EncodedBatch e = gs::encodeBatch(plan, work, depth, cn, 132, device, host.data());
    const size_t batched = std::count_if(work.begin(), work.end(), [](const ImageWork& w) { return w.batched; });
    ASSERT_EQ(batched, plan.itemCount);
    ASSERT_EQ(plan.groups.size(), e.launches.size());
    EXPECT_LE(plan.uploaded, plan.total);
    EXPECT_EQ(0u, plan.jobsAt % 16);
    const gs::BatchItem* items = reinterpret_cast<const gs::BatchItem*>(host.data());
    std::vector<std::pair<size_t, size_t>> regions;   // [offset, end) of every tap struct
    size_t at = 0, seen = 0;
    for (size_t g = 0; g < plan.groups.size(); g++)
    {
        const BatchPlan::Group& group = plan.groups[g];
        const gs::BatchLaunch& b = e.launches[g];
        ASSERT_EQ(reinterpret_cast<const gs::BatchItem*>(device) + at, b.items);
        ASSERT_EQ(group.images.size(), static_cast<size_t>(b.count));
        EXPECT_EQ(group.instance, b.instance);
        EXPECT_TRUE(std::is_sorted(group.images.begin(), group.images.end()));
        long long tiles = 0, widest = 0;
        int tallest = 0, largestRadius = 0, across = 0;
        for (size_t i : group.images)
        {
            const ImageWork& w = work[i];
            ASSERT_TRUE(w.batched);
            ASSERT_EQ(group.path, w.choice->index);
            const gs::BatchItem& item = items[at++];
            ASSERT_EQ(0, std::memcmp(&item.call, &w.call, sizeof(gs::BlurCall))) << "image " << i;
            const unsigned char* taps = static_cast<const unsigned char*>(item.taps);
            if (w.kernel->deviceTaps)
            {
                ASSERT_EQ(device + w.kernel->jobOffset, taps);
                ASSERT_GE(w.kernel->jobOffset, plan.uploaded);
                ASSERT_LE(w.kernel->jobOffset, plan.total);
            }
            else
            {
                ASSERT_EQ(device + w.taps->offset, taps);
                ASSERT_LT(w.taps->offset, plan.jobsAt);
                ASSERT_EQ(0, std::memcmp(host.data() + w.taps->offset, w.taps->taps.bytes.data(), w.taps->taps.bytes.size()));
            }
            ASSERT_EQ(0u, static_cast<size_t>(taps - device) % 16);
            if (w.choice->residentBlocks > 0)
            {
                ASSERT_EQ(tiles, item.firstTile) << "image " << i;
                tiles += w.choice->tiles(w.call.width, w.call.height, w.call.channels);
            }
            tallest = std::max(tallest, w.call.height);
            const long long elements = static_cast<long long>(w.call.width) * w.call.channels;
            widest = std::max(widest, elements);
            largestRadius = std::max(largestRadius, std::max(w.kernel->shape.rx, w.kernel->shape.ry));
            across = std::max(across, static_cast<int>((elements + w.choice->tileOutputs - 1) / w.choice->tileOutputs));
            seen++;
        }
        EXPECT_EQ(tiles, b.tiles);
        EXPECT_EQ(tallest, b.maxHeight);
        EXPECT_EQ(widest, b.maxRowElements);
        EXPECT_EQ(largestRadius, b.maxRadius);   // the kernels' own radius, which the fused batch kernel reads from its taps
        EXPECT_EQ(across, b.blocksAcross);
        EXPECT_EQ(132, b.multiprocessors);
    }
    EXPECT_EQ(batched, seen);
    for (const gs::PathTaps* t : plan.distinct)
        regions.emplace_back(t->offset, t->offset + t->taps.bytes.size());
    // Jobs: each device-built kernel once, by path, each list of one path.
    const gs::BatchTapJob* jobs = reinterpret_cast<const gs::BatchTapJob*>(host.data() + plan.jobsAt);
    size_t listed = 0;
    for (const gs::PathJobs& list : e.tapJobs)
    {
        ASSERT_EQ(reinterpret_cast<const gs::BatchTapJob*>(device + plan.jobsAt) + listed, list.jobs.jobs);
        for (int j = 0; j < list.jobs.count; j++)
            ASSERT_EQ(list.path, plan.jobs[listed + j].first);
        listed += static_cast<size_t>(list.jobs.count);
    }
    ASSERT_EQ(plan.jobs.size(), listed);
    for (size_t j = 0; j < plan.jobs.size(); j++)
    {
        const gs::KernelEntry* k = plan.jobs[j].second;
        ASSERT_TRUE(k->deviceTaps);
        ASSERT_EQ(device + k->jobOffset, jobs[j].out);
        ASSERT_EQ(k->ksize.width, jobs[j].ksizeX);
        ASSERT_EQ(k->ksize.height, jobs[j].ksizeY);
        ASSERT_EQ(k->sigmaX, jobs[j].sigmaX);
        ASSERT_EQ(k->sigmaY, jobs[j].sigmaY);
        ASSERT_GT(jobs[j].bytes, 0);
        if (j > 0)
        {
            ASSERT_LE(plan.jobs[j - 1].first, plan.jobs[j].first);
        }
        for (size_t i = 0; i < j; i++)
            ASSERT_NE(k, plan.jobs[i].second);
        regions.emplace_back(k->jobOffset, k->jobOffset + static_cast<size_t>(jobs[j].bytes));
    }
    std::sort(regions.begin(), regions.end());
    for (size_t r = 0; r < regions.size(); r++)
    {
        ASSERT_EQ(0u, regions[r].first % 16);
        ASSERT_GE(regions[r].first, static_cast<size_t>(plan.itemCount * sizeof(gs::BatchItem)));
        if (r > 0)
        {
            ASSERT_LE(regions[r - 1].second, regions[r].first) << "tap structs overlap";
        }
    }
    if (!regions.empty())
    {
        EXPECT_LE(regions.back().second, plan.total);
    }
}

TEST(CudaImage_BatchPlan, fresh_sigmas_every_item_tap_struct_and_job_in_place)
{
    // Taps built on the device, and (deviceTaps false: a host whose exp failed its self-check) on the host.
    for (bool deviceTaps : {true, false})
    for (int type : {CV_8UC1, CV_8UC3, CV_16UC1, CV_32FC1, CV_64FC2})
    {
        Stack s(type, Size(64, 48), randomSigmas(300, 0.1, 2.0, 7 + type), deviceTaps);
        checkEncoding(s.work, type, 1);
        // The next call places everything again, at the same offsets.
        std::vector<size_t> offsets;
        for (const ImageWork& w : s.work)
            offsets.push_back(w.kernel->deviceTaps ? w.kernel->jobOffset : w.taps->offset);
        checkEncoding(s.work, type, 2);
        for (size_t i = 0; i < s.work.size(); i++)
            ASSERT_EQ(offsets[i], s.work[i].kernel->deviceTaps ? s.work[i].kernel->jobOffset : s.work[i].taps->offset);
    }
}

TEST(CudaImage_BatchPlan, repeated_and_host_built_taps_are_placed_once)
{
    std::vector<double> sigmas;
    for (int i = 0; i < 64; i++)
        sigmas.push_back(i % 3 == 0 ? 0.3 : i % 3 == 1 ? 1.5 : 3.0);
    for (bool deviceTaps : {false, true})
    {
        Stack s(CV_8UC1, Size(40, 40), sigmas, deviceTaps);
        checkEncoding(s.work, CV_8UC1, 1);
        const BatchPlan plan = gs::planBatch(s.work, CV_8U, 1, 2);
        EXPECT_EQ(deviceTaps ? 0u : 3u, plan.distinct.size());
        EXPECT_EQ(deviceTaps ? 3u : 0u, plan.jobs.size());
    }
}

TEST(CudaImage_BatchPlan, persistent_tiles_of_the_tensor_core_units_form_one_sequence)
{
    // Sigmas from 3 to 20: 8U radius 9 and more takes the tensor cores (sm_90's row), 32F from 13.
    for (int type : {CV_8UC1, CV_8UC4, CV_16UC1, CV_32FC1})
    {
        Stack s(type, Size(300, 130), randomSigmas(40, 3.0, 20.0, 11 + type));
        const bool persistent = std::any_of(s.work.begin(), s.work.end(), [](const ImageWork& w) { return w.choice->residentBlocks > 0; });
        EXPECT_TRUE(persistent) << typeToString(type);
        checkEncoding(s.work, type, 1);
    }
}

TEST(CudaImage_BatchPlan, one_row_images_and_radii_beyond_the_batched_kernels_stay_out_of_the_launches)
{
    // One-row images take the two-pass path (a one-tap vertical kernel): no item, host taps.
    Stack rows(CV_8UC1, Size(500, 1), randomSigmas(20, 0.5, 2.0, 3));
    const BatchPlan none = gs::planBatch(rows.work, CV_8U, 1, 1);
    EXPECT_TRUE(none.groups.empty());
    for (const ImageWork& w : rows.work)
    {
        EXPECT_FALSE(w.batched);
        ASSERT_TRUE(w.kernel->host != nullptr);
        EXPECT_FALSE(w.kernel->host->taps.x.real.empty());
    }
    // Sigma 50 (8U: ksize 301, radius 150) is beyond the batched kernels; the others batch.
    std::vector<double> sigmas = randomSigmas(10, 0.5, 2.0, 5);
    sigmas[4] = 50.0;
    Stack mixed(CV_8UC1, Size(400, 400), sigmas);
    EXPECT_FALSE(mixed.work[4].batched);
    checkEncoding(mixed.work, CV_8UC1, 1);
}

}} // namespace
