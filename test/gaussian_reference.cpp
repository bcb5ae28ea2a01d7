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
    const double perSide = depth == CV_8U ? 3 : 4;
    if (a.ksize.width <= 0) a.ksize.width = cvRound(a.sigmaX * perSide * 2 + 1) | 1;
    if (a.ksize.height <= 0) a.ksize.height = cvRound(a.sigmaY * perSide * 2 + 1) | 1;
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

    if (bits)
    {
        const std::vector<int64_t> tx = referenceFixedTaps(a.ksize.width, a.sigmaX, bits);
        const std::vector<int64_t> ty = referenceFixedTaps(a.ksize.height, a.sigmaY, bits);
        std::vector<int64_t> rowSums((size_t)a.ksize.height * src.cols * cn);
        for (int y = 0; y < src.rows; y++)
        {
            for (int k = 0; k < a.ksize.height; k++)
            {
                const int ys = mapIndex(ofs.y + y - ry + k, wholeSize.height, colB);
                for (int x = 0; x < src.cols; x++)
                    for (int c = 0; c < cn; c++)
                    {
                        int64_t s = 0;
                        if (ys >= 0)
                            for (int j = 0; j < a.ksize.width; j++)
                            {
                                const int xs = mapIndex(ofs.x + x - rx + j, wholeSize.width, rowB);
                                if (xs >= 0) s += tx[j] * (int64_t)readAny(whole, ys, xs, c);
                            }
                        rowSums[((size_t)k * src.cols + x) * cn + c] = s;
                    }
            }
            for (int x = 0; x < src.cols; x++)
                for (int c = 0; c < cn; c++)
                {
                    int64_t s = 0;
                    for (int k = 0; k < a.ksize.height; k++) s += ty[k] * rowSums[((size_t)k * src.cols + x) * cn + c];
                    const int shift = 2 * bits;
                    if (dstDepth == CV_32F)
                        dst.ptr<float>(y)[x * cn + c] = (float)std::ldexp((double)s, -shift);
                    else
                    {
                        const int64_t v = (s + ((int64_t)1 << (shift - 1))) >> shift;
                        if (depth == CV_8U) dst.ptr<uchar>(y)[x * cn + c] = cv::saturate_cast<uchar>(v);
                        else dst.ptr<ushort>(y)[x * cn + c] = cv::saturate_cast<ushort>(v);
                    }
                }
        }
        return dst;
    }

    // Floating point: double everywhere (the reference for the tolerance of 16S/32F/64F).
    cv::Mat kx = cv::getGaussianKernel(a.ksize.width, a.sigmaX, CV_64F);
    cv::Mat ky = cv::getGaussianKernel(a.ksize.height, a.sigmaY, CV_64F);
    cv::Mat out(src.size(), CV_MAKETYPE(CV_64F, cn));
    for (int y = 0; y < src.rows; y++)
        for (int x = 0; x < src.cols; x++)
            for (int c = 0; c < cn; c++)
            {
                double s = 0;
                for (int k = 0; k < a.ksize.height; k++)
                {
                    const int ys = mapIndex(ofs.y + y - ry + k, wholeSize.height, colB);
                    if (ys < 0) continue;
                    double r = 0;
                    for (int j = 0; j < a.ksize.width; j++)
                    {
                        const int xs = mapIndex(ofs.x + x - rx + j, wholeSize.width, rowB);
                        if (xs >= 0) r += kx.at<double>(j) * readAny(whole, ys, xs, c);
                    }
                    s += ky.at<double>(k) * r;
                }
                out.ptr<double>(y)[x * cn + c] = s;
            }
    out.convertTo(dst, dst.type());
    return dst;
}

} // namespace cudaimage_test
