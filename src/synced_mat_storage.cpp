// cv::cuda::SyncedMat: a page-locked host image and a device image kept in step.
//
// State machine (per shared storage; V = valid):
//
//   empty --create/ctor(size,type)--> UNINITIALIZED --writeHost--> HOST_V
//                                                    \--writeDevice--> DEVICE_V
//   HOST_V   --readDevice/upload (upload)------> BOTH_V
//   DEVICE_V --readHost/download (download)----> BOTH_V
//   BOTH_V   --write*/readWrite* on one side---> that side only
//
// Ordering. Each side keeps "marks": the stream that last wrote it and the streams that read it
// since. A mark made by our own transfer is *eager* (its event is recorded right after the copy:
// exact). A mark made by a caller's access is *lazy*: the caller enqueues its work after we return,
// so its event is recorded only when another stream (or the host) first has to wait for it; it then
// covers everything the caller enqueued on that stream so far, and stays fixed (later waiters use
// the same point) until the caller accesses again on that stream. Device waits use
// Stream::waitEvent (the host never blocks); host accesses block on Event::waitForCompletion.
//
// Invariants (checked by tests; the transitions below refuse what would break them):
//  - holding data => hostValid_ || devValid_;
//  - hostValid_ => host_ allocated; devValid_ => dev_ allocated;
//  - the device readers are the streams that read the device since the last device write;
//    the host writer is the last download (eager), the host readers the uploads since;
//  - every event and every device-side stream belongs to device_ (a move to another device waits
//    for all of them, then drops them: cudaEventRecord needs an event of the stream's device).
//
// Illegal transitions. As HalideBuffer refuses to "set host dirty when device is dirty", each
// transition first checks that it is legal from the present state (a partial write over the other
// side's only valid data, an upload from a stale host, a host write while a transfer still uses
// the host memory...) and otherwise throws cv::Exception (StsInternal) before changing anything.
// Such a throw is a fault of this file, never of the caller (the handle's own checks come first
// and name the caller's mistake); it is checked in every build because a silent wrong transition
// loses image data.
//
// This file is the only one that changes the storage's state: construction, the accesses,
// transfers, prefetch, release, moves between devices, the policy and the counters, with the
// device checks they make. Elsewhere: the storage's members (synced_mat_storage.hpp), new images
// (synced_mat_allocation.cpp), the marks (synced_mat_marks.cpp), the public handle
// (synced_mat.cpp), applyFilter's checks (apply_filter.cpp).
#include "precomp.hpp"
#include "synced_mat_storage.hpp"
#include "transfer_stats.hpp"

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::Intent;
using cv::cuda::detail::MarkSet;
using cv::cuda::detail::Waiter;
using cv::cuda::detail::typeName;

namespace {

// `what` says which transition was refused and why; see "Illegal transitions" above.
void requireLegal(bool legal, const char* what)
{
    if (!legal)
        CV_Error_(Error::StsInternal, ("SyncedMat: illegal state transition: %s", what));
}

} // namespace

// ------------------------------------------------------------------------------------------------
// Construction and what the handle reads

SyncedMat::Impl::Impl(Size size, int type, int policy) : size_(size), type_(type), policy_(policy) {}

Ptr<SyncedMat::Impl> SyncedMat::Impl::copyOfHost(const Mat& m, const char* func)
{
    Ptr<Impl> impl = makePtr<Impl>(m.size(), m.type(), SyncedMat::CROSS_DEVICE_REFUSE);
    std::lock_guard<std::mutex> lock(impl->mtx_);
    impl->allocateHost(func);
    m.copyTo(impl->host_);   // the same size and type: copies into the page-locked image
    impl->markHostWritten(true);
    return impl;
}

Ptr<SyncedMat::Impl> SyncedMat::Impl::adoptingDevice(const GpuMat& m, Stream& producer)
{
    const int owner = detail::memoryDevice(m.data);   // not the current device: the memory's own
    Ptr<Impl> impl = makePtr<Impl>(m.size(), m.type(), SyncedMat::CROSS_DEVICE_REFUSE);
    std::lock_guard<std::mutex> lock(impl->mtx_);
    impl->device_ = owner >= 0 ? owner : getDevice();
    impl->dev_ = m;
    impl->markDeviceWritten(producer, StreamAccessor::getStream(producer), true);
    return impl;
}

int SyncedMat::Impl::state() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return (hostValid_ ? SyncedMat::HOST_VALID : 0) | (devValid_ ? SyncedMat::DEVICE_VALID : 0);
}

bool SyncedMat::Impl::hostAllocated() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return !host_.empty();
}

bool SyncedMat::Impl::deviceAllocated() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return !dev_.empty();
}

int SyncedMat::Impl::device() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return device_;
}

int SyncedMat::Impl::policy() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return policy_;
}

TransferStats SyncedMat::Impl::stats() const
{
    std::lock_guard<std::mutex> lock(mtx_);
    return stats_;
}

// ------------------------------------------------------------------------------------------------
// Policy and counters

void SyncedMat::Impl::setPolicy(int policy)
{
    requireLegal(policy == SyncedMat::CROSS_DEVICE_REFUSE || policy == SyncedMat::CROSS_DEVICE_MIGRATE,
                 "the cross-device policy must be CROSS_DEVICE_REFUSE or CROSS_DEVICE_MIGRATE");
    std::lock_guard<std::mutex> lock(mtx_);
    policy_ = policy;
}

void SyncedMat::Impl::resetStats()
{
    std::lock_guard<std::mutex> lock(mtx_);
    stats_ = TransferStats();
}

// ------------------------------------------------------------------------------------------------
// Checks

void SyncedMat::Impl::checkReadable(const char* func) const
{
    if (!holdsData())
        CV_Error_(Error::StsError, ("%s: the SyncedMat (%dx%d %s) is uninitialised: no side holds "
                                    "data yet; write it first (writeHost() or writeDevice())",
                                    func, size_.width, size_.height, typeName(type_).c_str()));
}

void SyncedMat::Impl::refuseForeign(int cur, const char* func) const
{
    CV_Error_(Error::StsBadArg, ("%s: this SyncedMat lives on CUDA device %d but the calling "
                                 "thread's current device is %d; call cv::cuda::setDevice(%d) first, or "
                                 "allow moves: setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE)",
                                 func, device_, cur, device_));
}

void SyncedMat::Impl::enterStorageDevice(std::optional<detail::DeviceGuard>& guard, const char* func) const
{
    const int cur = getDevice();
    if (!foreign(cur))
        return;
    if (policy_ != SyncedMat::CROSS_DEVICE_MIGRATE)
        refuseForeign(cur, func);
    guard.emplace(device_);
}

void SyncedMat::Impl::checkStream(cudaStream_t h, int expected, const char* func) const
{
    const int d = detail::streamDevice(h);   // -1: a default stream, which follows the current device
    if (d >= 0 && d != expected)
        CV_Error_(Error::StsBadArg, ("%s: the stream belongs to CUDA device %d but this SyncedMat "
                                     "%s device %d", func, d, foreign(expected) ? "would move to the current" : "lives on",
                                     expected));
}

int SyncedMat::Impl::deviceForAccess(Stream& s, cudaStream_t h, const char* func)
{
    const int cur = getDevice();
    if (foreign(cur) && policy_ != SyncedMat::CROSS_DEVICE_MIGRATE)
        refuseForeign(cur, func);
    checkStream(h, cur, func);
    if (foreign(cur))
        moveLocked(cur, s, h, func);
    return cur;
}

// ------------------------------------------------------------------------------------------------
// Allocation: an image made apart (synced_mat_allocation.cpp), committed here

void SyncedMat::Impl::allocateHost(const char* func)
{
    if (!host_.empty())
        return;
    const int cur = getDevice();
    host_ = newHostImage(func);
    if (device_ < 0)
        device_ = cur;
}

void SyncedMat::Impl::allocateDevice(const char* func)
{
    if (!dev_.empty())
        return;
    const int cur = getDevice();
    dev_ = newDeviceImage(cur, func);
    if (device_ < 0)
        device_ = cur;
}

// ------------------------------------------------------------------------------------------------
// Moving the device side to another device

void SyncedMat::Impl::moveToDevice(int device, Stream& s, const char* func)
{
    std::lock_guard<std::mutex> lock(mtx_);
    if (device_ == device)
        return;
    detail::DeviceGuard onTarget(device);
    const cudaStream_t h = StreamAccessor::getStream(s);
    const int sd = detail::streamDevice(h);
    if (sd >= 0 && sd != device)
        CV_Error_(Error::StsBadArg, ("%s: the stream belongs to CUDA device %d but the target device is %d",
                                     func, sd, device));
    moveLocked(device, s, h, func);
}

void SyncedMat::Impl::moveLocked(int target, Stream& s, cudaStream_t h, const char* func)
{
    const int old = device_;
    if (old == target)
        return;
    if (old < 0 || (dev_.empty() && !hostMarks_.any() && !devMarks_.any() && events_.empty()))
    {
        device_ = target;   // nothing lives on a device yet: only re-bind
        return;
    }
    const bool copy = devValid_;
    GpuMat fresh;
    Ptr<Event> copied;
    if (copy)
    {
        requireLegal(!dev_.empty(), "cannot copy the device data to another device: the device "
                                    "is valid but not allocated");
        fresh = newDeviceImage(target, func);    // OOM: nothing changed
        detail::enablePeerAccess(old, target);
        Ptr<Event> written;                      // read after the last write, on the old device
        {
            detail::DeviceGuard onOld(old);      // a lazy mark records on its own (old) stream
            written = devMarks_.recordWriter(events_);
        }
        if (written)
            s.waitEvent(*written);
        const size_t widthBytes = (size_t)size_.width * CV_ELEM_SIZE(type_);
        cudaMemcpy3DPeerParms p = {};
        p.srcPtr = make_cudaPitchedPtr(dev_.data, dev_.step, widthBytes, size_.height);
        p.srcDevice = old;
        p.dstPtr = make_cudaPitchedPtr(fresh.data, fresh.step, widthBytes, size_.height);
        p.dstDevice = target;
        p.extent = make_cudaExtent(widthBytes, size_.height, 1);
        CUDAIMAGE_CHECK(cudaMemcpy3DPeerAsync(&p, h));
        copied = makePtr<Event>(Event::DISABLE_TIMING);
        copied->record(s);
    }
    {
        // The old memory goes back to its allocator: let everything that uses it finish first.
        // Events and streams of the old device are waited for and dropped, on that device.
        detail::DeviceGuard onOld(old);
        if (copied)
            copied->waitForCompletion();
        devMarks_.waitFor(MarkSet::All, Waiter::host(), events_);
        hostMarks_.waitFor(MarkSet::All, Waiter::host(), events_);
        events_.clear();
        dev_.release();
        scratch_.release();
    }
    device_ = target;
    if (copy)   // devValid_ stays true: the data now lives in `fresh`; without a copy it was false
    {
        dev_ = fresh;
        devMarks_.setWriter(s, h, true, events_);
        detail::countPeerCopy(stats_, payloadBytes());
    }
}

// ------------------------------------------------------------------------------------------------
// Transfers

void SyncedMat::Impl::uploadLocked(Stream& s, TransferStats::Reason reason) { copyLocked(true, s, reason); }

void SyncedMat::Impl::downloadLocked(Stream& s, TransferStats::Reason reason) { copyLocked(false, s, reason); }

// One copy of the whole image from the valid side to the stale one, on `s`.
void SyncedMat::Impl::copyLocked(bool toDevice, Stream& s, TransferStats::Reason reason)
{
    const bool fromValid = toDevice ? hostValid_ : devValid_;
    const bool toValid = toDevice ? devValid_ : hostValid_;
    requireLegal(!host_.empty() && !dev_.empty(), toDevice ? "cannot upload before both sides are allocated"
                                                           : "cannot download before both sides are allocated");
    requireLegal(fromValid, toDevice ? "cannot upload when the host holds no valid data"
                                     : "cannot download when the device holds no valid data");
    requireLegal(!toValid, toDevice ? "cannot upload when the device is already valid"
                                    : "cannot download when the host is already valid");
    const cudaStream_t h = StreamAccessor::getStream(s);
    detail::SideMarks& fromMarks = toDevice ? hostMarks_ : devMarks_;
    detail::SideMarks& toMarks = toDevice ? devMarks_ : hostMarks_;
    // The destination is overwritten: after its last writer and every reader (WAW, WAR). The source
    // is read: after its last writer (RAW; on the host, a download still writing it).
    toMarks.waitFor(MarkSet::All, Waiter::onStream(s, h), events_);
    fromMarks.waitFor(MarkSet::Writer, Waiter::onStream(s, h), events_);
    uchar* dst = toDevice ? dev_.data : host_.data;
    const size_t dstStep = toDevice ? dev_.step : host_.step;
    const uchar* src = toDevice ? host_.data : dev_.data;
    const size_t srcStep = toDevice ? host_.step : dev_.step;
    CUDAIMAGE_CHECK(cudaMemcpy2DAsync(dst, dstStep, src, srcStep, (size_t)size_.width * CV_ELEM_SIZE(type_), size_.height,
                                      toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, h));
    toMarks.setWriter(s, h, true, events_);
    fromMarks.addReader(s, h, true, events_);
    (toDevice ? devValid_ : hostValid_) = true;
    if (toDevice)
        detail::countUpload(stats_, reason, payloadBytes());
    else
        detail::countDownload(stats_, reason, payloadBytes());
}

// ------------------------------------------------------------------------------------------------
// A filter within one storage (cv::cuda::applyFilter between views of one image, or in place):
// through the scratch image, inside a read-write device access of the source view.

void SyncedMat::Impl::filterWithin(const Ptr<Filter>& filter, const Rect& srcRoi, const Rect& dstRoi, Stream& s,
                                   TransferStats::Reason uploadReason, const char* func)
{
    deviceAccess(srcRoi, s, Intent::ReadWrite, func, [&](const GpuMat&) {
        const GpuMat src = dev_(srcRoi);
        GpuMat dst = dev_(dstRoi);
        filter->apply(src, scratch_, s);
        if (scratch_.size() != dst.size() || scratch_.type() != dst.type())
            CV_Error_(Error::StsUnmatchedFormats,
                      ("%s: the filter produced a %dx%d %s image but dst is %dx%d %s", func,
                       scratch_.cols, scratch_.rows, typeName(scratch_.type()).c_str(),
                       dst.cols, dst.rows, typeName(dst.type()).c_str()));
        scratch_.copyTo(dst, s);
    }, uploadReason);
}

// ------------------------------------------------------------------------------------------------
// Writes: the written side becomes the only valid one

void SyncedMat::Impl::markHostWritten(bool whole)
{
    requireLegal(!host_.empty(), "cannot mark the host written before it is allocated");
    requireLegal(whole || hostValid_ || !devValid_,
                 "cannot mark the host written through a partial view while the device holds the "
                 "only valid data (download first)");
    requireLegal(!hostMarks_.any(), "cannot mark the host written while a transfer may still read "
                                    "or write it (the host waits for it first)");
    hostValid_ = true;
    devValid_ = false;
}

void SyncedMat::Impl::markDeviceWritten(Stream& s, cudaStream_t h, bool whole)
{
    requireLegal(!dev_.empty(), "cannot mark the device written before it is allocated");
    requireLegal(whole || devValid_ || !hostValid_,
                 "cannot mark the device written through a partial view while the host holds the "
                 "only valid data (upload first)");
    devMarks_.setWriter(s, h, false, events_);
    devValid_ = true;
    hostValid_ = false;
}

// ------------------------------------------------------------------------------------------------
// Accesses

Mat SyncedMat::Impl::hostAccess(const Rect& roi, Intent intent, const char* func)
{
    std::lock_guard<std::mutex> lock(mtx_);
    const bool reads = intent != Intent::Write;
    if (reads)
        checkReadable(func);
    const bool partial = !covers(roi);
    const bool download = !hostValid_ && (reads || (partial && devValid_));
    std::optional<detail::DeviceGuard> onStorageDevice;
    if (host_.empty() || download)
        enterStorageDevice(onStorageDevice, func);
    allocateHost(func);
    if (download)
    {
        // On the stream that wrote the device: ordered after that write without an event.
        // Unknown writer (an adopted GpuMat): the legacy default stream, ordered after all
        // work on blocking streams.
        Stream s = devMarks_.writerStreamOr(Stream::Null());
        const TransferStats::Reason reason = intent == Intent::Read ? TransferStats::READ_HOST
            : intent == Intent::ReadWrite ? TransferStats::READ_WRITE_HOST
            : TransferStats::WRITE_HOST_PARTIAL;
        downloadLocked(s, reason);
    }
    // The host touches the memory as soon as we return: wait for the transfer writing it, and
    // before a write also for the transfers reading it.
    hostMarks_.waitFor(intent == Intent::Read ? MarkSet::Writer : MarkSet::All, Waiter::host(), events_);
    if (intent != Intent::Read)
        markHostWritten(!partial);
    return host_(roi);
}

GpuMat SyncedMat::Impl::deviceAccess(const Rect& roi, Stream& s, Intent intent, const char* func,
                                     const std::function<void(const GpuMat&)>& fn,
                                     TransferStats::Reason uploadReason)
{
    std::lock_guard<std::mutex> lock(mtx_);
    const bool reads = intent != Intent::Write;
    if (reads)
        checkReadable(func);
    const cudaStream_t h = StreamAccessor::getStream(s);
    deviceForAccess(s, h, func);
    allocateDevice(func);
    const bool partial = !covers(roi);
    if (!devValid_ && (reads || (partial && hostValid_)))
    {
        const TransferStats::Reason reason = uploadReason != TransferStats::REASON_COUNT ? uploadReason
            : intent == Intent::Read ? TransferStats::READ_DEVICE
            : intent == Intent::ReadWrite ? TransferStats::READ_WRITE_DEVICE
            : TransferStats::WRITE_DEVICE_PARTIAL;
        uploadLocked(s, reason);
    }
    // Read after write, write after write; a write also after every read.
    devMarks_.waitFor(intent == Intent::Read ? MarkSet::Writer : MarkSet::All, Waiter::onStream(s, h), events_);
    GpuMat view = dev_(roi);
    if (fn)
        fn(view);
    if (intent == Intent::Read)
    {
        devMarks_.addReader(s, h, false, events_);
        return view;
    }
    markDeviceWritten(s, h, !partial);
    return view;
}

void SyncedMat::Impl::prefetch(bool toDevice, Stream& s, const char* func)
{
    std::lock_guard<std::mutex> lock(mtx_);
    checkReadable(func);
    if (toDevice ? devValid_ : hostValid_)
        return;
    const cudaStream_t h = StreamAccessor::getStream(s);
    deviceForAccess(s, h, func);
    if (toDevice)
    {
        allocateDevice(func);
        uploadLocked(s, TransferStats::PREFETCH_UPLOAD);
    }
    else
    {
        allocateHost(func);
        downloadLocked(s, TransferStats::PREFETCH_DOWNLOAD);
    }
}

void SyncedMat::Impl::releaseSide(bool device, const char* func)
{
    std::lock_guard<std::mutex> lock(mtx_);
    if (device ? dev_.empty() : host_.empty())
        return;
    if (device ? (devValid_ && !hostValid_) : (hostValid_ && !devValid_))
        CV_Error_(Error::StsError, ("%s: the %s holds the only valid copy of the data; call %s first "
                                    "(or release() to drop the data)", func,
                                    device ? "device" : "host", device ? "download()" : "upload()"));
    std::optional<detail::DeviceGuard> onStorageDevice;
    enterStorageDevice(onStorageDevice, func);
    // Memory may go back to an allocator that reuses it at once: let known users finish.
    (device ? devMarks_ : hostMarks_).waitFor(MarkSet::All, Waiter::host(), events_);
    if (device)
    {
        dev_.release();
        scratch_.release();
        devValid_ = false;
    }
    else
    {
        host_.release();
        hostValid_ = false;
    }
}
