#include "test_precomp.hpp"
#include "gaussian_fuzz_case.hpp"
#include "gaussian_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace cudaimage_test { namespace fuzz {

using cv::Mat;
using cv::Rect;
using cv::Size;
using cv::cuda::GpuMat;
using cv::cuda::Stream;

namespace {

std::string borderName(int b)
{
    static const char* names[] = {"CONSTANT", "REPLICATE", "REFLECT", "WRAP", "REFLECT_101"};
    std::string s = (b & 7) <= 4 ? names[b & 7] : std::to_string(b & 7);
    return (b & cv::BORDER_ISOLATED) ? s + "|ISOLATED" : s;
}

const char* depthName(int d)
{
    switch (d)
    {
    case CV_8U: return "8U"; case CV_16U: return "16U"; case CV_16S: return "16S";
    case CV_32F: return "32F"; default: return "64F";
    }
}

bool isPrime(int n)
{
    if (n < 2) return false;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0) return false;
    return true;
}

// One dimension: mostly small, biased to odd and prime values, rarely up to 4096.
int drawDim(cv::RNG& rng)
{
    const double u = rng.uniform(0.0, 1.0);
    int lo, hi;
    if (u < 0.12)      { return rng.uniform(1, 4); }         // 1, 2, 3
    else if (u < 0.45) { lo = 1; hi = 32; }
    else if (u < 0.75) { lo = 33; hi = 256; }
    else if (u < 0.93) { lo = 257; hi = 1024; }
    else if (u < 0.985){ lo = 1025; hi = 2048; }
    else               { lo = 2049; hi = 4096; }
    int n = rng.uniform(lo, hi + 1);
    const int kind = rng.uniform(0, 3);
    if (kind == 0) // prime at or above n
    {
        int p = n;
        while (!isPrime(p) && p < hi) p++;
        if (isPrime(p)) n = p;
    }
    else if (kind == 1 && n % 2 == 0 && n < hi)
        n += 1;
    return n;
}

const char* dataName(int k)
{
    static const char* n[] = {"random", "extremes", "constant-max", "gradient", "impulses"};
    return n[k];
}

const char* streamName(int m)
{
    static const char* n[] = {"Stream::Null()", "one stream", "two streams, one filter", "two streams, two filters"};
    return n[m];
}

int drawBorder(cv::RNG& rng)
{
    static const int b[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_WRAP, cv::BORDER_CONSTANT};
    return b[rng.uniform(0, 5)];
}

double drawSigma(cv::RNG& rng) // 0.3 .. 45, log-uniform (8U radius up to 135, other depths 180)
{
    return std::exp(rng.uniform(std::log(0.3), std::log(45.0)));
}

// Odd 1..(4 kMaxR + 1) of the large-radius tile: the radius drawn over every kernel path's whole
// range (src/gaussian_paths.hpp, the units' constants: test/gaussian_path_ids.hpp) for every channel
// count: 0..fused kMaxR (0 is a 1x1 kernel), the large-radius range (4 channels only to the last
// radius with a tile), beyond it (two passes), and the boundaries themselves often. Large kernels on
// all but small images exceed the case budget and are redrawn, so they come with small images (or
// thin kernels: the other direction drawn apart).
int drawKsize(cv::RNG& rng)
{
    using cudaimage_test::path::FusedTile;
    using cudaimage_test::path::LargeTile;
    static const std::vector<int> kBoundaries = [] {
        std::vector<int> b = {0};
        for (int cn = 1; cn <= 4; cn++)
            for (int r : cudaimage_test::path::boundaryRadii(CV_8U, cn))
                b.push_back(r);
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        return b;
    }();
    const int midLarge = (LargeTile::kMinR + LargeTile::kMaxR) / 4;   // small large radii more often
    const double u = rng.uniform(0.0, 1.0);
    int r;
    if (u < 0.45)
        r = rng.uniform(0, FusedTile::kMaxR + 1);
    else if (u < 0.65)
        r = rng.uniform(LargeTile::kMinR, midLarge);
    else if (u < 0.78)
        r = rng.uniform(midLarge, LargeTile::kMaxR + 1);
    else if (u < 0.92)
        r = kBoundaries[rng.uniform(0, (int)kBoundaries.size())];
    else
        r = rng.uniform(LargeTile::kMaxR + 1, 2 * LargeTile::kMaxR + 1);
    return 2 * r + 1;
}

template <typename T> void fillPattern(Mat& m, int kind, cv::RNG& rng, double lo, double hi)
{
    const int cn = m.channels();
    for (int y = 0; y < m.rows; y++)
    {
        T* p = m.ptr<T>(y);
        for (int x = 0; x < m.cols * cn; x++)
        {
            double v;
            switch (kind)
            {
            case DATA_EXTREMES: v = rng.uniform(0, 2) ? hi : lo; break;
            case DATA_CONSTANT_MAX: v = hi; break;
            case DATA_GRADIENT: v = lo + (hi - lo) * double((x / cn) + y) / double(m.cols + m.rows); break;
            default: v = rng.uniform(0, 97) == 0 ? hi : 0; break; // impulses
            }
            p[x] = cv::saturate_cast<T>(v);
        }
    }
}

// The region the filter reads, extrapolated like the filter: left/right with the row border,
// then top/bottom with the column border, relative to `whole`; `at` is the ROI's top-left in it.
Mat grownRegion(const Mat& whole, Rect at, int rx, int ry, int rowBorder, int columnBorder)
{
    rowBorder &= ~cv::BORDER_ISOLATED;
    columnBorder &= ~cv::BORDER_ISOLATED;
    // copyMakeBorder reads real neighbours of a sub-matrix: BORDER_ISOLATED keeps it to `whole`.
    Mat h;
    cv::copyMakeBorder(whole, h, 0, 0, rx, rx, rowBorder | cv::BORDER_ISOLATED, cv::Scalar::all(0));
    Mat rows = h(Rect(at.x, 0, at.width + 2 * rx, whole.rows));
    Mat padded;
    cv::copyMakeBorder(rows, padded, ry, ry, 0, 0, columnBorder | cv::BORDER_ISOLATED, cv::Scalar::all(0));
    return padded(Rect(0, at.y, at.width + 2 * rx, at.height + 2 * ry)).clone();
}

// Fixed-point sum before rounding, in 64F (exact) then float.
Mat fixedPointFloat(const Mat& grown, const FuzzCase& c, Size ks)
{
    const int bits = c.depth == CV_8U ? 8 : 16;
    const double sx = std::max(c.sigmaX, 0.0);
    const double sy = std::max(c.sigmaY > 0 ? c.sigmaY : c.sigmaX, 0.0);
    const std::vector<int64_t> tx = referenceFixedTaps(ks.width, sx, bits), ty = referenceFixedTaps(ks.height, sy, bits);
    Mat kx(ks.width, 1, CV_64F), ky(ks.height, 1, CV_64F);
    for (int i = 0; i < ks.width; i++) kx.at<double>(i) = std::ldexp((double)tx[i], -bits);
    for (int i = 0; i < ks.height; i++) ky.at<double>(i) = std::ldexp((double)ty[i], -bits);
    Mat g64, out64;
    grown.convertTo(g64, CV_64F);
    cv::sepFilter2D(g64, out64, CV_64F, kx, ky, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
    Mat centre = out64(Rect(ks.width / 2, ks.height / 2, c.size.width, c.size.height)), out;
    centre.convertTo(out, CV_32F);
    return out;
}

} // namespace

uint64_t envU64(const char* name, uint64_t dflt)
{
    const char* v = std::getenv(name);
    if (!v || !*v)
        return dflt;
    return std::strtoull(v, nullptr, 0);
}

uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

Size filterKsize(const FuzzCase& c)
{
    Size ks = c.ksize;
    if (ks.width <= 0) ks.width = cv::cuda::gaussianKernelSize(c.sigmaX, c.depth);
    if (ks.height <= 0) ks.height = cv::cuda::gaussianKernelSize(c.sigmaY > 0 ? c.sigmaY : c.sigmaX, c.depth);
    return ks;
}

Size resolvedKsize(const FuzzCase& c)
{
    Size ks = filterKsize(c);
    const bool constant = (c.rowBorder & 7) == cv::BORDER_CONSTANT || (c.columnBorder & 7) == cv::BORDER_CONSTANT;
    if (!c.sub() && !constant)
    {
        if (c.size.height == 1) ks.height = 1;
        if (c.size.width == 1) ks.width = 1;
    }
    return ks;
}

cv::cuda::gaussian::PathChoice pathOf(const FuzzCase& c, size_t smem)
{
    const double sy = c.sigmaY > 0 ? c.sigmaY : c.sigmaX;
    const Size ks = filterKsize(c);   // resolvedKsize() also applies the single row/column rule
    const bool constant = (c.rowBorder & 7) == cv::BORDER_CONSTANT || (c.columnBorder & 7) == cv::BORDER_CONSTANT;
    cv::cuda::gaussian::PathQuery q;
    q.depth = c.depth;
    q.channels = c.cn;
    q.rx = ks.width / 2;
    q.ry = ks.height / 2;
    if (c.depth == CV_8U || c.depth == CV_16U)
    {
        const int bits = c.depth == CV_8U ? 8 : 16;
        const std::vector<int64_t> ty = referenceFixedTaps(ks.height, std::max(sy, 0.0), bits);
        const std::vector<int64_t> tx = referenceFixedTaps(ks.width, std::max(c.sigmaX, 0.0), bits);
        auto belowOne = [bits](const std::vector<int64_t>& t) { return std::all_of(t.begin(), t.end(), [bits](int64_t v) { return v < (int64_t(1) << bits); }); };
        q.verticalTapsBelowOne = belowOne(ty);
        q.horizontalTapsBelowOne = belowOne(tx);
    }
    q.floatOutput = c.floatOutput && c.depth != CV_32F;
    q.unitRowOrColumn = !c.sub() && !constant && (c.size.width == 1 || c.size.height == 1);
    q.dstInSrcAllocation = c.inPlace;
    q.sharedMemOptIn = smem;
    return cv::cuda::gaussian::choosePath(q, cudaimage_test::path::factsFor(90));   // the bundle's sm_90 code runs every kernel
}

double workOf(const FuzzCase& c)
{
    const Size ks = resolvedKsize(c);
    return double(c.size.width + ks.width) * double(c.size.height + ks.height) * c.cn * double(ks.width + ks.height);
}

std::string describe(const FuzzCase& c)
{
    std::ostringstream os;
    os << "seed=" << c.seed << " case=" << c.index << ": " << depthName(c.depth) << "C" << c.cn
       << " src " << c.size.width << "x" << c.size.height
       << " parent " << c.parentSize.width << "x" << c.parentSize.height
       << " roi(x=" << c.roi.x << ",y=" << c.roi.y << ")" << (c.sub() ? " [sub-matrix]" : c.isolated() ? " [isolated]" : " [whole]")
       << " ksize=" << c.ksize.width << "x" << c.ksize.height
       << " (resolved " << resolvedKsize(c).width << "x" << resolvedKsize(c).height << ")"
       << " sigmaX=" << c.sigmaX << " sigmaY=" << c.sigmaY
       << " rowBorder=" << borderName(c.rowBorder) << " columnBorder=" << borderName(c.columnBorder)
       << " dstType=" << (c.dstMinusOne ? "-1 (" : "") << cv::typeToString(c.dstType()) << (c.dstMinusOne ? ")" : "")
       << (c.inPlace ? " in-place" : "") << (c.dstInParent ? " dst-is-ROI" : "")
       << (c.oneShot ? " one-shot cv::cuda::GaussianBlur for job 0" : "")
       << " " << streamName(c.streamMode) << " data=" << dataName(c.data)
       << " path (sm_90)=" << pathOf(c, kSm90SharedMem).name;
    return os.str();
}

std::string replayLine(const FuzzCase& c)
{
    return cv::format("replay: CUDAIMAGE_FUZZ_SEED=%llu CUDAIMAGE_FUZZ_FIRST=%d CUDAIMAGE_FUZZ_CASES=1 "
                      "opencv_test_cudaimage --gtest_filter='CudaImage_GaussianFuzz.*'",
                      (unsigned long long)c.seed, c.index);
}

std::vector<int> coreBoundaries(int cn)
{
    using cudaimage_test::path::FusedTile;
    using cudaimage_test::path::LargeTile;
    const int last = cudaimage_test::path::lastRadiusOf<LargeTile>(cn, CV_8U);
    std::vector<int> b = {FusedTile::kMaxR, LargeTile::kMinR, last, last + 1, LargeTile::kMaxR, LargeTile::kMaxR + 1};
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
}

FuzzCase drawCase(uint64_t seed, int index)
{
    cv::RNG rng(mix(seed * 1000003ULL + (uint64_t)index) | 1);
    static const int depths[] = {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F};
    for (int attempt = 0;; attempt++)
    {
        FuzzCase c;
        c.seed = seed;
        c.index = index;
        c.depth = depths[rng.uniform(0, 5)];
        c.cn = rng.uniform(1, 5);
        c.size = Size(drawDim(rng), drawDim(rng));
        if (attempt > 20) // give up on big draws: a small case keeps the budget
            c.size = Size(rng.uniform(1, 64), rng.uniform(1, 64));

        // Kernel: ksize 0 (from sigma) or odd; sigma 0.3..30, or 0 with a size given.
        const int kmode = rng.uniform(0, 4);
        c.sigmaX = drawSigma(rng);
        if (kmode == 0)
            c.ksize = Size(0, 0);
        else
        {
            const int k = drawKsize(rng);
            c.ksize = kmode == 1 ? Size(k, k) : Size(k, drawKsize(rng));
            if (rng.uniform(0, 4) == 0)
                c.sigmaX = 0;
            if (rng.uniform(0, 6) == 0)
                c.ksize.width = 0, c.sigmaX = c.sigmaX > 0 ? c.sigmaX : drawSigma(rng);
        }
        c.sigmaY = 0;
        if (rng.uniform(0, 3) == 0)
            c.sigmaY = rng.uniform(0, 4) == 0 ? 0.0 : drawSigma(rng);
        if (c.ksize.height == 0 && c.sigmaY <= 0 && c.sigmaX <= 0)
            c.sigmaY = drawSigma(rng);

        // Borders: the same for both directions half of the time; BORDER_ISOLATED sometimes.
        c.rowBorder = drawBorder(rng);
        c.columnBorder = rng.uniform(0, 2) == 0 ? c.rowBorder : drawBorder(rng);
        const int iso = rng.uniform(0, 10);
        if (iso == 0) c.rowBorder |= cv::BORDER_ISOLATED;
        else if (iso == 1) c.columnBorder |= cv::BORDER_ISOLATED;
        else if (iso == 2) { c.rowBorder |= cv::BORDER_ISOLATED; c.columnBorder |= cv::BORDER_ISOLATED; }

        // Parent: the whole image a quarter of the time; otherwise margins (often zero on a side,
        // so the ROI touches the parent's edge) smaller or larger than the kernel radius.
        if (rng.uniform(0, 4) == 0)
        {
            c.parentSize = c.size;
            c.roi = Rect(0, 0, c.size.width, c.size.height);
        }
        else
        {
            auto margin = [&] { return rng.uniform(0, 5) < 2 ? 0 : rng.uniform(1, rng.uniform(0, 2) ? 8 : 80); };
            const int l = margin(), r = margin(), t = margin(), b = margin();
            c.parentSize = Size(c.size.width + l + r, c.size.height + t + b);
            c.roi = Rect(l, t, c.size.width, c.size.height);
        }

        c.floatOutput = rng.uniform(0, 4) == 0;
        c.dstMinusOne = !c.floatOutput && rng.uniform(0, 3) == 0;
        c.inPlace = c.dstType() == c.srcType() && rng.uniform(0, 4) == 0;
        c.dstInParent = !c.inPlace && rng.uniform(0, 3) == 0;
        c.streamMode = rng.uniform(0, STREAM_MODES);
        c.data = rng.uniform(0, 4) == 0 ? rng.uniform(1, DATA_KINDS) : DATA_RANDOM;
        c.oneShot = c.rowBorder == c.columnBorder && !c.floatOutput && rng.uniform(0, 4) == 0;

        const double bytes = double(c.parentSize.area()) * CV_ELEM_SIZE(c.srcType());
        const double oracleBytes = double(c.size.area()) * c.cn * 8; // a 64F oracle
        if (workOf(c) <= kMaxWork && bytes <= kMaxBytes && oracleBytes <= 4 * kMaxBytes)
            return c;
    }
}

cv::RNG dataRngOf(uint64_t seed, int index)
{
    return cv::RNG(mix(seed ^ (0x5bd1e995ULL * (uint64_t)(index + 1))));
}

Mat makeData(const FuzzCase& c, cv::RNG& rng)
{
    const int type = c.srcType();
    if (c.data == DATA_RANDOM)
        return randomMat(c.parentSize, type, rng);
    Mat m(c.parentSize, type);
    switch (c.depth)
    {
    case CV_8U: fillPattern<uchar>(m, c.data, rng, 0, 255); break;
    case CV_16U: fillPattern<ushort>(m, c.data, rng, 0, 65535); break;
    case CV_16S: fillPattern<short>(m, c.data, rng, -32768, 32767); break;
    case CV_32F: fillPattern<float>(m, c.data, rng, -1e4, 1e4); break;
    default: fillPattern<double>(m, c.data, rng, -1e6, 1e6); break;
    }
    return m;
}

double maxAbsOf(const Mat& m)
{
    double lo, hi;
    cv::minMaxIdx(m.reshape(1), &lo, &hi);
    return std::max(std::abs(lo), std::abs(hi));
}

double toleranceFor(const FuzzCase& c, double maxAbs)
{
    if (c.depth == CV_8U || c.depth == CV_16U)
        return 0; // same depth: bit-exact; 32F output: the exact fixed-point sum, rounded once
    if (!c.floatOutput && c.depth == CV_16S)
        return 1;
    if (c.depth == CV_64F && !c.floatOutput)
        return 1e-12 * std::max(maxAbs, 1.0);
    return 1e-5 * std::max(maxAbs, 1.0);
}

Oracle cpuOracle(const FuzzCase& c, const Mat& parent)
{
    Oracle o;
    const Mat roiView = parent(c.roi);
    const bool sameBorder = c.rowBorder == c.columnBorder;
    const bool wrap = (c.rowBorder & 7) == cv::BORDER_WRAP || (c.columnBorder & 7) == cv::BORDER_WRAP;
    const bool fixedPoint = c.depth == CV_8U || c.depth == CV_16U;
    if (!c.floatOutput || c.depth == CV_32F)
    {
        if (sameBorder && !wrap && !(fixedPoint && c.sub()))
        {
            // The ROI view itself: the CPU reads the parent's pixels unless isolated.
            cv::GaussianBlur(c.sub() ? roiView : roiView.clone(), o.expected, c.ksize, c.sigmaX, c.sigmaY, c.rowBorder);
            o.how = "cv::GaussianBlur";
            return o;
        }
    }
    const Size ks = resolvedKsize(c);
    const int rx = ks.width / 2, ry = ks.height / 2;
    const Mat whole = c.sub() ? parent : roiView.clone();
    const Rect at = c.sub() ? c.roi : Rect(0, 0, c.size.width, c.size.height);
    Mat grown = grownRegion(whole, at, rx, ry, c.rowBorder, c.columnBorder);
    if (c.floatOutput && fixedPoint)
    {
        o.expected = fixedPointFloat(grown, c, ks);
        o.how = "pad + cv::sepFilter2D(64F, fixed-point taps)";
        return o;
    }
    if (c.floatOutput && c.depth != CV_32F)
        grown.convertTo(grown, CV_64F);
    Mat out;
    cv::GaussianBlur(grown, out, ks, c.sigmaX, c.sigmaY, cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
    o.expected = out(Rect(rx, ry, c.size.width, c.size.height)).clone();
    o.how = c.floatOutput && c.depth != CV_32F ? "pad + cv::GaussianBlur(64F)" : "pad + cv::GaussianBlur";
    return o;
}

Mat modelOracle(const FuzzCase& c, const Mat& parent)
{
    GaussianArgs a{c.ksize, c.sigmaX, c.sigmaY, c.rowBorder, c.columnBorder};
    // 16S/64F to 32F: the model's double result, unrounded.
    const int modelDepth = c.floatOutput && (c.depth == CV_16S || c.depth == CV_64F) ? CV_64F : c.dstType() == c.srcType() ? c.depth : CV_32F;
    if (modelDepth == CV_64F && c.depth == CV_16S)
    {
        Mat p64;
        parent.convertTo(p64, CV_64F);  // same values; the model then computes in double
        return referenceGaussianBlur(p64(c.roi), CV_64F, a);
    }
    return referenceGaussianBlur(parent(c.roi), modelDepth, a);
}

std::string firstMismatch(const Mat& expected, const Mat& actual, double tol, bool flagNaN)
{
    if (expected.size() != actual.size() || expected.channels() != actual.channels())
        return cv::format("size/channels differ: expected %dx%d C%d, got %dx%d C%d", expected.cols, expected.rows,
                          expected.channels(), actual.cols, actual.rows, actual.channels());
    Mat e = expected, a = actual;
    if (e.depth() != a.depth())
    {
        e.convertTo(e, CV_64F);
        a.convertTo(a, CV_64F);
    }
    Mat diff, bad;
    cv::absdiff(e.reshape(1), a.reshape(1), diff);
    if (diff.depth() == CV_8U || diff.depth() == CV_16U || diff.depth() == CV_16S)
        diff.convertTo(diff, CV_32F); // compare() needs a representable threshold
    cv::compare(diff, tol, bad, cv::CMP_GT);
    // NaN never compares greater: catch it too
    Mat nan;
    if (flagNaN && a.depth() >= CV_32F)
    {
        cv::compare(a.reshape(1), a.reshape(1), nan, cv::CMP_NE);
        cv::bitwise_or(bad, nan, bad);
    }
    const int n = cv::countNonZero(bad);
    if (n == 0)
        return "";
    const int cn = expected.channels();
    for (int y = 0; y < bad.rows; y++)
    {
        const uchar* row = bad.ptr<uchar>(y);
        for (int i = 0; i < bad.cols; i++)
            if (row[i])
            {
                Mat e1, a1;
                e.reshape(1).row(y).colRange(i, i + 1).convertTo(e1, CV_64F);
                a.reshape(1).row(y).colRange(i, i + 1).convertTo(a1, CV_64F);
                double maxDiff;
                cv::minMaxIdx(diff, nullptr, &maxDiff);
                return cv::format("%d of %d elements differ by more than %.9g (max %.9g); first at x=%d y=%d c=%d: "
                                  "expected %.17g, got %.17g", n, (int)bad.total(), tol, maxDiff, i / cn, y, i % cn,
                                  e1.at<double>(0), a1.at<double>(0));
            }
    }
    return "";
}

std::string runCase(const FuzzCase& c, cv::RNG& dataRng, int& modelChecks, std::string& oracleUsed)
{
    const Mat parent = makeData(c, dataRng);
    const Oracle oracle = cpuOracle(c, parent);
    oracleUsed = oracle.how;
    const double tol = toleranceFor(c, maxAbsOf(parent));
    const bool useModel = workOf(c) <= kModelWork;
    Mat model;
    if (useModel)
    {
        model = modelOracle(c, parent);
        modelChecks++;
    }

    const int dstTypeArg = c.dstMinusOne ? -1 : c.dstType();
    cv::Ptr<cv::cuda::Filter> f1 = cv::cuda::createGaussianBlur(c.srcType(), dstTypeArg, c.ksize, c.sigmaX, c.sigmaY, c.rowBorder, c.columnBorder);
    cv::Ptr<cv::cuda::Filter> f2 = c.streamMode == STREAM_TWO_TWO_FILTERS
        ? cv::cuda::createGaussianBlur(c.srcType(), dstTypeArg, c.ksize, c.sigmaX, c.sigmaY, c.rowBorder, c.columnBorder) : f1;
    const int jobs = c.streamMode >= STREAM_TWO_ONE_FILTER ? 2 : 1;
    Stream streams[2] = {c.streamMode == STREAM_NULL ? Stream::Null() : Stream(), jobs == 2 ? Stream() : Stream::Null()};

    // Each job: its own source parent when in place (it is overwritten), else one shared source.
    const int guard = 3;
    const double sentinel = c.floatOutput ? -777.25 : 77;
    GpuMat srcParent[2], dstParent[2], src[2], dst[2];
    for (int j = 0; j < jobs; j++)
    {
        if (j == 0 || c.inPlace)
            srcParent[j].upload(parent);
        else
            srcParent[j] = srcParent[0];
        src[j] = srcParent[j](c.roi);
        if (c.inPlace)
            dst[j] = src[j];
        else if (c.dstInParent)
        {
            dstParent[j].create(c.size.height + 2 * guard, c.size.width + 2 * guard, c.dstType());
            dstParent[j].setTo(cv::Scalar::all(sentinel));
            dst[j] = dstParent[j](Rect(guard, guard, c.size.width, c.size.height));
        }
    }
    // Alternate between the streams; a second round (not in place: same result) reuses each
    // stream's scratch while the other stream may still run.
    const int rounds = c.inPlace ? 1 : 2;
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < jobs; j++)
        {
            if (j == 0 && c.oneShot)
                cv::cuda::GaussianBlur(src[j], dst[j], c.ksize, c.sigmaX, c.sigmaY, c.rowBorder, streams[j]);
            else
                (j == 0 ? f1 : f2)->apply(src[j], dst[j], streams[j]);
        }

    std::string failures;
    for (int j = 0; j < jobs; j++)
    {
        Mat out, whole;
        if (c.dstInParent)
        {
            dstParent[j].download(whole, streams[j]);
            streams[j].waitForCompletion();
            out = whole(Rect(guard, guard, c.size.width, c.size.height));
            Mat intact(whole.size(), whole.type(), cv::Scalar::all(sentinel));
            out.copyTo(intact(Rect(guard, guard, c.size.width, c.size.height)));
            const std::string m = firstMismatch(intact, whole, 0, false); // a NaN inside dst is reported below
            if (!m.empty())
                failures += cv::format("\n  job %d: the filter wrote outside dst, into the guard band of its parent: ", j) + m;
        }
        else if (c.inPlace)
        {
            srcParent[j].download(whole, streams[j]);
            streams[j].waitForCompletion();
            out = whole(c.roi);
            Mat outside = whole.clone(), orig = parent.clone();
            outside(c.roi).setTo(0);
            orig(c.roi).setTo(0);
            const std::string m = firstMismatch(orig, outside, 0);
            if (!m.empty())
                failures += "\n  job " + std::to_string(j) + ": in place changed the parent outside the ROI: " + m;
        }
        else
        {
            dst[j].download(out, streams[j]);
            streams[j].waitForCompletion();
        }
        if (out.type() != c.dstType())
        {
            failures += cv::format("\n  job %d: dst type %s, expected %s", j, cv::typeToString(out.type()).c_str(),
                                   cv::typeToString(c.dstType()).c_str());
            continue;
        }
        std::string m = firstMismatch(oracle.expected, out, tol);
        if (!m.empty())
            failures += cv::format("\n  job %d vs %s: ", j, oracle.how.c_str()) + m;
        if (useModel)
        {
            m = firstMismatch(model, out, tol);
            if (!m.empty())
                failures += cv::format("\n  job %d vs the reference model: ", j) + m;
        }
    }
    return failures;
}

}} // namespace cudaimage_test::fuzz
