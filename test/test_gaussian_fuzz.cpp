// Differential fuzzing of cv::cuda::createGaussianBlur against CPU oracles.
//
//   CUDAIMAGE_FUZZ_CASES=N   cases to run (default 200: the normal suite stays fast)
//   CUDAIMAGE_FUZZ_SEED=S    seed (default kDefaultSeed; always printed)
//   CUDAIMAGE_FUZZ_FIRST=I   index of the first case (replays case I of seed S with CASES=1)
//   CUDAIMAGE_FUZZ_MAX_FAILURES=F  stop after F failing cases (default 5)
//
// Each case has its own RNG, seeded from (S, case index), so a failure is replayed alone with
// CUDAIMAGE_FUZZ_SEED=S CUDAIMAGE_FUZZ_FIRST=I CUDAIMAGE_FUZZ_CASES=1 (the message prints that line).
//
// The oracle of a case, in order of preference:
//  1. CPU cv::GaussianBlur on the same Mat (ROI or whole), where it expresses the case: one border
//     for both directions, not WRAP, the source's own depth, and not an 8U/16U sub-matrix with real
//     neighbours (there the CPU leaves its bit-exact path; see gaussian_blur.hpp).
//  2. Otherwise "pad, blur, crop": the region the filter reads (the ROI grown by the kernel radius)
//     is built with cv::copyMakeBorder relative to the image the filter sees as whole (the parent,
//     or the ROI when isolated or whole), first left/right with the row border, then top/bottom
//     with the column border (which is exactly the filter's separable extrapolation, mixed borders
//     and BORDER_CONSTANT corners included); CPU cv::GaussianBlur blurs that region with explicit
//     kernel sizes and only its centre is kept (no border of its own reaches the centre).
//     A 32F output of 16S/64F is blurred in 64F; a 32F output of 8U/16U (the fixed-point sum
//     before rounding) is cv::sepFilter2D in 64F with the fixed-point taps / 2^bits, which is
//     exact (every partial sum is an integer / 2^(2*bits) below 2^48) and then rounded to float.
//  3. Small cases are also compared with the plain-loop reference model
//     (cudaimage_test::referenceGaussianBlur), which handles every case on its own.
// CudaImage_GaussianFuzz.cpu_oracles_agree (no GPU) checks 1-2 against 3 on small cases.
//
// The cases, their data, oracles and tolerances: test/gaussian_fuzz_case.{hpp,cpp}.
#include "test_precomp.hpp"
#include <cmath>
#include "gaussian_fuzz_case.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace opencv_test { namespace {

using namespace cudaimage_test::fuzz;

// The cases a run takes and when it stops: CUDAIMAGE_FUZZ_SEED, _CASES, _FIRST, _MAX_FAILURES.
struct FuzzRun
{
    const uint64_t seed = envU64("CUDAIMAGE_FUZZ_SEED", kDefaultSeed);
    const int cases = (int)envU64("CUDAIMAGE_FUZZ_CASES", 200);
    const int first = (int)envU64("CUDAIMAGE_FUZZ_FIRST", 0);
    const int maxFailures = (int)envU64("CUDAIMAGE_FUZZ_MAX_FAILURES", 5);
};

TEST(CudaImage_GaussianFuzz, random_cases_match_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const FuzzRun run;
    std::cout << "[ FUZZ     ] seed " << run.seed << ", cases " << run.first << ".." << run.first + run.cases - 1
              << " (CUDAIMAGE_FUZZ_SEED / CUDAIMAGE_FUZZ_CASES / CUDAIMAGE_FUZZ_FIRST)" << std::endl;
    int smem = 0;
    ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, cv::cuda::getDevice()));
    const auto t0 = std::chrono::steady_clock::now();
    int failed = 0, modelChecks = 0, ran = 0;
    double pixels = 0;
    std::map<std::string, int> oracles, paths;
    for (int i = run.first; i < run.first + run.cases && failed < run.maxFailures; i++)
    {
        const FuzzCase c = drawCase(run.seed, i);
        const cv::cuda::gaussian::PathChoice path = pathOf(c, static_cast<size_t>(smem));
        paths[cv::format("%s, %d channel(s)", path.name, c.cn)]++;
        cv::RNG dataRng = dataRngOf(run.seed, i);
        std::string failures, how;
        try
        {
            failures = runCase(c, dataRng, modelChecks, how);
        }
        catch (const cv::Exception& e)
        {
            failures = "\n  cv::Exception: " + std::string(e.what());
        }
        ran++;
        pixels += c.size.area();
        oracles[how]++;
        if (!failures.empty())
        {
            failed++;
            ADD_FAILURE() << describe(c) << failures << "\n  " << replayLine(c);
        }
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[ FUZZ     ] " << ran << " cases, " << failed << " failed, " << pixels / 1e6 << " Mpixel, "
              << modelChecks << " also against the reference model, " << secs << " s" << std::endl;
    for (const auto& kv : oracles)
        std::cout << "[ FUZZ     ]   oracle " << kv.first << ": " << kv.second << " cases" << std::endl;
    for (const auto& kv : paths)
        std::cout << "[ FUZZ     ]   path " << kv.first << ": " << kv.second << " cases" << std::endl;
    if (failed >= run.maxFailures)
        std::cout << "[ FUZZ     ] stopped after " << failed << " failing cases" << std::endl;
}

// The same cases as batches: the drawn cases grouped by type and borders into batches of up to 24
// images (each with its own kernel and its own parent image: regions read their parents' pixels),
// every image's batch result compared with the single filter's on the same image, bit for bit (a
// batch runs the single kernel's body; 8U and 16U images that take the tensor cores alone take the
// exact CUDA-core kernels in a batch). The one exception: a 32F image that takes the 32F tensor
// cores alone (error-compensated products, not batched) gets the CUDA-core kernel's float sums in a
// batch, so the two agree within twice the float tolerance (each is within it of the CPU), NaN
// and Inf on the same pixels. In-place cases run with a separate dst; one-shot and stream modes do
// not apply. CUDAIMAGE_FUZZ_SEED / _CASES / _FIRST as above.
TEST(CudaImage_GaussianFuzz, batches_match_single_filters)
{
    CUDAIMAGE_REQUIRE_GPU();
    const FuzzRun run;
    constexpr size_t kBatch = 24;
    struct Pending { FuzzCase c; cv::cuda::GpuMat parent, src; };
    std::map<std::tuple<int, int, int, int>, std::vector<Pending>> open;   // (srcType, dstType, borders)
    int failed = 0, images = 0, batches = 0, tolerant = 0;
    int smem = 0;
    ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, cv::cuda::getDevice()));
    cv::cuda::Stream stream;
    // Elements beyond `tol` apart, or where one is NaN or +-Inf and the other is not the same.
    auto countBeyond = [](const Mat& a, const Mat& b, double tol) {
        if (a.size() != b.size() || a.type() != b.type() || a.depth() != CV_32F)
            return -1;
        int n = 0;
        for (int y = 0; y < a.rows; y++)
            for (int x = 0; x < a.cols * a.channels(); x++)
            {
                const float u = a.ptr<float>(y)[x], v = b.ptr<float>(y)[x];
                const bool same = (std::isnan(u) && std::isnan(v)) || u == v || (std::isfinite(u) && std::isfinite(v) && std::fabs(u - v) <= tol);
                n += same ? 0 : 1;
            }
        return n;
    };
    auto flush = [&](std::vector<Pending>& group) {
        if (group.empty())
            return;
        const FuzzCase& c0 = group[0].c;
        auto filter = cv::cuda::createGaussianBlurBatch(c0.srcType(), c0.dstType(), cv::Size(), 1.0, 0, c0.rowBorder, c0.columnBorder);
        std::vector<cv::cuda::GpuMat> src, dst;
        std::vector<double> sx, sy;
        std::vector<cv::Size> ks;
        for (const Pending& p : group)
        {
            src.push_back(p.src);
            sx.push_back(p.c.sigmaX);
            sy.push_back(p.c.sigmaY);
            ks.push_back(p.c.ksize);
        }
        filter->apply(src, dst, sx, sy, ks, stream);
        for (size_t k = 0; k < group.size(); k++)
        {
            const FuzzCase& c = group[k].c;
            cv::cuda::GpuMat single;
            cv::cuda::createGaussianBlur(c.srcType(), c.dstType(), c.ksize, c.sigmaX, c.sigmaY, c.rowBorder, c.columnBorder)
                ->apply(src[k], single, stream);
            const Mat a = cudaimage_test::toHost(single, stream), b = cudaimage_test::toHost(dst[k], stream);
            // The single filter's call above: a separate dst, whatever the case's own call.
            FuzzCase separate = c;
            separate.inPlace = false;
            const bool tensor32F = pathOf(separate, static_cast<size_t>(smem)).index == cudaimage_test::path::TensorCore32F;
            tolerant += tensor32F ? 1 : 0;
            const int differ = tensor32F ? countBeyond(a, b, 2 * toleranceFor(c, maxAbsOf(cudaimage_test::toHost(group[k].parent, stream))))
                                         : cudaimage_test::countDifferent(a, b);
            images++;
            if (differ != 0 && failed < run.maxFailures)
            {
                failed++;
                ADD_FAILURE() << describe(c) << "\n  in a batch of " << group.size() << " (image " << k << "): " << differ
                              << " elements differ from the single filter\n  " << replayLine(c);
            }
        }
        batches++;
        group.clear();
    };
    for (int i = run.first; i < run.first + run.cases && failed < run.maxFailures; i++)
    {
        const FuzzCase c = drawCase(run.seed, i);
        cv::RNG dataRng = dataRngOf(run.seed, i);
        Pending p;
        p.c = c;
        p.parent.upload(makeData(c, dataRng));
        p.src = p.parent(c.roi);
        auto& group = open[std::make_tuple(c.srcType(), c.dstType(), c.rowBorder, c.columnBorder)];
        group.push_back(p);
        if (group.size() == kBatch)
            flush(group);
    }
    for (auto& kv : open)
        flush(kv.second);
    std::cout << "[ FUZZ     ] batches: " << images << " images in " << batches << " batches, " << failed
              << " differ from the single filter (" << tolerant << " 32F images on the tensor cores alone compared within the float tolerance)"
              << std::endl;
}

// The CPU oracles (1-2 above) against the reference model on small cases: proves the oracle
// selection (padding with mixed borders, sub-matrices, fixed-point float output) without a GPU.
TEST(CudaImage_GaussianFuzz, cpu_oracles_agree)
{
    const uint64_t seed = envU64("CUDAIMAGE_FUZZ_SEED", kDefaultSeed);
    const int cases = (int)envU64("CUDAIMAGE_FUZZ_ORACLE_CASES", 100);
    int checked = 0, failed = 0;
    std::map<std::string, int> oracles;
    for (int i = 0; checked < cases && i < cases * 50 && failed < 5; i++)
    {
        const FuzzCase c = drawCase(seed, i);
        if (workOf(c) > kModelWork)
            continue;
        cv::RNG dataRng = dataRngOf(seed, i);
        const Mat parent = makeData(c, dataRng);
        const Oracle o = cpuOracle(c, parent);
        oracles[o.how]++;
        const Mat model = modelOracle(c, parent);
        const double tol = toleranceFor(c, maxAbsOf(parent));
        const std::string m = firstMismatch(model, o.expected, tol);
        checked++;
        if (!m.empty())
        {
            failed++;
            ADD_FAILURE() << describe(c) << "\n  " << o.how << " vs the reference model: " << m;
        }
    }
    std::cout << "[ FUZZ     ] " << checked << " small cases: oracles agree with the reference model" << std::endl;
    for (const auto& kv : oracles)
        std::cout << "[ FUZZ     ]   oracle " << kv.first << ": " << kv.second << " cases" << std::endl;

    // CUDAIMAGE_FUZZ_PLAN=N: what the first N cases of random_cases_match_cpu would draw (no GPU).
    const int plan = (int)envU64("CUDAIMAGE_FUZZ_PLAN", 0);
    if (plan > 0)
    {
        double work = 0, worst = 0, pixels = 0;
        int big = 0, model = 0;
        for (int i = 0; i < plan; i++)
        {
            const FuzzCase c = drawCase(seed, i);
            const double w = workOf(c);
            work += w;
            worst = std::max(worst, w);
            pixels += c.size.area();
            big += c.size.area() >= 1000000;
            model += w <= kModelWork;
            if (envU64("CUDAIMAGE_FUZZ_PLAN_ORACLE", 0)) // time the CPU side of each case
            {
                cv::RNG dataRng = dataRngOf(seed, i);
                const Mat parent = makeData(c, dataRng);
                (void)cpuOracle(c, parent);
                if (w <= kModelWork)
                    (void)modelOracle(c, parent);
            }
        }
        std::cout << cv::format("[ FUZZ     ] plan of %d cases: %.3g multiply-adds in all (max %.3g), %.3g Mpixel, "
                                "%d cases of 1 Mpixel or more, %d also against the reference model",
                                plan, work, worst, pixels / 1e6, big, model) << std::endl;
    }
}

// The distribution reaches every path over its whole radius range for every channel count (no GPU):
// among the first 3000 cases of the default seed, for each channel count, separate-dst cases on an
// sm_90 (so the path is the radius's) with radius in the fused range on the small CUDA-core kernel
// and on the tensor cores (8U with one channel from the sm_90 row's threshold), the large-radius
// range up to the channel count's last tile on the large CUDA-core kernel and on the tensor cores
// (8U; 16U and 32F with one channel),
// beyond that tile and beyond every range (two passes), and the exact boundary radii. Every limit
// comes from the units' constants (test/gaussian_path_ids.hpp).
TEST(CudaImage_GaussianFuzz, distribution_covers_every_path_and_boundary)
{
    using cudaimage_test::path::FusedTile;
    using cudaimage_test::path::LargeTile;
    const int cases = 3000;
    std::map<std::string, int> seen;
    for (int i = 0; i < cases; i++)
    {
        const FuzzCase c = drawCase(kDefaultSeed, i);
        const cv::cuda::gaussian::PathChoice p = pathOf(c, kSm90SharedMem);
        if (c.inPlace || c.size.width == 1 || c.size.height == 1)
            continue;   // two passes whatever the radius
        const int r = p.radius, last = cudaimage_test::path::lastRadiusOf<LargeTile>(c.cn, c.depth);
        std::string range = r == 0 ? "0" : r <= FusedTile::kMaxR ? "fused range" : r <= last ? "large range with a tile"
                                                : r <= LargeTile::kMaxR ? "large range without a tile" : "beyond";
        seen[cv::format("C%d radius %s %s", c.cn, range.c_str(), p.name)]++;
        for (int b : coreBoundaries(c.cn))
            if (r == b)
                seen[cv::format("C%d radius %d", c.cn, b)]++;
    }
    for (const auto& kv : seen)
        std::cout << "[ FUZZ     ] " << kv.first << ": " << kv.second << " cases" << std::endl;
    for (int cn = 1; cn <= 4; cn++)
    {
        std::vector<std::string> needed = {"radius fused range fused", "radius large range with a tile fused-large",
                                           "radius large range with a tile tensor-core", "radius beyond two-pass"};
        if (cv::cuda::gaussian::tensorCoreTuning(90).minRadius(cn) <= FusedTile::kMaxR)
            needed.push_back("radius fused range tensor-core");
        if (cn == 1)   // 16U and 32F, one channel
        {
            needed.push_back("radius large range with a tile tensor-core-16u");
            needed.push_back("radius large range with a tile tensor-core-32f");
        }
        if (cudaimage_test::path::lastRadiusOf<LargeTile>(cn, CV_8U) < LargeTile::kMaxR)
            needed.push_back("radius large range without a tile two-pass");
        for (int b : coreBoundaries(cn))
            needed.push_back(cv::format("radius %d", b));
        for (const std::string& n : needed)
            EXPECT_GT(seen[cv::format("C%d ", cn) + n], 0) << "no case of C" << cn << " " << n << " in the first " << cases;
    }
}

}} // namespace opencv_test
