// cv::cuda::applyFilter on SyncedMat: a cv::cuda::Filter from one SyncedMat to another, or within
// one storage (in place, or between two views of it) through the storage's scratch image
// (SyncedMat::Impl::filterWithin, in the state machine's file, synced_mat_storage.cpp).
#include "precomp.hpp"
#include "synced_mat_storage.hpp"

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::Intent;

// The storage behind a handle (SyncedMat's friend: impl_ is private).
namespace cv { namespace cuda {
struct SyncedMatAccess
{
    static const Ptr<SyncedMat::Impl>& impl(const SyncedMat& m) { return m.impl_; }
};
}} // namespace cv::cuda

static void checkFilterArgs(const Ptr<Filter>& filter, const SyncedMat& src, const char* func)
{
    if (!filter)
        CV_Error_(Error::StsNullPtr, ("%s: the filter is null", func));
    if (src.empty())
        CV_Error_(Error::StsBadArg, ("%s: src is empty", func));
}

static void checkHoldsData(const SyncedMat& m, const char* what, const char* func)
{
    if (m.state() == SyncedMat::UNINITIALIZED)
        CV_Error_(Error::StsError, ("%s: %s (%dx%d %s) is uninitialised: no side holds data yet", func,
                                    what, m.cols(), m.rows(), typeToString(m.type()).c_str()));
}

void cv::cuda::applyFilter(const Ptr<Filter>& filter, SyncedMat& src, SyncedMat& dst, Stream& stream)
{
    const char* func = "cv::cuda::applyFilter";
    checkFilterArgs(filter, src, func);
    if (!dst.empty() && dst.size() != src.size())
        CV_Error_(Error::StsUnmatchedSizes, ("%s: dst is %dx%d but src is %dx%d; pass an empty dst to "
                                             "have it created", func, dst.cols(), dst.rows(),
                                             src.cols(), src.rows()));
    checkHoldsData(src, "src", func);

    const Ptr<SyncedMat::Impl>& si = SyncedMatAccess::impl(src);
    if (!dst.empty() && dst.sharesStorageWith(src))
    {
        // The same storage: the filter must not read what it writes; go through scratch.
        si->filterWithin(filter, src.roi(), dst.roi(), stream, TransferStats::READ_DEVICE, func);
        return;
    }
    GpuMat in = src.readDevice(stream);
    if (dst.empty())
    {
        GpuMat out;
        filter->apply(in, out, stream);
        dst = SyncedMat(out, stream);
        dst.setCrossDevicePolicy(src.crossDevicePolicy());
        return;
    }
    const Ptr<SyncedMat::Impl>& di = SyncedMatAccess::impl(dst);
    di->deviceAccess(dst.roi(), stream, Intent::Write, func, [&](const GpuMat& view) {
        GpuMat out = view;
        filter->apply(in, out, stream);
        if (out.data != view.data)  // the filter reallocated: its output has another size or type
            CV_Error_(Error::StsUnmatchedFormats,
                      ("%s: the filter produced a %dx%d %s image but dst is %dx%d %s; pass an empty "
                       "dst to have it created", func, out.cols, out.rows,
                       typeToString(out.type()).c_str(), view.cols, view.rows,
                       typeToString(view.type()).c_str()));
    });
}

void cv::cuda::applyFilter(const Ptr<Filter>& filter, SyncedMat& srcDst, Stream& stream)
{
    const char* func = "cv::cuda::applyFilter(in place)";
    checkFilterArgs(filter, srcDst, func);
    checkHoldsData(srcDst, "srcDst", func);
    SyncedMatAccess::impl(srcDst)->filterWithin(filter, srcDst.roi(), srcDst.roi(), stream,
                                                TransferStats::READ_WRITE_DEVICE, func);
}
