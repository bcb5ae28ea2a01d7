// The batched Gaussian blur (cv::cuda::createGaussianBlurBatch, GaussianBlurBatch): every image of a
// batch against CPU cv::GaussianBlur on that image (8U/16U identical; 16S/32F/64F within the single
// filter's tolerances), with per-image kernels whose radii fall on every path within one batch
// (the boundaries read from the path units), images of different sizes and smaller than their
// kernel, every depth, channel count and border; the stacked form (a tensor's memory) and in place;
// N from 1 to past the 65,535 images of one launch; graph capture; and bad input named by index,
// checked before any CUDA call (those tests run without a GPU).
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"
#include "opencv2/cudaimage/batch.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <atomic>
#include <cmath>
#include <cuda_runtime_api.h>

namespace opencv_test { namespace {

// `got` against CPU cv::GaussianBlur on src (the gold twin for BORDER_WRAP, which the CPU refuses,
// and for a 32F result), within the documented tolerance.
void expectImageMatches(const Mat& src, const Mat& got, Size ksize, double sx, double sy, int border, const std::string& what)
{
    expectWithinDocumentedTolerance(cpuGaussianBlur(src, got.depth(), ksize, sx, sy, border), got, src, what);
}

// ---- every depth, channel count and border: one batch whose images span the paths -------------

typedef ::testing::TestWithParam<std::tuple<int, int, int>> CudaImage_GaussianBatch_Paths;

TEST_P(CudaImage_GaussianBatch_Paths, each_image_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam()), border = std::get<2>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    // Radii across the batched paths' boundaries (and one beyond them: the two-pass path per image),
    // read from the units: 0 (1x1), the fused range's ends, the large-radius range's first and the
    // last with a tile for this channel count, and one past it.
    const int lastLarge = path::lastRadiusOf<path::LargeTile>(cn, depth);
    const std::vector<int> radii = {0, path::FusedTile::kMinR, path::FusedTile::kMaxR, path::LargeTile::kMinR,
                                    lastLarge, lastLarge + 1};
    const std::vector<Size> sizes = {Size(37, 23), Size(5, 3), Size(300, 17), Size(64, 64), Size(1031, 9), Size(3, 260)};
    cv::RNG rng(7000 + type * 8 + border);
    std::vector<Mat> host;
    std::vector<GpuMat> src;
    std::vector<Size> ksizes;
    std::vector<double> sx, sy;
    Stream s;
    for (size_t i = 0; i < radii.size() * 2; i++)
    {
        const int r = radii[i % radii.size()];
        // Every other image rectangular: the shorter direction from a smaller radius.
        const int ry = i % 2 ? std::max(0, r / 3) : r;
        ksizes.push_back(Size(2 * r + 1, 2 * ry + 1));
        sx.push_back(i % 3 == 0 ? 0.0 : 0.3 + 0.35 * r);
        sy.push_back(i % 3 == 1 ? 0.0 : 0.25 + 0.3 * ry);
        host.push_back(randomMat(sizes[i % sizes.size()], type, rng));
        src.emplace_back(host.back());
    }
    // An image smaller than its kernel, on the fused path.
    host.push_back(randomMat(Size(2, 2), type, rng));
    src.emplace_back(host.back());
    ksizes.push_back(Size(2 * path::FusedTile::kMaxR + 1, 2 * path::FusedTile::kMaxR + 1));
    sx.push_back(2.0);
    sy.push_back(0);

    auto filter = cv::cuda::createGaussianBlurBatch(type, -1, Size(3, 3), 0, 0, border);
    std::vector<GpuMat> dst;
    filter->apply(src, dst, sx, sy, ksizes, s);
    ASSERT_EQ(src.size(), dst.size());
    for (size_t i = 0; i < src.size(); i++)
        expectImageMatches(host[i], toHost(dst[i], s), ksizes[i], sx[i], sy[i], border,
                           cv::format("image %zu (%dx%d, ksize %dx%d)", i, host[i].cols, host[i].rows, ksizes[i].width, ksizes[i].height));
}

INSTANTIATE_TEST_CASE_P(Batch, CudaImage_GaussianBatch_Paths,
                        ::testing::Combine(::testing::Values(CV_8U, CV_16U, CV_16S, CV_32F, CV_64F), ::testing::Range(1, 5),
                                           ::testing::Values(cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT,
                                                             cv::BORDER_WRAP, cv::BORDER_CONSTANT)));

// ---- the fused path's batched kernel takes every radius in one launch ---------------------------

typedef ::testing::TestWithParam<std::tuple<int, int>> CudaImage_GaussianBatch_FusedRadii;

// One batch of images, each with its kernel (sigmaY = sigmaX), blurred in one call and each image
// compared with the CPU.
struct KernelBatch
{
    std::vector<Mat> host;
    std::vector<GpuMat> src;
    std::vector<Size> ksizes;
    std::vector<double> sx;

    void add(const Mat& image, Size ksize, double sigma)
    {
        host.push_back(image);
        src.emplace_back(image);
        ksizes.push_back(ksize);
        sx.push_back(sigma);
    }
    void expectMatchesCpu(int type, int border, const std::string& what) const
    {
        Stream s;
        auto filter = cv::cuda::createGaussianBlurBatch(type, -1, Size(3, 3), 0, 0, border);
        std::vector<GpuMat> dst;
        filter->apply(src, dst, sx, {}, ksizes, s);
        ASSERT_EQ(src.size(), dst.size());
        for (size_t i = 0; i < src.size(); i++)
            expectImageMatches(host[i], toHost(dst[i], s), ksizes[i], sx[i], sx[i], border,
                               cv::format("%s image %zu (%dx%d, ksize %dx%d)", what.c_str(), i, host[i].cols, host[i].rows,
                                          ksizes[i].width, ksizes[i].height));
    }
};

TEST_P(CudaImage_GaussianBatch_FusedRadii, every_radius_in_one_batch_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    // Radius per block: images of every fused radius (square, and rectangular: a float source's
    // instance that skips padding taps) interleaved in one batch, sizes around one tile.
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    cv::RNG rng(9100 + type);
    KernelBatch batch;
    for (int r = path::FusedTile::kMaxR; r >= path::FusedTile::kMinR; r--)
        for (const bool rect : {false, true})
        {
            const int tile = path::FusedTile::kCols - 2 * path::FusedTile::halo(r, cn);   // outputs per block row
            const Size size(rect ? tile / cn + 1 : std::max(1, tile / cn - 1), 17 + 5 * r);
            batch.add(randomMat(size, type, rng), Size(2 * r + 1, rect ? 2 * (r / 2) + 1 : 2 * r + 1), 0.4 + 0.3 * r);
        }
    batch.expectMatchesCpu(type, cv::BORDER_REFLECT_101, "");
}

INSTANTIATE_TEST_CASE_P(Batch, CudaImage_GaussianBatch_FusedRadii,
                        ::testing::Combine(::testing::Values(CV_8U, CV_16U, CV_16S, CV_32F, CV_64F), ::testing::Range(1, 5)));

// ---- narrow images: a warp per strip, at the warp tile's boundary ------------------------------

// OPENCV_CUDAIMAGE_FUSED_WARP_TILES for the filters created in its scope.
struct WarpTilesSwitch
{
    explicit WarpTilesSwitch(const char* v) { setenv("OPENCV_CUDAIMAGE_FUSED_WARP_TILES", v, 1); }
    ~WarpTilesSwitch() { unsetenv("OPENCV_CUDAIMAGE_FUSED_WARP_TILES"); }
};

typedef ::testing::TestWithParam<std::tuple<int, int, const char*>> CudaImage_GaussianBatch_WarpTiles;

TEST_P(CudaImage_GaussianBatch_WarpTiles, images_at_the_warp_tile_boundary_match_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const WarpTilesSwitch warpTiles(std::get<2>(GetParam()));   // "1": warp tiles; "0": block tiles, the same pixels
    // At every fused radius: a batch whose images just fit a warp's tile (a narrow launch: each warp
    // of a block on a strip of its own, the grid a quarter of the strips), with strip counts that
    // are and are not multiples of the block's four warps, and a batch of images a pixel wider (a
    // block per strip). Then one batch of images narrow at every radius, one of them tall enough
    // that its warps go round the strips, and the same images beside a wide one (one launch of
    // block tiles for all).
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    const int rows = depth == CV_16U || depth == CV_64F ? 8 : 16;   // the longest strip of the depth
    cv::RNG rng(9300 + type);
    auto height = [rows](int r, int k) { return (r + k) % 2 ? 4 * rows * (1 + (r + k) % 3) + 1 : 3 * rows - 1 + r; };
    auto ksizeOf = [](int r) { return Size(2 * r + 1, r % 3 == 0 ? 2 * (r / 2) + 1 : 2 * r + 1); };
    for (int r = path::FusedTile::kMaxR; r >= path::FusedTile::kMinR; r--)
    {
        const int fit = path::FusedWarpTile::kCols - 2 * path::FusedWarpTile::halo(r, cn);   // outputs of a warp's tile
        ASSERT_TRUE(path::FusedWarpTile::fits(fit / cn * cn, r, cn));
        ASSERT_FALSE(path::FusedWarpTile::fits((fit / cn + 1) * cn, r, cn));
        for (const bool wider : {false, true})
        {
            KernelBatch batch;
            for (int k = 0; k < 3; k++)
                batch.add(randomMat(Size(fit / cn + (wider ? 1 : 0), height(r, k)), type, rng), ksizeOf(r), 0.35 + 0.3 * r);
            batch.expectMatchesCpu(type, cv::BORDER_REFLECT_101, cv::format("radius %d, %s batch,", r, wider ? "wide" : "narrow"));
        }
    }
    // Narrow at the largest radius, so that the launch of 8U and 16U (every radius) is narrow too.
    const int fitEveryRadius = path::FusedWarpTile::kCols - 2 * path::FusedWarpTile::halo(path::FusedTile::kMaxR, cn);
    for (const bool mixed : {false, true})
    {
        cv::RNG same(9400 + type);
        KernelBatch batch;
        for (int r = path::FusedTile::kMaxR; r >= path::FusedTile::kMinR; r--)
            batch.add(randomMat(Size(fitEveryRadius / cn - r % 2, height(r, 0)), type, same), ksizeOf(r), 0.35 + 0.3 * r);
        batch.add(randomMat(Size(1, 50 * rows + 3), type, same), Size(3, 2 * path::FusedTile::kMaxR + 1), 0.9);
        if (mixed)
            batch.add(randomMat(Size(300, 40), type, same), Size(5, 5), 1.1);
        batch.expectMatchesCpu(type, cv::BORDER_REFLECT_101, mixed ? "mixed batch," : "narrow batch,");
    }
}

INSTANTIATE_TEST_CASE_P(Batch, CudaImage_GaussianBatch_WarpTiles,
                        ::testing::Combine(::testing::Values(CV_8U, CV_16U, CV_16S, CV_32F, CV_64F), ::testing::Range(1, 5),
                                           ::testing::Values("1", "0")));

// ---- the stacked form: N images one below the other (an NHWC or NCHW tensor) --------------------

struct StackedCase { int type; int n; Size image; bool inPlace; bool perImage; bool continuous = false; };
void PrintTo(const StackedCase& c, std::ostream* os)
{
    *os << cv::typeToString(c.type) << "_N" << c.n << "_" << c.image.width << "x" << c.image.height
        << (c.inPlace ? "_in_place" : "") << (c.perImage ? "_per_image_sigma" : "") << (c.continuous ? "_continuous" : "");
}

typedef ::testing::TestWithParam<StackedCase> CudaImage_GaussianBatch_Stacked;

TEST_P(CudaImage_GaussianBatch_Stacked, each_image_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const StackedCase c = GetParam();
    cv::RNG rng(31 + c.n + c.type);
    const Mat all = randomMat(Size(c.image.width, c.image.height * c.n), c.type, rng);
    std::vector<double> sigmas;
    for (int i = 0; i < (c.perImage ? c.n : 1); i++)
        sigmas.push_back(rng.uniform(0.1, 2.0));
    Stream s;
    GpuMat src(all), dst;
    if (c.continuous)
    {
        // Unpadded rows: image i starts i * rows * cols elements in, at every alignment.
        cv::cuda::createContinuous(all.size(), all.type(), src);
        src.upload(all);
        cv::cuda::createContinuous(all.size(), all.type(), dst);
    }
    auto filter = cv::cuda::createGaussianBlurBatch(c.type, -1, Size(), 1.0);
    if (c.inPlace)
        dst = src;
    filter->applyStacked(src, dst, c.image.height, sigmas, {}, {}, s);
    const Mat got = toHost(dst, s);
    for (int i = 0; i < c.n; i++)
    {
        const cv::Rect rows(0, i * c.image.height, c.image.width, c.image.height);
        const double sigma = sigmas[c.perImage ? i : 0];
        // Each image is a whole image of its own: borders at its own edges.
        expectImageMatches(all(rows).clone(), got(rows), Size(), sigma, sigma, cv::BORDER_REPLICATE, cv::format("image %d, sigma %g", i, sigma));
        if (HasFailure())
            return;
    }
}

INSTANTIATE_TEST_CASE_P(Batch, CudaImage_GaussianBatch_Stacked, ::testing::Values(
    StackedCase{CV_8UC3, 1, Size(224, 224), false, true},
    StackedCase{CV_8UC3, 64, Size(224, 224), false, true},
    StackedCase{CV_8UC3, 64, Size(224, 224), true, true},
    StackedCase{CV_8UC1, 4096, Size(16, 12), false, true},
    StackedCase{CV_8UC1, 65536 + 3, Size(4, 3), false, false},   // past one launch's 65,535 images
    StackedCase{CV_16UC1, 32, Size(61, 40), false, true},
    StackedCase{CV_32FC1, 48, Size(57, 33), true, true},        // NCHW: channel planes as images
    StackedCase{CV_32FC4, 8, Size(40, 41), false, false},
    StackedCase{CV_64FC2, 5, Size(19, 23), false, true},
    StackedCase{CV_16SC3, 7, Size(33, 9), false, true},
    StackedCase{CV_8UC1, 50, Size(5, 3), false, true, true},     // images 15 bytes apart
    StackedCase{CV_8UC3, 33, Size(7, 5), false, true, true},
    StackedCase{CV_8UC3, 33, Size(7, 5), true, true, true},
    StackedCase{CV_16UC1, 21, Size(3, 7), false, true, true},
    StackedCase{CV_32FC1, 17, Size(9, 1), false, true, true}));   // one-row images

// One filter over calls of repeated, new and again the first sigmas, for 8U and 16U (some sigmas
// below the bound where the host builds the taps, most on the device) past the kernel cache's 4,096
// kernels (the cache is cleared in between): every call's every image against the CPU.
TEST(CudaImage_GaussianBatch, repeated_and_new_sigmas_over_calls_match_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    for (int type : {CV_8UC1, CV_16UC1})
    {
        const int n = 1500;
        const Size image(17, 12);
        cv::RNG rng(77 + type);
        const Mat all = randomMat(Size(image.width, image.height * n), type, rng);
        std::vector<std::vector<double>> draws(3);
        for (std::vector<double>& d : draws)
            for (int i = 0; i < n; i++)
                d.push_back(rng.uniform(0.1, 3.0));
        Stream s;
        GpuMat src(all), dst;
        auto filter = cv::cuda::createGaussianBlurBatch(type, -1, Size(), 1.0);
        for (int call : {0, 0, 1, 2, 0, 1})
        {
            const std::vector<double>& sigmas = draws[call];
            filter->applyStacked(src, dst, image.height, sigmas, {}, {}, s);
            const Mat got = toHost(dst, s);
            for (int i = 0; i < n; i++)
            {
                const cv::Rect rows(0, i * image.height, image.width, image.height);
                expectImageMatches(all(rows).clone(), got(rows), Size(), sigmas[i], sigmas[i], cv::BORDER_REPLICATE,
                                   cv::format("%s, draw %d, image %d, sigma %g", cv::typeToString(type).c_str(), call, i, sigmas[i]));
                if (HasFailure())
                    return;
            }
        }
    }
}

// ---- lists: in place, regions, float output, the one-shot form ---------------------------------

TEST(CudaImage_GaussianBatch, list_in_place_regions_and_float_output)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5);
    Stream s;
    const Mat parent = randomMat(Size(200, 150), CV_8UC1, rng);
    GpuMat gParent(parent);
    // Two regions of one parent (they read its pixels around them) and a whole image.
    const cv::Rect a(10, 20, 50, 40), b(100, 60, 70, 70);
    const Mat whole = randomMat(Size(33, 44), CV_8UC1, rng);
    std::vector<GpuMat> src = {gParent(a), gParent(b), GpuMat(whole)};
    std::vector<GpuMat> dst;
    const std::vector<double> sigmas = {1.0, 4.0, 40.0};   // fused, large radius, two-pass
    cv::cuda::GaussianBlurBatch(src, dst, sigmas, {}, {}, cv::BORDER_REFLECT_101, s);
    expectImageMatches(whole, toHost(dst[2], s), Size(), 40.0, 40.0, cv::BORDER_REFLECT_101, "whole image, sigma 40");
    // A region's result is the single filter's on it (which the region tests compare with the CPU).
    for (size_t i = 0; i < src.size(); i++)
    {
        GpuMat single;
        cv::cuda::GaussianBlur(src[i], single, Size(), sigmas[i], 0, cv::BORDER_REFLECT_101, s);
        EXPECT_MAT_EQ(toHost(single, s), toHost(dst[i], s)) << "image " << i;
    }
    // In place: dst is src (each such image takes the two-pass path).
    std::vector<GpuMat> inPlace = {GpuMat(whole), GpuMat(whole)};
    std::vector<GpuMat> out = inPlace;
    cv::cuda::GaussianBlurBatch(inPlace, out, {2.0, 30.0}, {}, {}, cv::BORDER_REPLICATE, s);
    EXPECT_EQ(inPlace[0].data, out[0].data);
    expectImageMatches(whole, toHost(out[0], s), Size(), 2.0, 2.0, cv::BORDER_REPLICATE, "in place, sigma 2");
    expectImageMatches(whole, toHost(out[1], s), Size(), 30.0, 30.0, cv::BORDER_REPLICATE, "in place, sigma 30");
    // CV_32F output from 8U: the unrounded fixed-point value.
    auto f = cv::cuda::createGaussianBlurBatch(CV_8UC1, CV_32FC1, Size(), 1.5);
    std::vector<GpuMat> src2 = {GpuMat(whole)}, out32;
    f->apply(src2, out32, {}, {}, {}, s);
    expectImageMatches(whole, toHost(out32[0], s), Size(), 1.5, 1.5, cv::BORDER_REPLICATE, "32F output");
    // A dst of the right size and type is written where it is (a tensor's memory).
    std::vector<GpuMat> given = {GpuMat(whole.size(), CV_8UC1)};
    const uchar* where = given[0].data;
    cv::cuda::GaussianBlurBatch(src2, given, {1.2}, {}, {}, cv::BORDER_REPLICATE, s);
    EXPECT_EQ(where, given[0].data);
    expectImageMatches(whole, toHost(given[0], s), Size(), 1.2, 1.2, cv::BORDER_REPLICATE, "given dst");
}

TEST(CudaImage_GaussianBatch, a_dst_over_another_images_source_is_refused)
{
    CUDAIMAGE_REQUIRE_GPU();
    GpuMat big(100, 100, CV_8UC1, cv::Scalar(1));
    std::vector<GpuMat> src = {big.rowRange(0, 50), big.rowRange(50, 100)};
    std::vector<GpuMat> dst = {big.rowRange(50, 100), GpuMat(50, 100, CV_8UC1)};
    expectError([&] { cv::cuda::GaussianBlurBatch(src, dst, {1.0}, {}, {}, cv::BORDER_REPLICATE); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBatchFilter::apply: dst[0] overlaps the pixels src[1] reads"}, "BADINPUT");
}

// ---- host lists: processBatchGaussian moves images in chunks, each chunk one batch -------------

TEST(CudaImage_GaussianBatch, host_list_in_chunks_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(12);
    // Small images that share chunks, one of exactly a chunk's bytes (4 MiB), one above it (a chunk
    // of its own), regions of a larger image, and an image after the large ones.
    std::vector<Mat> images;
    for (int i = 0; i < 300; i++)
        images.push_back(randomMat(Size(17 + i % 50, 9 + i % 31), CV_8UC1, rng));
    images.push_back(randomMat(Size(2048, 2048), CV_8UC1, rng));   // 4 MiB: exactly one chunk
    images.push_back(randomMat(Size(2049, 2048), CV_8UC1, rng));   // above a chunk: a chunk of its own
    const Mat parent = randomMat(Size(300, 200), CV_8UC1, rng);
    images.push_back(parent(cv::Rect(10, 10, 100, 50)));
    images.push_back(randomMat(Size(31, 7), CV_8UC1, rng));
    std::vector<Mat> results;
    cv::cuda::processBatchGaussian(images, results, Size(0, 0), 1.7, 0, cv::BORDER_REFLECT_101);
    ASSERT_EQ(images.size(), results.size());
    for (size_t i = 0; i < images.size(); i++)
    {
        Mat want;
        // A region is blurred as an image of its own (only the region is uploaded).
        cv::GaussianBlur(images[i].clone(), want, Size(0, 0), 1.7, 1.7, cv::BORDER_REFLECT_101);
        ASSERT_EQ(0, countDifferent(want, results[i])) << "image " << i << " " << images[i].size();
    }
    // Results may be the images themselves.
    std::vector<Mat> same = {images[0].clone(), images[1].clone()};
    const std::vector<Mat> originals = {same[0].clone(), same[1].clone()};
    cv::cuda::processBatchGaussian(same, same, Size(0, 0), 1.7, 0, cv::BORDER_REFLECT_101);
    EXPECT_EQ(0, countDifferent(results[0], same[0]));
    EXPECT_EQ(0, countDifferent(results[1], same[1]));
}

/** A MatAllocator that counts what it allocates (OpenCV's default allocator does the work), as
 * NumPy's allocator stands for the images cv2 hands to processBatchGaussian. */
class CountingAllocator : public cv::MatAllocator
{
public:
    cv::UMatData* allocate(int dims, const int* sizes, int type, void* data, size_t* step, cv::AccessFlag flags,
                           cv::UMatUsageFlags usage) const CV_OVERRIDE
    {
        cv::UMatData* u = Mat::getStdAllocator()->allocate(dims, sizes, type, data, step, flags, usage);
        if (u)
        {
            u->currAllocator = this;
            ++allocations;
        }
        return u;
    }
    bool allocate(cv::UMatData* u, cv::AccessFlag flags, cv::UMatUsageFlags usage) const CV_OVERRIDE
    {
        return Mat::getStdAllocator()->allocate(u, flags, usage);
    }
    void deallocate(cv::UMatData* u) const CV_OVERRIDE
    {
        u->currAllocator = Mat::getStdAllocator();
        Mat::getStdAllocator()->deallocate(u);
    }
    mutable std::atomic<int> allocations{0};
};

TEST(CudaImage_GaussianBatch, host_list_results_take_the_images_allocator)
{
    CUDAIMAGE_REQUIRE_GPU();
    // Results without data are allocated as their image was (cv2: NumPy arrays, no copy on return);
    // page-locked images' results are not page-locked. Both the chunked path (one type) and the
    // per-image processor (two types).
    static CountingAllocator counting;
    cv::RNG rng(5);
    for (const bool mixed : {false, true})
    {
        std::vector<Mat> images;
        for (int i = 0; i < 6; i++)
        {
            Mat m;
            m.allocator = &counting;
            m.create(Size(40 + i, 30), mixed && i % 2 ? CV_8UC3 : CV_8UC1);
            rng.fill(m, cv::RNG::UNIFORM, 0, 256);
            images.push_back(m);
        }
        cv::cuda::HostMem locked(Size(40, 30), CV_8UC1, cv::cuda::HostMem::PAGE_LOCKED);
        rng.fill(locked, cv::RNG::UNIFORM, 0, 256);
        images.push_back(locked.createMatHeader());
        const int before = counting.allocations;
        std::vector<Mat> results;
        cv::cuda::processBatchGaussian(images, results, Size(0, 0), 1.2);
        ASSERT_EQ(images.size(), results.size());
        EXPECT_EQ(6, counting.allocations - before) << (mixed ? "two types" : "one type");
        for (size_t i = 0; i < images.size(); i++)
        {
            const bool counted = i < 6;
            EXPECT_EQ(counted, results[i].u && results[i].u->currAllocator == &counting) << "image " << i;
            Mat want;
            cv::GaussianBlur(images[i], want, Size(0, 0), 1.2, 1.2, cv::BORDER_REPLICATE);
            EXPECT_EQ(0, countDifferent(want, results[i])) << "image " << i;
        }
    }
}

// ---- CUDA graphs: a captured batch replays on new data ------------------------------------------

TEST(CudaImage_GaussianBatch, captured_batch_replays_on_new_data)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int n = 16;
    const Size image(96, 80);
    std::vector<double> sigmas;
    cv::RNG rng(77);
    for (int i = 0; i < n; i++)
        sigmas.push_back(i % 4 == 3 ? 4.5 : rng.uniform(0.1, 2.0));   // fused and large-radius launches
    Stream s(cudaStreamNonBlocking);
    const cudaStream_t raw = cv::cuda::StreamAccessor::getStream(s);
    GpuMat src(image.height * n, image.width, CV_8UC3), dst(src.size(), src.type());
    auto filter = cv::cuda::createGaussianBlurBatch(CV_8UC3, -1, Size(), 1.0);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(raw, cudaStreamCaptureModeGlobal));
    filter->applyStacked(src, dst, image.height, sigmas, {}, {}, s);
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(raw, &graph));
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    // Another call between capture and replay must not change what the graph replays.
    std::vector<double> other(n, 3.0);
    GpuMat src2(src.size(), src.type(), cv::Scalar::all(9)), dst2;
    filter->applyStacked(src2, dst2, image.height, other, {}, {}, s);
    replayOnNewData(exec, s, src, dst, rng, 2, [&](const Mat& input, const Mat& got, int round) {
        for (int i = 0; i < n; i++)
        {
            const cv::Rect rows(0, i * image.height, image.width, image.height);
            expectImageMatches(input(rows).clone(), got(rows), Size(), sigmas[i], sigmas[i], cv::BORDER_REPLICATE,
                               cv::format("round %d image %d", round, i));
        }
    });
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

// ---- bad input: named by index and parameter, before any CUDA call (no GPU needed) -------------

// Headers over memory that is never touched: every case fails before the first CUDA call.
GpuMat fakeImage(Size size, int type, size_t offset = 0)
{
    static uint64_t storage[64];
    return GpuMat(size.height, size.width, type, reinterpret_cast<uchar*>(storage) + offset, 0);
}

TEST(CudaImage_GaussianBatch, bad_input_is_named_by_index)
{
    auto filter = cv::cuda::createGaussianBlurBatch(CV_8UC3, -1, Size(), 1.0);
    const GpuMat a = fakeImage(Size(8, 8), CV_8UC3);
    std::vector<GpuMat> none, dst;
    Stream& st = noCudaStream();
    expectError([&] { filter->apply(none, dst, {}, {}, {}, st); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBatchFilter::apply: src has no images"}, "BADINPUT");
    std::vector<GpuMat> src = {a, a, GpuMat(), a};
    expectError([&] { filter->apply(src, dst, {}, {}, {}, st); }, cv::Error::StsBadArg, {"src[2] is empty"}, "BADINPUT");
    src = {a, a, a, fakeImage(Size(8, 8), CV_8UC1)};
    expectError([&] { filter->apply(src, dst, {}, {}, {}, st); }, cv::Error::StsUnmatchedFormats,
                {"src[3] type is CV_8UC1 but the filter was created for srcType CV_8UC3"}, "BADINPUT");
    src = {a, a, a, a};
    expectError([&] { filter->apply(src, dst, {1, 2, 3}, {}, {}, st); }, cv::Error::StsUnmatchedSizes,
                {"sigmaX has 3 values for 4 images"}, "BADINPUT");
    expectError([&] { filter->apply(src, dst, {1, 2, NAN, 1}, {}, {}, st); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBatchFilter::apply: image 2: sigmaX is nan"}, "BADINPUT");
    expectError([&] { filter->apply(src, dst, {1.0}, {}, {Size(3, 3), Size(3, 3), Size(3, 3), Size(4, 3)}, st); },
                cv::Error::StsBadSize, {"image 3: ksize.width is 4"}, "BADINPUT");
    expectError([&] { filter->apply(src, dst, {1.0}, {1, 1, 1, 1, 1}, {}, st); }, cv::Error::StsUnmatchedSizes,
                {"sigmaY has 5 values for 4 images"}, "BADINPUT");
    std::vector<GpuMat> three(3);
    expectError([&] { filter->apply(src, three, {}, {}, {}, st); }, cv::Error::StsUnmatchedSizes,
                {"dst has 3 images for 4 in src"}, "BADINPUT");
    GpuMat out;
    expectError([&] { filter->applyStacked(fakeImage(Size(8, 10), CV_8UC3), out, 3, {}, {}, {}, st); }, cv::Error::StsBadArg,
                {"applyStacked: imageRows is 3 for src of 10 rows"}, "BADINPUT");
    expectError([&] { filter->applyStacked(fakeImage(Size(8, 10), CV_8UC3), out, 0, {}, {}, {}, st); }, cv::Error::StsBadArg,
                {"imageRows is 0"}, "BADINPUT");
    expectError([&] { filter->applyStacked(fakeImage(Size(8, 10), CV_8UC3), out, 5, {1.0, NAN}, {}, {}, st); },
                cv::Error::StsBadArg, {"applyStacked: image 1: sigmaX is"}, "BADINPUT");
    expectError([] { cv::cuda::createGaussianBlurBatch(CV_8UC(5), -1, Size(), 1.0); }, cv::Error::StsUnsupportedFormat,
                {"cv::cuda::createGaussianBlurBatch: srcType is CV_8UC5"}, "BADINPUT");
    expectError([] { cv::cuda::createGaussianBlurBatch(CV_8UC1, -1, Size(), 1.0, 0, 99); }, cv::Error::StsBadFlag,
                {"createGaussianBlurBatch: rowBorderMode is 99"}, "BADINPUT");
    std::vector<GpuMat> one = {a};
    expectError([&] { cv::cuda::GaussianBlurBatch(one, dst, {}, {}, {}, cv::BORDER_REPLICATE, st); }, cv::Error::StsBadArg,
                {"cv::cuda::GaussianBlurBatch: sigmaX has no values"}, "BADINPUT");
    expectError([&] { cv::cuda::GaussianBlurBatch(one, dst, {1.0}, {}, {}, 77, st); }, cv::Error::StsBadFlag,
                {"cv::cuda::GaussianBlurBatch: borderType is 77"}, "BADINPUT");
    // Partial overlap of an image's own dst.
    std::vector<GpuMat> s1 = {fakeImage(Size(8, 8), CV_8UC3)}, d1 = {fakeImage(Size(8, 8), CV_8UC3, 3)};
    expectError([&] { filter->apply(s1, d1, {}, {}, {}, st); }, cv::Error::StsBadArg, {"dst partly overlaps src; use the same matrix (in place) or separate memory (image 0)"}, "BADINPUT");
}

}} // namespace opencv_test::<anonymous>
