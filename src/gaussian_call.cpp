// The description of one image's call (gaussian_call.hpp).
#include "precomp.hpp"
#include <cfloat>
#include <climits>
#include <cmath>
#include <mutex>
#include "cuda_check.hpp"
#include "gaussian_call.hpp"

namespace cv { namespace cuda { namespace gaussian {

const DeviceLimits& deviceLimits()
{
    int device = 0;
    CUDAIMAGE_CHECK(cudaGetDevice(&device));
    constexpr int kDevices = 64;
    static std::once_flag once[kDevices];
    static DeviceLimits limits[kDevices];
    if (device < 0 || device >= kDevices)
        CV_Error_(Error::StsOutOfRange, ("cv::cuda::GaussianBlur: device %d; at most %d devices", device, kDevices));
    std::call_once(once[device], [device] {
        DeviceLimits& d = limits[device];
        int bytes = 0, major = 0, minor = 0;
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&d.multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        d.sharedMemOptIn = static_cast<size_t>(bytes);
        d.computeCapability = 10 * major + minor;
        d.paths = GaussianPaths::deviceFacts(d.computeCapability);
    });
    return limits[device];
}

FilterTaps filterTaps(int srcType, Size ksize, double sigmaX, double sigmaY)
{
    const int depth = CV_MAT_DEPTH(srcType);
    const GaussianShape shape = resolveShape(depth, ksize, sigmaX, sigmaY);
    const int bits = fixedPointBits(depth);
    FilterTaps f;
    f.depth = depth;
    f.channels = CV_MAT_CN(srcType);
    f.x = makeTaps(shape.ksize.width, shape.sigmaX, bits);
    // CPU cv::GaussianBlur's rule (createGaussianKernels): the vertical kernel is the horizontal
    // one when the sizes match and the sigmas differ by less than DBL_EPSILON.
    if (shape.ksize.height == shape.ksize.width && std::abs(shape.sigmaX - shape.sigmaY) < DBL_EPSILON)
        f.y = f.x;
    else
        f.y = makeTaps(shape.ksize.height, shape.sigmaY, bits);
    return f;
}

FilterShape filterShape(Size ksize, bool horizontalTapsBelowOne, bool verticalTapsBelowOne, int srcType, int dstType,
                        int rowBorderMode, int columnBorderMode)
{
    FilterShape f;
    f.srcType = srcType;
    f.dstType = dstType < 0 ? srcType : dstType;
    if (columnBorderMode == -1)
        columnBorderMode = rowBorderMode;
    f.isolated = ((rowBorderMode | columnBorderMode) & BORDER_ISOLATED) != 0;
    f.rowBorder = rowBorderMode & ~BORDER_ISOLATED;
    f.columnBorder = columnBorderMode & ~BORDER_ISOLATED;
    f.rx = ksize.width / 2;
    f.ry = ksize.height / 2;
    f.horizontalTapsBelowOne = horizontalTapsBelowOne;
    f.verticalTapsBelowOne = verticalTapsBelowOne;
    return f;
}

FilterShape filterShape(const FilterTaps& taps, int srcType, int dstType, int rowBorderMode, int columnBorderMode)
{
    return filterShape(Size(static_cast<int>(taps.x.real.size()), static_cast<int>(taps.y.real.size())),
                       tapsBelowOne(taps.depth, taps.x.fixed), tapsBelowOne(taps.depth, taps.y.fixed), srcType, dstType,
                       rowBorderMode, columnBorderMode);
}

void checkImageFits(const GpuMat& src, int srcType, int ksizeHeight, const char* function)
{
    const int64 rowElems = static_cast<int64>(src.cols) * src.channels();
    const int64 scratchRowBytes = rowElems * static_cast<int64>(scratchElemSize(CV_MAT_DEPTH(srcType)));
    if (rowElems > INT_MAX / 2 || scratchRowBytes > INT_MAX)
        CV_Error_(Error::StsOutOfRange, ("%s: src row has %lld elements (%lld bytes of scratch per row); "
                                         "at most %d elements and %d bytes", function, (long long)rowElems,
                                         (long long)scratchRowBytes, INT_MAX / 2, INT_MAX));
    if (static_cast<int64>(src.rows) + 2 * static_cast<int64>(ksizeHeight / 2) > INT_MAX)
        CV_Error_(Error::StsOutOfRange, ("%s: src has %d rows; with ksize.height %d at most %d", function,
                                         src.rows, ksizeHeight, INT_MAX - 2 * (ksizeHeight / 2)));
}

namespace {
// Byte range [first, last) that a matrix view touches.
void byteRange(const GpuMat& m, const uchar*& first, const uchar*& last)
{
    first = m.data;
    last = m.data + (m.rows - 1) * m.step + m.cols * m.elemSize();
}
} // namespace

void checkNoPartialOverlap(const GpuMat& src, const GpuMat& dst, int dstType, const char* function)
{
    if (dst.empty() || dst.size() != src.size() || dst.type() != dstType || (dst.data == src.data && dst.step == src.step))
        return;
    const uchar *s0, *s1, *d0, *d1;
    byteRange(src, s0, s1);
    byteRange(dst, d0, d1);
    if (s0 < d1 && d0 < s1)
        CV_Error_(Error::StsBadArg, ("%s: dst partly overlaps src; use the same matrix (in place) or separate memory", function));
}

namespace {
// The vector-access flags of a call whose pointers, steps and ROI offset are set.
void setAlignment(BlurCall& call, size_t srcElem1, size_t dstElem1)
{
    const size_t vec4 = 4 * dstElem1;
    call.dstAligned4 = reinterpret_cast<uintptr_t>(call.dst) % vec4 == 0 && call.dstStep % vec4 == 0;
    call.dstAligned16 = reinterpret_cast<uintptr_t>(call.dst) % 16 == 0 && call.dstStep % 16 == 0;
    const size_t srcVec4 = 4 * srcElem1;
    call.srcAligned4 = reinterpret_cast<uintptr_t>(call.srcWhole) % srcVec4 == 0 && call.srcStep % srcVec4 == 0 &&
                       (static_cast<size_t>(call.roiX) * call.channels) % 4 == 0;
}
} // namespace

void setKernel(PathQuery& q, const FilterShape& f)
{
    q.rx = f.rx;
    q.ry = f.ry;
    q.horizontalTapsBelowOne = f.horizontalTapsBelowOne;
    q.verticalTapsBelowOne = f.verticalTapsBelowOne;
}

BlurCall movedCall(const BlurCall& call, const unsigned char* src, unsigned char* dst)
{
    BlurCall c = call;
    c.srcWhole = src;
    c.dst = dst;
    c.roiX = c.roiY = 0;
    c.wholeWidth = c.width;
    c.wholeHeight = c.height;
    setAlignment(c, CV_ELEM_SIZE1(c.depth), c.floatOutput ? sizeof(float) : CV_ELEM_SIZE1(c.depth));
    return c;
}

BlurCall describeCall(const GpuMat& src, const GpuMat& dst, const FilterShape& f, const DeviceLimits& limits, PathQuery& q)
{
    // CPU rule: a single row/column is not filtered across (except with a constant border on a
    // sub-matrix, where the CPU does filter).
    Point ofs(0, 0);
    Size whole = src.size();
    if (!f.isolated)
        src.locateROI(whole, ofs);
    const bool realNeighbours = whole != src.size();
    const bool shrink = f.isolated || !realNeighbours;
    const bool noConstant = f.columnBorder != BORDER_CONSTANT && f.rowBorder != BORDER_CONSTANT;
    const bool unitY = shrink && noConstant && src.rows == 1;
    const bool unitX = shrink && noConstant && src.cols == 1;

    // A ROI also reads its parent's pixels: "in place" is any dst inside the source's allocation.
    q.depth = CV_MAT_DEPTH(f.srcType);
    q.channels = CV_MAT_CN(f.srcType);
    q.floatOutput = CV_MAT_DEPTH(f.dstType) == CV_32F && q.depth != CV_32F;
    setKernel(q, f);
    q.unitRowOrColumn = unitX || unitY;
    q.dstInSrcAllocation = dst.datastart < src.dataend && src.datastart < dst.dataend;
    q.sharedMemOptIn = limits.sharedMemOptIn;
    q.multiprocessors = limits.multiprocessors;
    q.computeCapability = limits.computeCapability;

    BlurCall call;
    call.depth = q.depth;
    call.channels = q.channels;
    call.floatOutput = q.floatOutput;
    call.srcWhole = src.data - ofs.y * src.step - ofs.x * src.elemSize();
    call.srcStep = src.step;
    call.wholeWidth = whole.width;
    call.wholeHeight = whole.height;
    call.roiX = ofs.x;
    call.roiY = ofs.y;
    call.width = src.cols;
    call.height = src.rows;
    call.dst = dst.data;
    call.dstStep = dst.step;
    setAlignment(call, src.elemSize1(), dst.elemSize1());
    call.rx = unitX ? 0 : q.rx;
    call.ry = unitY ? 0 : q.ry;
    call.unitX = unitX;
    call.unitY = unitY;
    call.rowBorder = f.rowBorder;
    call.columnBorder = f.columnBorder;
    return call;
}

}}} // namespace cv::cuda::gaussian
