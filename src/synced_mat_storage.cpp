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
// Invariants (checked by tests, asserted in debug):
//  - holding data => hostValid_ || devValid_;
//  - hostValid_ => host_ allocated; devValid_ => dev_ allocated;
//  - the device readers are the streams that read the device since the last device write;
//    the host writer is the last download (eager), the host readers the uploads since;
//  - every event and every device-side stream belongs to device_ (a move to another device waits
//    for all of them, then drops them: cudaEventRecord needs an event of the stream's device).
//
// This file: the transitions (accesses, transfers, prefetch, release, moves between devices) and
// the device checks they make. Elsewhere: the storage's members (synced_mat_storage.hpp), its
// allocation (synced_mat_allocation.cpp), the marks (synced_mat_marks.cpp), the public handle
// (synced_mat.cpp), applyFilter (apply_filter.cpp).
#include "precomp.hpp"
#include "synced_mat_storage.hpp"
#include "transfer_stats.hpp"

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::Intent;
using cv::cuda::detail::MarkSet;
using cv::cuda::detail::Waiter;
using cv::cuda::detail::waitFor;
using cv::cuda::detail::typeName;

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
// Moving the device side to another device

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
        CV_DbgAssert(!dev_.empty());
        fresh = newDeviceImage(target, func);    // OOM: nothing changed
        detail::enablePeerAccess(old, target);
        if (devMarks_.writer)                    // read after the last write, on the old device
        {
            {
                detail::DeviceGuard onOld(old);  // a lazy mark records on its own (old) stream
                detail::record(*devMarks_.writer, events_);
            }
            s.waitEvent(*devMarks_.writer->event);
        }
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
        waitFor(devMarks_, MarkSet::All, Waiter::host(), events_);
        waitFor(hostMarks_, MarkSet::All, Waiter::host(), events_);
        events_.clear();
        dev_.release();
        scratch_.release();
    }
    device_ = target;
    devValid_ = false;
    if (copy)
    {
        dev_ = fresh;
        devValid_ = true;
        devMarks_.setWriter(s, h, true, events_);
        detail::countPeerCopy(stats_, payloadBytes());
    }
}

// ------------------------------------------------------------------------------------------------
// Transfers

void SyncedMat::Impl::uploadLocked(Stream& s, TransferStats::Reason reason)
{
    CV_DbgAssert(hostValid_ && !devValid_ && !host_.empty() && !dev_.empty());
    const cudaStream_t h = StreamAccessor::getStream(s);
    // Device memory is overwritten: after its last writer and every reader (WAW, WAR).
    waitFor(devMarks_, MarkSet::All, Waiter::onStream(s, h), events_);
    // Host memory is read: after a download still writing it.
    waitFor(hostMarks_, MarkSet::Writer, Waiter::onStream(s, h), events_);
    CUDAIMAGE_CHECK(cudaMemcpy2DAsync(dev_.data, dev_.step, host_.data, host_.step,
                                   (size_t)size_.width * CV_ELEM_SIZE(type_), size_.height,
                                   cudaMemcpyHostToDevice, h));
    devMarks_.setWriter(s, h, true, events_);
    hostMarks_.addReader(s, h, true, events_);
    devValid_ = true;
    detail::countUpload(stats_, reason, payloadBytes());
}

void SyncedMat::Impl::downloadLocked(Stream& s, TransferStats::Reason reason)
{
    CV_DbgAssert(devValid_ && !hostValid_ && !host_.empty() && !dev_.empty());
    const cudaStream_t h = StreamAccessor::getStream(s);
    // Device memory is read: after its last writer (RAW).
    waitFor(devMarks_, MarkSet::Writer, Waiter::onStream(s, h), events_);
    // Host memory is overwritten: after a download still writing it and uploads still reading it.
    waitFor(hostMarks_, MarkSet::All, Waiter::onStream(s, h), events_);
    CUDAIMAGE_CHECK(cudaMemcpy2DAsync(host_.data, host_.step, dev_.data, dev_.step,
                                   (size_t)size_.width * CV_ELEM_SIZE(type_), size_.height,
                                   cudaMemcpyDeviceToHost, h));
    hostMarks_.setWriter(s, h, true, events_);
    devMarks_.addReader(s, h, true, events_);
    hostValid_ = true;
    detail::countDownload(stats_, reason, payloadBytes());
}

// ------------------------------------------------------------------------------------------------
// Accesses

Mat SyncedMat::Impl::hostAccess(const Rect& roi, Intent intent, const char* func)
{
    std::lock_guard<std::mutex> lock(mtx_);
    const bool reads = intent != Intent::Write;
    if (reads)
        checkReadable(func);
    const bool partial = roi != Rect(Point(), size_);
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
        Stream s = devMarks_.writer ? devMarks_.writer->stream : Stream::Null();
        const TransferStats::Reason reason = intent == Intent::Read ? TransferStats::READ_HOST
            : intent == Intent::ReadWrite ? TransferStats::READ_WRITE_HOST
            : TransferStats::WRITE_HOST_PARTIAL;
        downloadLocked(s, reason);
    }
    // The host touches the memory as soon as we return: wait for the transfer writing it, and
    // before a write also for the transfers reading it.
    waitFor(hostMarks_, intent == Intent::Read ? MarkSet::Writer : MarkSet::All, Waiter::host(), events_);
    if (intent != Intent::Read)
    {
        hostValid_ = true;
        devValid_ = false;
    }
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
    const bool partial = roi != Rect(Point(), size_);
    if (!devValid_ && (reads || (partial && hostValid_)))
    {
        const TransferStats::Reason reason = uploadReason != TransferStats::REASON_COUNT ? uploadReason
            : intent == Intent::Read ? TransferStats::READ_DEVICE
            : intent == Intent::ReadWrite ? TransferStats::READ_WRITE_DEVICE
            : TransferStats::WRITE_DEVICE_PARTIAL;
        uploadLocked(s, reason);
    }
    // Read after write, write after write; a write also after every read.
    waitFor(devMarks_, intent == Intent::Read ? MarkSet::Writer : MarkSet::All, Waiter::onStream(s, h), events_);
    GpuMat view = dev_(roi);
    if (fn)
        fn(view);
    if (intent == Intent::Read)
    {
        devMarks_.addReader(s, h, false, events_);
        return view;
    }
    devMarks_.setWriter(s, h, false, events_);
    devValid_ = true;
    hostValid_ = false;
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
    waitFor(device ? devMarks_ : hostMarks_, MarkSet::All, Waiter::host(), events_);
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
