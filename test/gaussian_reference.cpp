#include "test_precomp.hpp"
#include "gaussian_reference.hpp"

namespace cudaimage_test {

std::vector<int64_t> referenceFixedTaps(int ksize, double sigma, int fractionBits)
{
    cv::Mat k = cv::getGaussianKernel(ksize, sigma, CV_64F);
    std::vector<int64_t> taps(ksize);
    const double one = std::ldexp(1.0, fractionBits);
    double err = 0;
    int64_t sum = 0;
    for (int i = 0; i < ksize / 2; i++)
    {
        double v = k.at<double>(i) * one + err;
        int64_t q = cvRound(v);
        err = v - (double)q;
        taps[i] = taps[ksize - 1 - i] = q;
        sum += q;
    }
    taps[ksize / 2] = (int64_t)one - 2 * sum;
    return taps;
}

namespace {

// OpenCV's ksize/sigma rules (see cv::GaussianBlur).
void resolve(int depth, const cv::Size& size, bool canShrink, GaussianArgs& a)
{
    if (a.sigmaY <= 0) a.sigmaY = a.sigmaX;
    if (a.ksize.width <= 0) a.ksize.width = cv::cuda::gaussianKernelSize(a.sigmaX, depth);
    if (a.ksize.height <= 0) a.ksize.height = cv::cuda::gaussianKernelSize(a.sigmaY, depth);
    if (canShrink && size.height == 1) a.ksize.height = 1;
    if (canShrink && size.width == 1) a.ksize.width = 1;
    a.sigmaX = std::max(a.sigmaX, 0.0);
    a.sigmaY = std::max(a.sigmaY, 0.0);
}

template <typename T>
double at(const cv::Mat& whole, int y, int x, int c) { return (double)whole.ptr<T>(y)[x * whole.channels() + c]; }

double readAny(const cv::Mat& whole, int y, int x, int c)
{
    switch (whole.depth())
    {
    case CV_8U: return at<uchar>(whole, y, x, c);
    case CV_16U: return at<ushort>(whole, y, x, c);
    case CV_16S: return at<short>(whole, y, x, c);
    case CV_32F: return at<float>(whole, y, x, c);
    default: return at<double>(whole, y, x, c);
    }
}

} // namespace

cv::Mat referenceGaussianBlur(const cv::Mat& src, int dstDepth, const GaussianArgs& in)
{
    GaussianArgs a = in;
    const bool isolated = ((a.rowBorder | a.columnBorder) & cv::BORDER_ISOLATED) != 0;
    const int rowB = a.rowBorder & ~cv::BORDER_ISOLATED, colB = a.columnBorder & ~cv::BORDER_ISOLATED;
    cv::Size wholeSize = src.size();
    cv::Point ofs;
    if (!isolated) src.locateROI(wholeSize, ofs);
    const bool sub = wholeSize != src.size();
    resolve(src.depth(), src.size(), (isolated || !sub) && rowB != cv::BORDER_CONSTANT && colB != cv::BORDER_CONSTANT, a);

    // The whole image as a Mat header (the parent for a sub-matrix).
    cv::Mat whole = src;
    if (!isolated) whole.adjustROI(ofs.y, wholeSize.height - src.rows - ofs.y, ofs.x, wholeSize.width - src.cols - ofs.x);

    const int depth = src.depth(), cn = src.channels(), rx = a.ksize.width / 2, ry = a.ksize.height / 2;
    const int bits = depth == CV_8U ? 8 : depth == CV_16U ? 16 : 0;
    cv::Mat dst(src.size(), CV_MAKETYPE(dstDepth, cn));

    auto mapIndex = [](int p, int len, int border) { return cv::borderInterpolate(p, len, border); };

    // Separable, like the filter, but with cv::borderInterpolate and 64-bit sums: row-filter the
    // (mapped) rows the window needs, then filter those vertically.
    const int rowsNeeded = src.rows + 2 * ry;
    const int elems = src.cols * cn;
    std::vector<int64_t> fixedRows(bits ? (size_t)rowsNeeded * elems : 0);
    std::vector<double> realRows(bits ? 0 : (size_t)rowsNeeded * elems);
    std::vector<int64_t> tx, ty;
    cv::Mat kx, ky;
    if (bits)
    {
        tx = referenceFixedTaps(a.ksize.width, a.sigmaX, bits);
        ty = referenceFixedTaps(a.ksize.height, a.sigmaY, bits);
    }
    else
    {
        kx = cv::getGaussianKernel(a.ksize.width, a.sigmaX, CV_64F);
        ky = cv::getGaussianKernel(a.ksize.height, a.sigmaY, CV_64F);
    }
    for (int j = 0; j < rowsNeeded; j++)
    {
        const int ys = mapIndex(ofs.y + j - ry, wholeSize.height, colB);
        for (int x = 0; x < src.cols; x++)
            for (int c = 0; c < cn; c++)
            {
                int64_t si = 0;
                double sd = 0;
                if (ys >= 0)
                    for (int k = 0; k < a.ksize.width; k++)
                    {
                        const int xs = mapIndex(ofs.x + x - rx + k, wholeSize.width, rowB);
                        if (xs < 0) continue;
                        const double v = readAny(whole, ys, xs, c);
                        if (bits) si += tx[k] * (int64_t)v;
                        else sd += kx.at<double>(k) * v;
                    }
                if (bits) fixedRows[(size_t)j * elems + x * cn + c] = si;
                else realRows[(size_t)j * elems + x * cn + c] = sd;
            }
    }
    cv::Mat real(src.size(), CV_MAKETYPE(CV_64F, cn));
    for (int y = 0; y < src.rows; y++)
        for (int e = 0; e < elems; e++)
        {
            if (bits)
            {
                int64_t s = 0; // < 2^48 for 16U
                for (int k = 0; k < a.ksize.height; k++) s += ty[k] * fixedRows[(size_t)(y + k) * elems + e];
                const int shift = 2 * bits;
                if (dstDepth == CV_32F)
                    dst.ptr<float>(y)[e] = (float)std::ldexp((double)s, -shift);
                else
                {
                    const int64_t v = (s + ((int64_t)1 << (shift - 1))) >> shift;
                    if (depth == CV_8U) dst.ptr<uchar>(y)[e] = cv::saturate_cast<uchar>(v);
                    else dst.ptr<ushort>(y)[e] = cv::saturate_cast<ushort>(v);
                }
            }
            else
            {
                double s = 0;
                for (int k = 0; k < a.ksize.height; k++) s += ky.at<double>(k) * realRows[(size_t)(y + k) * elems + e];
                real.ptr<double>(y)[e] = s;
            }
        }
    if (!bits)
        real.convertTo(dst, dst.type());
    return dst;
}

cv::Mat cpuGaussianBlur(const cv::Mat& src, int dstDepth, cv::Size ksize, double sigmaX, double sigmaY, int border)
{
    if ((border & ~cv::BORDER_ISOLATED) == cv::BORDER_WRAP || dstDepth != src.depth())
        return referenceGaussianBlur(src, dstDepth, GaussianArgs{ksize, sigmaX, sigmaY, border, border});
    cv::Mat out;
    cv::GaussianBlur(src, out, ksize, sigmaX, sigmaY, border);
    return out;
}

void expectWithinDocumentedTolerance(const cv::Mat& want, const cv::Mat& got, const cv::Mat& src, const std::string& what)
{
    ASSERT_EQ(want.size(), got.size()) << what;
    ASSERT_EQ(want.type(), got.type()) << what;
    const double err = cv::norm(want.reshape(1), got.reshape(1), cv::NORM_INF);
    EXPECT_LE(err, documentedTolerance(src.depth(), src)) << what << ": " << countDifferent(want, got) << " elements differ";
}

} // namespace cudaimage_test
