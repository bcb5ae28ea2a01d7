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
#include "precomp.hpp"
#include "device_check.hpp"
#include "opencv2/core/check.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"

#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

using namespace cv;
using namespace cv::cuda;

namespace {

enum class Intent { Read, Write, ReadWrite };

// One stream that touched a side, and the event that marks how far.
struct StreamMark
{
    StreamMark(const Stream& s, cudaStream_t h) : stream(s), handle(h) {}
    Stream stream;          // a reference-counted copy: keeps the caller's stream alive
    cudaStream_t handle;    // identity of the stream (two Stream objects may wrap one handle)
    Ptr<Event> event;       // created on first record
    bool recorded = false;  // the event marks the end of this mark's work: do not record again
};

struct SideMarks
{
    std::optional<StreamMark> writer;
    std::vector<StreamMark> readers;

    bool any() const { return writer.has_value() || !readers.empty(); }
};

String typeName(int type) { return typeToString(type); }

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

// ------------------------------------------------------------------------------------------------
// TransferStats

TransferStats::TransferStats()
    : uploads(0), downloads(0), uploadBytes(0), downloadBytes(0), peerCopies(0), peerCopyBytes(0)
{
    for (int i = 0; i < REASON_COUNT; ++i)
    {
        counts[i] = 0;
        bytes[i] = 0;
    }
}

int TransferStats::count(int reason) const
{
    CV_CheckGE(reason, 0, "TransferStats::count: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::count: reason must be a TransferStats::Reason");
    return counts[reason];
}

size_t TransferStats::bytesFor(int reason) const
{
    CV_CheckGE(reason, 0, "TransferStats::bytesFor: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::bytesFor: reason must be a TransferStats::Reason");
    return bytes[reason];
}

String TransferStats::reasonName(int reason)
{
    static const char* const names[REASON_COUNT] = {
        "READ_HOST", "READ_WRITE_HOST", "WRITE_HOST_PARTIAL", "PREFETCH_DOWNLOAD",
        "READ_DEVICE", "READ_WRITE_DEVICE", "WRITE_DEVICE_PARTIAL", "PREFETCH_UPLOAD", "PEER_COPY"};
    CV_CheckGE(reason, 0, "TransferStats::reasonName: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::reasonName: reason must be a TransferStats::Reason");
    return names[reason];
}

// ------------------------------------------------------------------------------------------------
// The shared storage

class cv::cuda::SyncedMat::Impl
{
public:
    Impl(Size size, int type) : size_(size), type_(type) {}

    const Size size_;
    const int type_;

    // Everything below is guarded by mtx_.
    mutable std::mutex mtx_;
    int device_ = -1;
    int policy_ = SyncedMat::CROSS_DEVICE_REFUSE;
    Mat host_;              // whole storage, page-locked; empty until the first host access
    GpuMat dev_;            // whole storage; empty until the first device access
    bool hostValid_ = false;
    bool devValid_ = false;
    SideMarks hostMarks_, devMarks_;
    TransferStats stats_;
    GpuMat scratch_;        // in-place filtering
    std::vector<Ptr<Event> > events_;   // recycled events

    size_t payloadBytes() const { return (size_t)size_.width * size_.height * CV_ELEM_SIZE(type_); }
    bool holdsData() const { return hostValid_ || devValid_; }

    // --- checks (caller holds mtx_) ---

    void checkReadable(const char* func) const
    {
        if (!holdsData())
            CV_Error_(Error::StsError, ("%s: the SyncedMat (%dx%d %s) is uninitialised: no side holds "
                                        "data yet; write it first (writeHost() or writeDevice())",
                                        func, size_.width, size_.height, typeName(type_).c_str()));
    }

    bool foreign(int cur) const { return device_ >= 0 && cur != device_; }

    void refuseForeign(int cur, const char* func) const
    {
        CV_Error_(Error::StsBadArg, ("%s: this SyncedMat lives on CUDA device %d but the calling "
                                     "thread's current device is %d; call cv::cuda::setDevice(%d) first, or "
                                     "allow moves: setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE)",
                                     func, device_, cur, device_));
    }

    // For a host access or a release that needs CUDA: refuses a thread on another device than the
    // storage's, or with CROSS_DEVICE_MIGRATE runs the rest on the storage's device (set into guard).
    void enterStorageDevice(std::optional<detail::DeviceGuard>& guard, const char* func) const
    {
        const int cur = getDevice();
        if (!foreign(cur))
            return;
        if (policy_ != SyncedMat::CROSS_DEVICE_MIGRATE)
            refuseForeign(cur, func);
        guard.emplace(device_);
    }

    // The stream must belong to `expected`, the device the access runs on.
    void checkStream(cudaStream_t h, int expected, const char* func) const
    {
        const int d = detail::streamDevice(h);   // -1: a default stream, which follows the current device
        if (d >= 0 && d != expected)
            CV_Error_(Error::StsBadArg, ("%s: the stream belongs to CUDA device %d but this SyncedMat "
                                         "%s device %d", func, d, foreign(expected) ? "would move to the current" : "lives on",
                                         expected));
    }

    // For an access with a stream: the current device, after moving the device side there when the
    // storage is on another device and the policy allows it (refused otherwise).
    int deviceForAccess(Stream& s, cudaStream_t h, const char* func)
    {
        const int cur = getDevice();
        if (foreign(cur) && policy_ != SyncedMat::CROSS_DEVICE_MIGRATE)
            refuseForeign(cur, func);
        checkStream(h, cur, func);
        if (foreign(cur))
            moveLocked(cur, s, h, func);
        return cur;
    }

    // --- allocation: into a temporary, committed only on success (OOM leaves the object intact) ---

    void allocateHost(const char* func)
    {
        if (!host_.empty())
            return;
        const int cur = getDevice();
        MatAllocator* pinned = HostMem::getAllocator(HostMem::PAGE_LOCKED);
        Mat m;
        m.allocator = pinned;
        String why;
        try
        {
            m.create(size_, type_);
            // Mat::create silently falls back to ordinary memory when a custom allocator throws
            // (e.g. the locked-memory limit of a container): refuse that, transfers would not be
            // asynchronous.
            if (!m.u || m.u->currAllocator != pinned)
                why = "cudaHostAlloc failed and OpenCV fell back to pageable memory";
        }
        catch (const cv::Exception& e)
        {
            why = e.err;
        }
        if (!why.empty())
        {
            m.release();
            (void)cudaGetLastError();
            CV_Error_(Error::StsNoMem, ("%s: cannot allocate %zu bytes of page-locked host memory for a "
                                        "%dx%d %s image: %s", func, payloadBytes(), size_.width,
                                        size_.height, typeName(type_).c_str(), why.c_str()));
        }
        host_ = m;
        if (device_ < 0)
            device_ = cur;
    }

    // A device image of the storage's size and type on the current device `cur`.
    GpuMat newDeviceImage(int cur, const char* func) const
    {
        GpuMat m;
        try
        {
            m.create(size_, type_);
        }
        catch (const cv::Exception& e)
        {
            (void)cudaGetLastError();   // do not leave the error for the next launch check
            CV_Error_(Error::StsNoMem, ("%s: cannot allocate %zu bytes of device memory on device %d for "
                                        "a %dx%d %s image: %s", func, payloadBytes(), cur, size_.width,
                                        size_.height, typeName(type_).c_str(), e.err.c_str()));
        }
        return m;
    }

    void allocateDevice(const char* func)
    {
        if (!dev_.empty())
            return;
        const int cur = getDevice();
        dev_ = newDeviceImage(cur, func);
        if (device_ < 0)
            device_ = cur;
    }

    // --- marks and events ---

    Ptr<Event> takeEvent()
    {
        if (!events_.empty())
        {
            Ptr<Event> e = events_.back();
            events_.pop_back();
            return e;
        }
        return makePtr<Event>(Event::DISABLE_TIMING);
    }

    void recycle(StreamMark& m)
    {
        if (m.event)
            events_.push_back(m.event);
        m.event.release();
    }

    void record(StreamMark& m)
    {
        if (m.recorded)
            return;
        if (!m.event)
            m.event = takeEvent();
        m.event->record(m.stream);
        m.recorded = true;
    }

    // Stream s (handle h) waits for the work of m; nothing to do on the same stream.
    void streamWait(StreamMark& m, Stream& s, cudaStream_t h)
    {
        if (m.handle == h)
            return;
        record(m);
        s.waitEvent(*m.event);
    }

    void hostWait(StreamMark& m)
    {
        record(m);
        m.event->waitForCompletion();
    }

    void setWriter(SideMarks& side, Stream& s, cudaStream_t h, bool eager)
    {
        for (StreamMark& r : side.readers)
            recycle(r);
        side.readers.clear();
        Ptr<Event> ev;
        if (side.writer)
        {
            ev = side.writer->event;
            side.writer.reset();
        }
        side.writer.emplace(s, h);
        side.writer->event = ev;
        side.writer->recorded = eager;
        if (eager)
        {
            if (!side.writer->event)
                side.writer->event = takeEvent();
            side.writer->event->record(s);
        }
    }

    void addReader(SideMarks& side, Stream& s, cudaStream_t h, bool eager)
    {
        for (StreamMark& r : side.readers)
        {
            if (r.handle != h)
                continue;
            if (!eager)
                r.recorded = false;         // the caller's work follows: lazy from now on
            else if (r.recorded)
                r.event->record(s);          // a later transfer on the same stream
            // (lazy + eager transfer: the lazy record, made later, covers the transfer too)
            return;
        }
        side.readers.emplace_back(s, h);
        StreamMark& r = side.readers.back();
        r.recorded = eager;
        if (eager)
        {
            r.event = takeEvent();
            r.event->record(s);
        }
    }

    void clearMarks(SideMarks& side)
    {
        if (side.writer)
        {
            recycle(*side.writer);
            side.writer.reset();
        }
        for (StreamMark& r : side.readers)
            recycle(r);
        side.readers.clear();
    }

    // --- moving the device side to another device (caller holds mtx_; current device == target;
    //     h is stream s, of the target device) ---

    void moveLocked(int target, Stream& s, cudaStream_t h, const char* func)
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
                    record(*devMarks_.writer);
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
            for (SideMarks* side : { &devMarks_, &hostMarks_ })
            {
                if (side->writer)
                    hostWait(*side->writer);
                for (StreamMark& r : side->readers)
                    hostWait(r);
                clearMarks(*side);
            }
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
            setWriter(devMarks_, s, h, true);
            stats_.counts[TransferStats::PEER_COPY] += 1;
            stats_.bytes[TransferStats::PEER_COPY] += payloadBytes();
            stats_.peerCopies += 1;
            stats_.peerCopyBytes += payloadBytes();
        }
    }

    void countTransfer(TransferStats::Reason reason, bool upload)
    {
        const size_t b = payloadBytes();
        stats_.counts[reason] += 1;
        stats_.bytes[reason] += b;
        if (upload)
        {
            stats_.uploads += 1;
            stats_.uploadBytes += b;
        }
        else
        {
            stats_.downloads += 1;
            stats_.downloadBytes += b;
        }
    }

    // --- transfers (caller holds mtx_, both sides allocated) ---

    void uploadLocked(Stream& s, TransferStats::Reason reason)
    {
        CV_DbgAssert(hostValid_ && !devValid_ && !host_.empty() && !dev_.empty());
        const cudaStream_t h = StreamAccessor::getStream(s);
        // Device memory is overwritten: after its last writer and every reader (WAW, WAR).
        if (devMarks_.writer)
            streamWait(*devMarks_.writer, s, h);
        for (StreamMark& r : devMarks_.readers)
            streamWait(r, s, h);
        // Host memory is read: after a download still writing it.
        if (hostMarks_.writer)
            streamWait(*hostMarks_.writer, s, h);
        CUDAIMAGE_CHECK(cudaMemcpy2DAsync(dev_.data, dev_.step, host_.data, host_.step,
                                       (size_t)size_.width * CV_ELEM_SIZE(type_), size_.height,
                                       cudaMemcpyHostToDevice, h));
        setWriter(devMarks_, s, h, true);
        addReader(hostMarks_, s, h, true);
        devValid_ = true;
        countTransfer(reason, true);
    }

    void downloadLocked(Stream& s, TransferStats::Reason reason)
    {
        CV_DbgAssert(devValid_ && !hostValid_ && !host_.empty() && !dev_.empty());
        const cudaStream_t h = StreamAccessor::getStream(s);
        // Device memory is read: after its last writer (RAW).
        if (devMarks_.writer)
            streamWait(*devMarks_.writer, s, h);
        // Host memory is overwritten: after uploads still reading it and a download still writing it.
        for (StreamMark& r : hostMarks_.readers)
            streamWait(r, s, h);
        if (hostMarks_.writer)
            streamWait(*hostMarks_.writer, s, h);
        CUDAIMAGE_CHECK(cudaMemcpy2DAsync(host_.data, host_.step, dev_.data, dev_.step,
                                       (size_t)size_.width * CV_ELEM_SIZE(type_), size_.height,
                                       cudaMemcpyDeviceToHost, h));
        setWriter(hostMarks_, s, h, true);
        addReader(devMarks_, s, h, true);
        hostValid_ = true;
        countTransfer(reason, false);
    }

    // --- accesses ---

    Mat hostAccess(const Rect& roi, Intent intent, const char* func)
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
        // The host touches the memory as soon as we return: wait for transfers using it.
        if (hostMarks_.writer)
        {
            hostWait(*hostMarks_.writer);
            recycle(*hostMarks_.writer);
            hostMarks_.writer.reset();
        }
        if (intent != Intent::Read)
        {
            for (StreamMark& r : hostMarks_.readers)
                hostWait(r);
            clearMarks(hostMarks_);
            hostValid_ = true;
            devValid_ = false;
        }
        return host_(roi);
    }

    // Device access; with fn, fn(view) runs under the lock before a write is committed, and a
    // throwing fn leaves the state as it was before the write (used by applyFilter).
    GpuMat deviceAccess(const Rect& roi, Stream& s, Intent intent, const char* func,
                        const std::function<void(const GpuMat&)>& fn = nullptr,
                        TransferStats::Reason uploadReason = TransferStats::REASON_COUNT)
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
        if (devMarks_.writer)
            streamWait(*devMarks_.writer, s, h);        // read after write / write after write
        GpuMat view = dev_(roi);
        if (intent == Intent::Read)
        {
            if (fn)
                fn(view);
            addReader(devMarks_, s, h, false);
            return view;
        }
        for (StreamMark& r : devMarks_.readers)
            streamWait(r, s, h);                         // write after read
        if (fn)
            fn(view);
        setWriter(devMarks_, s, h, false);
        devValid_ = true;
        hostValid_ = false;
        return view;
    }

    void prefetch(bool toDevice, Stream& s, const char* func)
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

    void releaseSide(bool device, const char* func)
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
        if (device)
        {
            // Memory may go back to an allocator that reuses it at once: let known users finish.
            if (devMarks_.writer)
                hostWait(*devMarks_.writer);
            for (StreamMark& r : devMarks_.readers)
                hostWait(r);
            clearMarks(devMarks_);
            dev_.release();
            scratch_.release();
            devValid_ = false;
        }
        else
        {
            if (hostMarks_.writer)
                hostWait(*hostMarks_.writer);
            for (StreamMark& r : hostMarks_.readers)
                hostWait(r);
            clearMarks(hostMarks_);
            host_.release();
            hostValid_ = false;
        }
    }

    // Filter src -> dst inside this storage (the same view or two views) through scratch_.
    // The read of src counts as uploadReason (READ_DEVICE for two views, READ_WRITE_DEVICE in place).
    void filterWithin(const Ptr<Filter>& filter, const Rect& srcRoi, const Rect& dstRoi, Stream& s,
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
};

// ------------------------------------------------------------------------------------------------
// SyncedMat

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
    Ptr<Impl> impl = makePtr<Impl>(m.size(), m.type());
    impl->allocateHost("SyncedMat(Mat)");
    m.copyTo(impl->host_);
    impl->hostValid_ = true;
    impl_ = impl;
    roi_ = Rect(Point(), m.size());
}

SyncedMat::SyncedMat(const GpuMat& m, Stream& producer)
{
    if (m.empty())
        return;
    Ptr<Impl> impl = makePtr<Impl>(m.size(), m.type());
    const int owner = detail::memoryDevice(m.data);   // not the current device: the memory's own
    impl->device_ = owner >= 0 ? owner : getDevice();
    impl->dev_ = m;
    impl->devValid_ = true;
    impl->devMarks_.writer.emplace(producer, StreamAccessor::getStream(producer));
    impl_ = impl;
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
    if (impl_ && rows == roi_.height && cols == roi_.width && type == impl_->type_)
        return;
    if (isSubmatrix())
        CV_Error_(Error::StsBadArg, ("SyncedMat::create: this is a %dx%d %s ROI view of a %dx%d storage; "
                                     "creating it as %dx%d %s would detach it from its parent",
                                     roi_.width, roi_.height, typeName(impl_->type_).c_str(),
                                     impl_->size_.width, impl_->size_.height, cols, rows,
                                     typeName(type).c_str()));
    if (rows == 0 || cols == 0)
    {
        release();
        return;
    }
    const int policy = crossDevicePolicy();   // a new storage keeps this handle's policy
    impl_ = makePtr<Impl>(Size(cols, rows), type);
    impl_->policy_ = policy;
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
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    impl_->policy_ = policy;
}

int SyncedMat::crossDevicePolicy() const
{
    if (!impl_)
        return CROSS_DEVICE_REFUSE;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return impl_->policy_;
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
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    if (impl_->device_ == device)
        return;
    detail::DeviceGuard onTarget(device);
    const cudaStream_t h = StreamAccessor::getStream(stream);
    const int sd = detail::streamDevice(h);
    if (sd >= 0 && sd != device)
        CV_Error_(Error::StsBadArg, ("%s: the stream belongs to CUDA device %d but the target device is %d",
                                     func, sd, device));
    impl_->moveLocked(device, stream, h, func);
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
int SyncedMat::type() const { return impl_ ? impl_->type_ : 0; }
int SyncedMat::depth() const { return CV_MAT_DEPTH(type()); }
int SyncedMat::channels() const { return CV_MAT_CN(type()); }
size_t SyncedMat::elemSize() const { return impl_ ? CV_ELEM_SIZE(impl_->type_) : 0; }
Rect SyncedMat::roi() const { return roi_; }
Size SyncedMat::storageSize() const { return impl_ ? impl_->size_ : Size(); }
bool SyncedMat::isSubmatrix() const { return impl_ && roi_ != Rect(Point(), impl_->size_); }

bool SyncedMat::sharesStorageWith(const SyncedMat& other) const
{
    return impl_ && impl_ == other.impl_;
}

int SyncedMat::state() const
{
    if (!impl_)
        return UNINITIALIZED;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return (impl_->hostValid_ ? HOST_VALID : 0) | (impl_->devValid_ ? DEVICE_VALID : 0);
}

bool SyncedMat::isHostValid() const { return (state() & HOST_VALID) != 0; }
bool SyncedMat::isDeviceValid() const { return (state() & DEVICE_VALID) != 0; }

bool SyncedMat::isHostAllocated() const
{
    if (!impl_)
        return false;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return !impl_->host_.empty();
}

bool SyncedMat::isDeviceAllocated() const
{
    if (!impl_)
        return false;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return !impl_->dev_.empty();
}

int SyncedMat::deviceId() const
{
    if (!impl_)
        return -1;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return impl_->device_;
}

TransferStats SyncedMat::stats() const
{
    if (!impl_)
        return TransferStats();
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    return impl_->stats_;
}

void SyncedMat::resetStats()
{
    if (!impl_)
        return;
    std::lock_guard<std::mutex> lock(impl_->mtx_);
    impl_->stats_ = TransferStats();
}

// ------------------------------------------------------------------------------------------------
// Filters

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
