// cv::cuda::SyncedMat, the handle: which storage and rectangle it refers to, and the argument
// checks; then the shared storage does the work and alone changes its state (synced_mat_storage.cpp:
// the state machine). TransferStats: transfer_stats.cpp; applyFilter: apply_filter.cpp.
#include "precomp.hpp"
#include "synced_mat_storage.hpp"
#include "opencv2/core/check.hpp"

#include <limits>

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::Intent;
using cv::cuda::detail::typeName;

namespace {

void checkSizeAndType(int rows, int cols, int type, const char* func)
{
    if (rows < 0 || cols < 0)
        CV_Error_(Error::StsBadSize, ("%s: rows and cols must not be negative, got rows=%d, cols=%d",
                                      func, rows, cols));
    if (type < 0 || type > CV_MAT_TYPE_MASK)
        CV_Error_(Error::StsBadArg, ("%s: type=%d is not an OpenCV matrix type (CV_8UC1 .. CV_16FC(%d))",
                                     func, type, CV_CN_MAX));
    const size_t esz = CV_ELEM_SIZE(type);
    if ((size_t)rows * (size_t)cols > (std::numeric_limits<size_t>::max)() / esz)
        CV_Error_(Error::StsBadSize, ("%s: %dx%d %s overflows size_t", func, cols, rows,
                                      typeName(type).c_str()));
}

} // namespace

SyncedMat::SyncedMat() {}

SyncedMat::SyncedMat(int rows, int cols, int type)
{
    create(rows, cols, type);
}

SyncedMat::SyncedMat(Size size, int type)
{
    create(size.height, size.width, type);
}

SyncedMat::SyncedMat(const Mat& m)
{
    CV_CheckLE(m.dims, 2, "SyncedMat(Mat): only 2-D images are supported");
    if (m.empty())
        return;
    impl_ = Impl::copyOfHost(m, "SyncedMat(Mat)");
    roi_ = Rect(Point(), m.size());
}

SyncedMat::SyncedMat(const GpuMat& m, Stream& producer)
{
    if (m.empty())
        return;
    impl_ = Impl::adoptingDevice(m, producer);
    roi_ = Rect(Point(), m.size());
}

SyncedMat::SyncedMat(const GpuMat& m)
{
    if (!m.empty())
        *this = SyncedMat(m, Stream::Null());
}

SyncedMat::SyncedMat(const SyncedMat& parent, Rect roi)
{
    if (parent.empty())
        CV_Error(Error::StsBadArg, "SyncedMat(parent, roi): the parent is empty");
    if (roi.width <= 0 || roi.height <= 0 || roi.x < 0 || roi.y < 0 ||
        roi.width > parent.roi_.width - roi.x || roi.height > parent.roi_.height - roi.y)
        CV_Error_(Error::StsOutOfRange, ("SyncedMat(parent, roi): roi (x=%d, y=%d, width=%d, height=%d) "
                                         "is not a non-empty rectangle inside the parent's %dx%d",
                                         roi.x, roi.y, roi.width, roi.height,
                                         parent.roi_.width, parent.roi_.height));
    impl_ = parent.impl_;
    roi_ = Rect(parent.roi_.x + roi.x, parent.roi_.y + roi.y, roi.width, roi.height);
}

void SyncedMat::create(int rows, int cols, int type)
{
    checkSizeAndType(rows, cols, type, "SyncedMat::create");
    if (impl_ && rows == roi_.height && cols == roi_.width && type == impl_->type())
        return;
    if (isSubmatrix())
        CV_Error_(Error::StsBadArg, ("SyncedMat::create: this is a %dx%d %s ROI view of a %dx%d storage; "
                                     "creating it as %dx%d %s would detach it from its parent",
                                     roi_.width, roi_.height, typeName(impl_->type()).c_str(),
                                     impl_->size().width, impl_->size().height, cols, rows,
                                     typeName(type).c_str()));
    if (rows == 0 || cols == 0)
    {
        release();
        return;
    }
    const int policy = crossDevicePolicy();   // a new storage keeps this handle's policy
    impl_ = makePtr<Impl>(Size(cols, rows), type, policy);
    roi_ = Rect(0, 0, cols, rows);
}

void SyncedMat::create(Size size, int type)
{
    create(size.height, size.width, type);
}

void SyncedMat::release()
{
    impl_.release();
    roi_ = Rect();
}

static void checkNotEmpty(const Ptr<SyncedMat::Impl>& impl, const char* func)
{
    if (!impl)
        CV_Error_(Error::StsBadArg, ("%s: the SyncedMat is empty", func));
}

void SyncedMat::releaseHost()
{
    if (impl_)
        impl_->releaseSide(false, "SyncedMat::releaseHost");
}

void SyncedMat::releaseDevice()
{
    if (impl_)
        impl_->releaseSide(true, "SyncedMat::releaseDevice");
}

Mat SyncedMat::readHost()
{
    checkNotEmpty(impl_, "SyncedMat::readHost");
    return impl_->hostAccess(roi_, Intent::Read, "SyncedMat::readHost");
}

Mat SyncedMat::writeHost()
{
    checkNotEmpty(impl_, "SyncedMat::writeHost");
    return impl_->hostAccess(roi_, Intent::Write, "SyncedMat::writeHost");
}

Mat SyncedMat::readWriteHost()
{
    checkNotEmpty(impl_, "SyncedMat::readWriteHost");
    return impl_->hostAccess(roi_, Intent::ReadWrite, "SyncedMat::readWriteHost");
}

GpuMat SyncedMat::readDevice(Stream& stream)
{
    checkNotEmpty(impl_, "SyncedMat::readDevice");
    return impl_->deviceAccess(roi_, stream, Intent::Read, "SyncedMat::readDevice");
}

GpuMat SyncedMat::writeDevice(Stream& stream)
{
    checkNotEmpty(impl_, "SyncedMat::writeDevice");
    return impl_->deviceAccess(roi_, stream, Intent::Write, "SyncedMat::writeDevice");
}

GpuMat SyncedMat::readWriteDevice(Stream& stream)
{
    checkNotEmpty(impl_, "SyncedMat::readWriteDevice");
    return impl_->deviceAccess(roi_, stream, Intent::ReadWrite, "SyncedMat::readWriteDevice");
}

void SyncedMat::setCrossDevicePolicy(int policy)
{
    checkNotEmpty(impl_, "SyncedMat::setCrossDevicePolicy");
    if (policy != CROSS_DEVICE_REFUSE && policy != CROSS_DEVICE_MIGRATE)
        CV_Error_(Error::StsBadArg, ("SyncedMat::setCrossDevicePolicy: policy is %d; allowed: "
                                     "CROSS_DEVICE_REFUSE (0) or CROSS_DEVICE_MIGRATE (1)", policy));
    impl_->setPolicy(policy);
}

int SyncedMat::crossDevicePolicy() const
{
    if (!impl_)
        return CROSS_DEVICE_REFUSE;
    return impl_->policy();
}

void SyncedMat::moveToDevice(int device, Stream& stream)
{
    const char* func = "SyncedMat::moveToDevice";
    checkNotEmpty(impl_, func);
    if (device < 0)
        CV_Error_(Error::StsOutOfRange, ("%s: device is %d; allowed: 0 to cv::cuda::getCudaEnabledDeviceCount() - 1",
                                         func, device));
    const int n = detail::deviceCountOrThrow(func);
    if (device >= n)
        CV_Error_(Error::StsOutOfRange, ("%s: device is %d; allowed: 0 to %d (%d CUDA devices)", func, device,
                                         n - 1, n));
    impl_->moveToDevice(device, stream, func);
}

void SyncedMat::upload(Stream& stream)
{
    checkNotEmpty(impl_, "SyncedMat::upload");
    impl_->prefetch(true, stream, "SyncedMat::upload");
}

void SyncedMat::download(Stream& stream)
{
    checkNotEmpty(impl_, "SyncedMat::download");
    impl_->prefetch(false, stream, "SyncedMat::download");
}

bool SyncedMat::empty() const { return !impl_; }
Size SyncedMat::size() const { return roi_.size(); }
int SyncedMat::rows() const { return roi_.height; }
int SyncedMat::cols() const { return roi_.width; }
int SyncedMat::type() const { return impl_ ? impl_->type() : 0; }
int SyncedMat::depth() const { return CV_MAT_DEPTH(type()); }
int SyncedMat::channels() const { return CV_MAT_CN(type()); }
size_t SyncedMat::elemSize() const { return impl_ ? CV_ELEM_SIZE(impl_->type()) : 0; }
Rect SyncedMat::roi() const { return roi_; }
Size SyncedMat::storageSize() const { return impl_ ? impl_->size() : Size(); }
bool SyncedMat::isSubmatrix() const { return impl_ && roi_ != Rect(Point(), impl_->size()); }

bool SyncedMat::sharesStorageWith(const SyncedMat& other) const
{
    return impl_ && impl_ == other.impl_;
}

int SyncedMat::state() const
{
    if (!impl_)
        return UNINITIALIZED;
    return impl_->state();
}

bool SyncedMat::isHostValid() const { return (state() & HOST_VALID) != 0; }
bool SyncedMat::isDeviceValid() const { return (state() & DEVICE_VALID) != 0; }

bool SyncedMat::isHostAllocated() const
{
    if (!impl_)
        return false;
    return impl_->hostAllocated();
}

bool SyncedMat::isDeviceAllocated() const
{
    if (!impl_)
        return false;
    return impl_->deviceAllocated();
}

int SyncedMat::deviceId() const
{
    if (!impl_)
        return -1;
    return impl_->device();
}

TransferStats SyncedMat::stats() const
{
    if (!impl_)
        return TransferStats();
    return impl_->stats();
}

void SyncedMat::resetStats()
{
    if (!impl_)
        return;
    impl_->resetStats();
}
