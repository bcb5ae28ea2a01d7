// NaN and +-Inf in float sources (32F, 64F) reach exactly the pixels CPU cv::GaussianBlur gives
// them: the same NaN mask, the same +-Inf mask with signs, and the finite pixels within the
// float tolerance. The kernels pad the shorter direction (and the large-radius kernel its window)
// with zero taps, and 0 x NaN is NaN: a padding tap multiplied into a sum would spread a NaN past
// the kernel's footprint. Every kernel path, square and rectangular kernels, explicit and
// sigma-derived sizes, the radius boundaries of each path and of the large-radius kernel's
// vertical runs (head/body/tail against the guarded loop), every border, separate dst and in place.
#include "test_precomp.hpp"
#include <cmath>
#include <set>
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"

namespace opencv_test { namespace {

struct Shape { Size ksize; double sx, sy; const char* why; };
std::ostream& operator<<(std::ostream& os, const Shape& s)
{ return os << "ksize=" << s.ksize << " sigma=(" << s.sx << "," << s.sy << ") " << s.why; }

// The fused kernels' strip rows (tile::stripRows): float sources in 16-row strips, double in 8.
// The large-radius kernel runs rows in three straight runs when its vertical kernel has at least
// stripRows - 1 taps, in one guarded loop below that: both sides of that boundary per depth.
int stripRows(int depth) { return cv::cuda::gaussian::tile::stripRows(depth); }

std::vector<Shape> shapesFor(int depth)
{
    const int kRows = stripRows(depth);
    const int runsMinRy = (kRows - 2 + 1) / 2;   // smallest ry with 2 ry + 1 >= kRows - 1
    const int rLarge = cv::cuda::gaussian::FusedLargeTile::kMinR;
    const int rMax = cv::cuda::gaussian::FusedLargeTile::kMaxR;
    const int rFusedMax = cv::cuda::gaussian::FusedTile::kMaxR;
    auto k = [](int rx, int ry) { return Size(2 * rx + 1, 2 * ry + 1); };
    return {
        {Size(3, 3), 0, 0, "3x3"},
        {Size(5, 31), 0, 0, "5x31"},
        {Size(31, 5), 0, 0, "31x5"},
        {Size(0, 0), 10, 0, "sigma 10"},
        {Size(0, 0), 1, 6, "sigma (1, 6)"},
        {Size(41, 41), 0, 0, "41x41"},
        {Size(17, 17), 0, 0, "17x17"},
        {k(rFusedMax, rFusedMax), 0, 0, "fused, largest radius"},
        {k(2, rFusedMax), 0, 0, "fused, rx < ry"},
        {k(rFusedMax, 1), 0, 0, "fused, ry < rx"},
        {Size(1, 15), 0, 3, "fused, rx 0"},
        {k(rLarge, rLarge), 0, 0, "large, smallest radius"},
        {k(rLarge, runsMinRy), 0, 0, "large, shortest vertical kernel in three runs"},
        {k(rLarge, runsMinRy - 1), 0, 0, "large, longest vertical kernel in the guarded loop"},
        {k(rLarge + 3, 0), 0, 0, "large, ry 0"},
        {k(0, rLarge + 4), 0, 0, "large, rx 0"},
        {k(2, 30), 0, 0, "large, rx far below R (whole zero chunks)"},
        {k(rMax, rMax), 0, 0, "large, largest radius (3-4 channels: two passes)"},
        {k(rMax + 1, rMax + 1), 0, 0, "two passes, smallest radius"},
        {Size(301, 3), 0, 0, "301x3 (two passes)"},
    };
}

// A random finite image with NaN, +Inf and -Inf planted at corners, edges, the centre and
// around the large kernel's tile seams; each channel gets its own.
Mat plantedImage(Size size, int type, cv::RNG& rng)
{
    Mat m(size, type);
    rng.fill(m, cv::RNG::UNIFORM, -1000, 1000);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const cv::Point spots[] = {{0, 0}, {size.width - 1, size.height / 3}, {size.width / 2, size.height / 2},
                               {size.width / 5, size.height - 1}, {1000 % size.width, 17}, {503 % size.width, 80}};
    const double values[] = {nan, inf, -inf, nan, inf, nan};
    const int cn = m.channels();
    for (int i = 0; i < 6; i++)
    {
        const int c = i % cn;
        if (m.depth() == CV_32F)
            m.ptr<float>(spots[i].y)[spots[i].x * cn + c] = static_cast<float>(values[i]);
        else
            m.ptr<double>(spots[i].y)[spots[i].x * cn + c] = values[i];
    }
    return m;
}

// Masks of NaN, +Inf and -Inf equal element by element; finite elements within `tol`.
::testing::AssertionResult sameNonFinite(const Mat& cpu, const Mat& gpu, double tol)
{
    if (cpu.size() != gpu.size() || cpu.type() != gpu.type())
        return ::testing::AssertionFailure() << "size/type differ";
    Mat a, b;
    cpu.reshape(1).convertTo(a, CV_64F);
    gpu.reshape(1).convertTo(b, CV_64F);
    int nanDiff = 0, infDiff = 0, far = 0, cpuNaN = 0, gpuNaN = 0;
    cv::Point first(-1, -1);
    for (int y = 0; y < a.rows; y++)
        for (int x = 0; x < a.cols; x++)
        {
            const double u = a.at<double>(y, x), v = b.at<double>(y, x);
            cpuNaN += std::isnan(u);
            gpuNaN += std::isnan(v);
            bool bad = false;
            if (std::isnan(u) != std::isnan(v))
                bad = ++nanDiff > 0;
            else if (std::isinf(u) || std::isinf(v))
                bad = u != v && ++infDiff > 0;
            else if (!std::isnan(u) && std::abs(u - v) > tol)
                bad = ++far > 0;
            if (bad && first.x < 0)
                first = cv::Point(x, y);
        }
    if (nanDiff + infDiff + far == 0)
        return ::testing::AssertionSuccess() << cpuNaN << " NaN";
    return ::testing::AssertionFailure() << "NaN mask differs at " << nanDiff << " elements (CPU " << cpuNaN << " NaN, GPU "
                                         << gpuNaN << "), Inf mask at " << infDiff << ", finite beyond " << tol << " at " << far
                                         << "; first at (element " << first.x << ", row " << first.y << ")";
}

typedef ::testing::TestWithParam<std::tuple<int, int, int>> CudaImage_GaussianNonFinite;

TEST_P(CudaImage_GaussianNonFinite, masks_match_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam()), border = std::get<2>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    cv::RNG rng(depth * 131 + cn * 7 + border);
    // Wider than two large-radius tiles, taller than two strips of the largest kernel.
    const Mat src = plantedImage(Size(1061, 293), type, rng);
    const double tol = (depth == CV_32F ? 1e-5 : 1e-12) * 1000;
    int smem = 0;
    ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, cv::cuda::getDevice()));
    GpuMat g(src);
    std::set<int> paths;
    for (const Shape& s : shapesFor(depth))
    {
        const Size ks(s.ksize.width > 0 ? s.ksize.width : cv::cuda::gaussianKernelSize(s.sx, depth),
                      s.ksize.height > 0 ? s.ksize.height : cv::cuda::gaussianKernelSize(s.sy > 0 ? s.sy : s.sx, depth));
        const gs::PathChoice c = gs::choosePath(path::query(depth, cn, ks.width / 2, ks.height / 2, static_cast<size_t>(smem)));
        paths.insert(c.index);
        SCOPED_TRACE(cv::format("%s border %d, ksize %dx%d (%s): path %s (%s)", cv::typeToString(type).c_str(), border,
                                ks.width, ks.height, s.why, c.name, c.reason));
        const Mat cpu = cpuGaussianBlur(src, depth, s.ksize, s.sx, s.sy, border);   // WRAP: the reference model
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(type, -1, s.ksize, s.sx, s.sy, border);
        GpuMat d;
        f->apply(g, d);
        Mat out;
        d.download(out);
        EXPECT_TRUE(sameNonFinite(cpu, out, tol)) << "separate dst";
        GpuMat inPlace = g.clone();   // in place: the two-pass path
        f->apply(inPlace, inPlace);
        inPlace.download(out);
        EXPECT_TRUE(sameNonFinite(cpu, out, tol)) << "in place";
    }
    // The shapes reach every CUDA-core path (the tensor-core path takes 8U only).
    EXPECT_EQ(1u, paths.count(path::Fused));
    EXPECT_EQ(1u, paths.count(path::FusedLarge));
    EXPECT_EQ(1u, paths.count(path::TwoPass));
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianNonFinite,
    ::testing::Combine(::testing::Values(CV_32F, CV_64F), ::testing::Values(1, 2, 3, 4),
                       ::testing::Values(cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_WRAP,
                                         cv::BORDER_CONSTANT)));

// A plain float32 image with one NaN, as a depth map with missing data: the CPU's footprint and no
// pixel more, for the kernels of the defect report (300x400, NaN at row 150, column 200).
TEST(CudaImage_GaussianNonFinite, one_nan_covers_the_cpus_footprint_only)
{
    CUDAIMAGE_REQUIRE_GPU();
    Mat src(300, 400, CV_32FC1);
    cv::RNG rng(5);
    rng.fill(src, cv::RNG::UNIFORM, 0.0, 1.0);
    src.at<float>(150, 200) = std::numeric_limits<float>::quiet_NaN();
    const Shape shapes[] = {{Size(5, 31), 0, 0, ""}, {Size(31, 5), 0, 0, ""}, {Size(0, 0), 10, 0, ""},
                            {Size(0, 0), 1, 6, ""}, {Size(41, 41), 0, 0, ""}, {Size(3, 3), 0, 0, ""},
                            {Size(17, 17), 0, 0, ""}, {Size(301, 3), 0, 0, ""}};
    for (const Shape& s : shapes)
    {
        SCOPED_TRACE(::testing::PrintToString(s));
        Mat cpu, out;
        cv::GaussianBlur(src, cpu, s.ksize, s.sx, s.sy, cv::BORDER_REPLICATE);
        GpuMat d;
        cv::cuda::GaussianBlur(GpuMat(src), d, s.ksize, s.sx, s.sy);
        d.download(out);
        Mat cpuMask = cpu != cpu, gpuMask = out != out;   // NaN: not equal to itself
        EXPECT_EQ(cv::countNonZero(cpuMask), cv::countNonZero(gpuMask));
        EXPECT_EQ(0, cv::countNonZero(cpuMask != gpuMask));
        EXPECT_TRUE(sameNonFinite(cpu, out, 1e-5));
    }
}

}} // namespace opencv_test::namespace
