// The host's share of a batch call with a sigma per image: checking each image's kernel and
// resolving it through the filter's kernel cache (src/batch_kernels.hpp), with the same sigmas in
// every call and with new ones in every call (what random augmentation draws: uniform in
// [0.1, 2.0], torchvision's default range). Pure host code, so it runs without a GPU:
//   opencv_perf_cudaimage --gtest_filter='BatchKernelsPerf*'
// The report's per-call time over N is the host cost per image that a fresh sigma adds.
#include "perf_precomp.hpp"
#include "../src/batch_kernels.hpp"

namespace opencv_test { namespace {

using cv::cuda::gaussian::BatchKernels;

enum Sigmas { kRepeated, kFresh };
CV_ENUM(SigmaDraw, kRepeated, kFresh)

typedef tuple<int, MatType, SigmaDraw> N_Type_Draw;
typedef perf::TestBaseWithParam<N_Type_Draw> BatchKernelsPerf;

PERF_TEST_P(BatchKernelsPerf, resolve, testing::Combine(testing::Values(256, 1024, 4096), testing::Values(CV_8UC3, CV_32FC1),
                                                         SigmaDraw::all()))
{
    const size_t n = static_cast<size_t>(get<0>(GetParam()));
    const int type = get<1>(GetParam());
    const bool fresh = get<2>(GetParam()) == kFresh;
    BatchKernels::Filter f;
    f.srcType = type;
    f.dstType = type;
    f.rowBorder = BORDER_REFLECT_101;
    f.defaults.sigmaX = 1.0;
    f.deviceTaps = true;
    BatchKernels kernels(f);
    // 64 calls' worth of sigmas, drawn once; a fresh call takes the next list.
    const int kLists = 64;
    cv::RNG rng(0x5EED);
    std::vector<std::vector<double>> lists(kLists, std::vector<double>(n));
    for (std::vector<double>& l : lists)
        for (double& s : l)
            s = rng.uniform(0.1, 2.0);
    int call = 0;
    kernels.resolve(n, lists[0], {}, {}, "perf");
    TEST_CYCLE()
    {
        const std::vector<double>& sigmas = lists[fresh ? ++call % kLists : 0];
        kernels.resolve(n, sigmas, {}, {}, "perf");
    }
    SANITY_CHECK_NOTHING();
}

}} // namespace
