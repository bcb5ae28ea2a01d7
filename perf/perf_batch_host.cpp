// The host's share of a batch call with a sigma per image, with the same sigmas in every call and
// with new ones in every call (what random augmentation draws: uniform in [0.1, 2.0],
// torchvision's default range). Pure host code, so it runs without a GPU:
//   opencv_perf_cudaimage --gtest_filter='BatchHostPerf*'
//  - resolve: each image's kernel checked and resolved through the filter's kernel cache
//    (src/batch_kernels.hpp);
//  - stacked: all the host does for applyStacked between its argument checks and its CUDA calls:
//    resolve, describe the images and choose their paths, lay out the upload and encode it
//    (src/batch_plan.hpp), for N images of 64 x 64 at made-up device addresses.
// The per-call time over N is the host cost per image.
#include "perf_precomp.hpp"
#include "../src/batch_plan.hpp"

namespace opencv_test { namespace {

using cv::cuda::gaussian::BatchKernels;

const int kLists = 64;

/** 64 calls' worth of sigmas, drawn once; a fresh call takes the next list. */
std::vector<std::vector<double>> sigmaLists(size_t n)
{
    cv::RNG rng(0x5EED);
    std::vector<std::vector<double>> lists(kLists, std::vector<double>(n));
    for (std::vector<double>& l : lists)
        for (double& s : l)
            s = rng.uniform(0.1, 2.0);
    return lists;
}

BatchKernels::Filter filterOf(int type)
{
    BatchKernels::Filter f;
    f.srcType = type;
    f.dstType = type;
    f.rowBorder = BORDER_REFLECT_101;
    f.defaults.sigmaX = 1.0;
    f.deviceTaps = true;
    return f;
}

enum Sigmas { kRepeated, kFresh };
CV_ENUM(SigmaDraw, kRepeated, kFresh)

typedef tuple<int, MatType, SigmaDraw> N_Type_Draw;
typedef perf::TestBaseWithParam<N_Type_Draw> BatchHostPerf;

PERF_TEST_P(BatchHostPerf, resolve, testing::Combine(testing::Values(256, 1024, 4096), testing::Values(CV_8UC3, CV_32FC1),
                                                         SigmaDraw::all()))
{
    const size_t n = static_cast<size_t>(get<0>(GetParam()));
    const int type = get<1>(GetParam());
    const bool fresh = get<2>(GetParam()) == kFresh;
    BatchKernels kernels(filterOf(type));
    const std::vector<std::vector<double>> lists = sigmaLists(n);
    int call = 0;
    kernels.resolve(n, lists[0], {}, {}, "perf");
    TEST_CYCLE()
    {
        const std::vector<double>& sigmas = lists[fresh ? ++call % kLists : 0];
        kernels.resolve(n, sigmas, {}, {}, "perf");
    }
    SANITY_CHECK_NOTHING();
}

PERF_TEST_P(BatchHostPerf, stacked, testing::Combine(testing::Values(256, 1024, 4096), testing::Values(CV_8UC3, CV_32FC1),
                                                     SigmaDraw::all()))
{
    namespace gs = cv::cuda::gaussian;
    const size_t n = static_cast<size_t>(get<0>(GetParam()));
    const int type = get<1>(GetParam());
    const bool fresh = get<2>(GetParam()) == kFresh;
    BatchKernels kernels(filterOf(type));
    const std::vector<std::vector<double>> lists = sigmaLists(n);
    const Size image(64, 64);
    const size_t step = image.width * CV_ELEM_SIZE(type);
    const cuda::GpuMat src(image.height * static_cast<int>(n), image.width, type, reinterpret_cast<void*>(uintptr_t(1) << 32), step);
    const cuda::GpuMat dst(src.rows, src.cols, type, reinterpret_cast<void*>(uintptr_t(1) << 36), step);
    gs::DeviceLimits limits;   // an sm_90 of 132 SMs on which only the CUDA-core kernels are known to run
    limits.sharedMemOptIn = 227 * 1024;
    limits.multiprocessors = 132;
    limits.computeCapability = 90;
    const gs::GaussianPaths::Options options;
    std::vector<unsigned char> upload;
    uint64_t call = 0;
    TEST_CYCLE()
    {
        const std::vector<double>& sigmas = lists[fresh ? (call + 1) % kLists : 0];
        const std::vector<const gs::KernelEntry*> k = kernels.resolve(n, sigmas, {}, {}, "perf");
        std::vector<gs::ImageWork> work = gs::describeStacked(src, dst, image.height, k, limits, kernels, options);
        gs::attachTaps(work, type);
        const gs::BatchPlan plan = gs::planBatch(work, CV_MAT_DEPTH(type), CV_MAT_CN(type), ++call);
        upload.resize(plan.uploaded);
        gs::encodeBatch(plan, work, CV_MAT_DEPTH(type), CV_MAT_CN(type), limits.multiprocessors,
                        reinterpret_cast<unsigned char*>(uintptr_t(1) << 40), upload.data());
    }
    SANITY_CHECK_NOTHING();
}

}} // namespace
