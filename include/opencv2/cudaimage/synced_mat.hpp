#ifndef OPENCV_CUDAIMAGE_SYNCED_MAT_HPP
#define OPENCV_CUDAIMAGE_SYNCED_MAT_HPP

#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/cudafilters.hpp"

namespace cv { namespace cuda {

//! @addtogroup cudaimage_syncedmat
//! @{

/** @brief Transfer counters of a SyncedMat storage: how many copies went each way, how many bytes,
and which access caused each one.

Bytes are payload bytes (rows x cols x elemSize() of the whole storage), not pitched bytes.
The counters belong to the shared storage, so a parent and its ROI views see the same numbers.
 */
struct CV_EXPORTS_W_SIMPLE TransferStats
{
    /** @brief Why a transfer happened. Host-side reasons (device -> host copies, "downloads") come
    first, device-side reasons (host -> device copies, "uploads") after, then the copy from one
    device to another. */
    enum Reason
    {
        READ_HOST = 0,          //!< download by SyncedMat::readHost()
        READ_WRITE_HOST,        //!< download by SyncedMat::readWriteHost()
        WRITE_HOST_PARTIAL,     //!< download by SyncedMat::writeHost() on a ROI view: the rest of the storage must stay valid
        PREFETCH_DOWNLOAD,      //!< download by SyncedMat::download()
        READ_DEVICE,            //!< upload by SyncedMat::readDevice()
        READ_WRITE_DEVICE,      //!< upload by SyncedMat::readWriteDevice()
        WRITE_DEVICE_PARTIAL,   //!< upload by SyncedMat::writeDevice() on a ROI view: the rest of the storage must stay valid
        PREFETCH_UPLOAD,        //!< upload by SyncedMat::upload()
        PEER_COPY,              //!< device -> device copy when the device side moves to another device: SyncedMat::moveToDevice(), or a device access from another device with SyncedMat::CROSS_DEVICE_MIGRATE
        REASON_COUNT
    };

    TransferStats();

    //! @brief Number of host -> device copies.
    CV_PROP_RW int uploads;
    //! @brief Number of device -> host copies.
    CV_PROP_RW int downloads;
    //! @brief Bytes copied host -> device.
    CV_PROP_RW size_t uploadBytes;
    //! @brief Bytes copied device -> host.
    CV_PROP_RW size_t downloadBytes;
    //! @brief Number of device -> device copies (reason PEER_COPY): neither uploads nor downloads.
    CV_PROP_RW int peerCopies;
    //! @brief Bytes copied device -> device.
    CV_PROP_RW size_t peerCopyBytes;

    //! Transfers per reason, indexed by TransferStats::Reason.
    int counts[REASON_COUNT];
    //! Bytes per reason, indexed by TransferStats::Reason.
    size_t bytes[REASON_COUNT];

    /** @brief Number of transfers caused by @p reason (a TransferStats::Reason).
    @param reason Reason; an out-of-range value throws cv::Exception (StsError, from CV_Check). */
    CV_WRAP int count(int reason) const;
    /** @brief Bytes moved by transfers caused by @p reason (a TransferStats::Reason).
    @param reason Reason; an out-of-range value throws cv::Exception (StsError, from CV_Check). */
    CV_WRAP size_t bytesFor(int reason) const;
    /** @brief The name of a reason, e.g. "READ_DEVICE" (for logs and test messages). */
    CV_WRAP static String reasonName(int reason);
};

/** @brief A host (page-locked) image and a device image of the same size and type, kept in step.

A SyncedMat holds up to two copies of one image: a host cv::Mat in page-locked (pinned) memory and a
device cv::cuda::GpuMat, plus which of them is valid. You never copy between them yourself: you ask
for a *view* of one side with an *intent* (read, write, read-write) and the object copies only when
the side you read is stale. This is the dirty-flag scheme of ITK's `itk::CudaImage` and Halide's
`Buffer`, with streams: copies are asynchronous on the caller's stream and ordered with CUDA events.

@par States
- empty: no size, no type (default constructor, release()).
- UNINITIALIZED: size and type are set but neither side holds data yet (SyncedMat(Size, int),
  create()). Any read (readHost(), readDevice(), the read-write accesses, upload(), download())
  throws; the first write access (writeHost(), writeDevice()) makes its side valid.
- HOST_VALID, DEVICE_VALID, BOTH_VALID: once it holds data, at least one side is valid, always.

@par Intents and costs
| access              | copies when                    | then valid   |
|---------------------|--------------------------------|--------------|
| readHost()          | host stale: device -> host     | both         |
| writeHost()         | never (discard) [1]            | host only    |
| readWriteHost()     | host stale: device -> host     | host only    |
| readDevice(s)       | device stale: host -> device   | both         |
| writeDevice(s)      | never (discard) [1]            | device only  |
| readWriteDevice(s)  | device stale: host -> device   | device only  |
| upload(s)           | device stale: host -> device   | both         |
| download(s)         | host stale: device -> host     | both         |

[1] except on a ROI view that does not cover the whole storage: validity is tracked per storage, so
the rest of the image must be made valid on the written side first; that transfers the whole
storage (reasons TransferStats::WRITE_HOST_PARTIAL / WRITE_DEVICE_PARTIAL).

@par Storage, copies and ROI views
SyncedMat is a shared handle, like cv::Mat: copying it copies a reference; both handles see the
same data, state and counters. A ROI view, SyncedMat(parent, roi), shares the storage and the state
of its parent: a write through the view makes the parent's other side stale too. State is tracked
per whole storage, so a host write through a ROI view followed by a device read copies the *whole*
storage (rows x cols x elemSize bytes of the parent), not only the ROI.

@par Memory
Each side is allocated at its first access (lazily): a SyncedMat used only on the device never
allocates pinned memory. The CUDA device is recorded when the first memory of either side is
allocated (deviceId(); -1 before), and every later access that calls CUDA must come from a thread
whose current device (cv::cuda::getDevice()) is that device and pass a stream of that device;
otherwise it throws cv::Exception and changes nothing, unless the storage's policy allows a move
(see Several devices). The host side is always page-locked: when
page-locked memory cannot be had (out of memory, a container's locked-memory limit), the access throws
instead of silently using pageable memory as cv::Mat would.

@par Streams and events
Transfers run asynchronously on the caller's stream (page-locked memory makes them truly
asynchronous). For each side the object remembers the stream that last wrote it and the streams
that read it since, and orders accesses on other streams with cv::cuda::Event and
Stream::waitEvent, never by blocking the host, except host accesses (which must return usable
memory):
- device read on stream B after a device write on stream A: B waits for A (read after write);
- device write on B after device reads or downloads on A1..An: B waits for all of them (write after
  read) and for the last writer (write after write);
- concurrent device readers on different streams do not wait for each other;
- host read after an asynchronous download: blocks until the download has finished;
- host write after an asynchronous upload that still reads host memory: blocks until it finished.
Events for caller work are recorded lazily, at the first access from a different stream (or a host
wait), on the stream the caller used: they cover the work the caller enqueued on that stream after
getting the view, and later waiters reuse that point. So the contract is: **enqueue all work that uses a view before the next access to the object
from another stream or thread**, and finish host writes through a host view before the next access.

Stream::Null() is allowed everywhere. It is CUDA's legacy default stream, which implicitly
synchronises with every other blocking stream of the device: correct, but it serialises work (use
your own cv::cuda::Stream to overlap). A host access that needs a download enqueues it on the stream
that last wrote the device (for an adopted GpuMat: the producer stream given to the constructor), so
it is ordered after that work without an event, then blocks until the download is done.

@par Several devices
The device side lives on one device, deviceId(). What an access from a thread whose current device
is another one does is the storage's CrossDevicePolicy (setCrossDevicePolicy(), shared by every
handle and view of the storage):
- CROSS_DEVICE_REFUSE (the default): it throws cv::Exception naming both devices and changes
  nothing; call cv::cuda::setDevice(deviceId()) first, or moveToDevice().
- CROSS_DEVICE_MIGRATE: a device access (the read/write/read-write device views, upload(),
  download()) first moves the device side to the caller's current device, as moveToDevice() does
  (the stream must belong to that device); a host access or a release from another device runs its
  transfers and waits on the storage's device and moves nothing.

A move never leaves two device copies: device data that is valid is copied peer to peer (reason
TransferStats::PEER_COPY; NVLink or PCIe peer-to-peer where cudaDeviceCanAccessPeer allows, which
the move enables, otherwise staged through host memory by CUDA), the old device's memory is freed,
and a device side that holds no valid data is simply dropped (the next device read uploads from the
host on the new device). The host memory is page-locked for every device (unified addressing), so
it stays where it is. A move waits on the host for the copy and for the work this object knows of
on the old device (it frees that memory), so it is a synchronisation point: keep images on one
device in steady state and move them rarely.

@par Thread safety
Every state change (and the CUDA calls that go with it) happens under one mutex per storage, so
accesses from several threads are serialised and each sees a consistent state; concurrent device
readers on different streams are safe. Not safe, and not detectable: writing data through a view
(host or device) while another thread accesses the same storage, or keeps using a view of the
other side. Host accesses block while holding the mutex when they wait for a transfer. applyFilter()
enqueues the filter while holding the destination's mutex, so filters applied to one SyncedMat from
several threads are ordered correctly. A SyncedMat handle itself (which storage and rectangle it
refers to: create(), release(), assignment) is not thread-safe, like cv::Mat.

@par Errors
Every misuse (empty object, uninitialised read, bad ROI, bad size or type, wrong device or stream,
releasing the only valid side, out of memory) throws cv::Exception with a message that names what
was wrong, before anything is changed: the object stays valid with its data intact. Checks that need
no GPU (empty, uninitialised, ROI, size, type) come before any CUDA call.

@sa cv::cuda::HostMem, cv::cuda::GpuMat, cv::cuda::Event
 */
class CV_EXPORTS_W SyncedMat
{
public:
    //! @brief Which sides hold valid data (bit flags).
    enum State
    {
        UNINITIALIZED = 0,  //!< size and type set, no data yet (also: empty())
        HOST_VALID    = 1,  //!< only the host side is valid
        DEVICE_VALID  = 2,  //!< only the device side is valid
        BOTH_VALID    = 3   //!< both sides hold the same data
    };

    //! @brief An empty SyncedMat (no size, no type).
    CV_WRAP SyncedMat();

    /** @brief A SyncedMat of the given size and type, UNINITIALIZED: nothing is allocated, copied
    or valid; the first write access allocates its side and makes it valid. Needs no GPU.
    @param rows Number of rows (>= 0; 0 gives an empty object).
    @param cols Number of columns (>= 0; 0 gives an empty object).
    @param type Any OpenCV type, e.g. CV_8UC3.
     */
    CV_WRAP SyncedMat(int rows, int cols, int type);
    //! @overload
    CV_WRAP SyncedMat(Size size, int type);

    /** @brief Copies a host image into newly allocated page-locked memory: HOST_VALID.
    @param m A 2-D Mat (any type, any step; an empty Mat gives an empty SyncedMat). Nothing keeps a
    reference to @p m afterwards. Synchronous host copy; no device memory is allocated.
     */
    CV_WRAP explicit SyncedMat(const Mat& m);

    /** @brief A view of a rectangle of @p parent sharing its storage, state and counters.
    @param parent A non-empty SyncedMat (possibly itself a view).
    @param roi Rectangle in @p parent's coordinates, non-empty and inside it; otherwise
    cv::Exception (StsOutOfRange). Needs no GPU.
     */
    CV_WRAP SyncedMat(const SyncedMat& parent, Rect roi);

    /** @brief Adopts a device image without copying: DEVICE_VALID, the device side *is* @p m (shared
    memory, like a Mat header). Writes made later through @p m itself bypass the state tracking:
    use writeDevice() instead. The device that holds @p m's memory is recorded (the current device,
    cv::cuda::getDevice(), for memory every device can use, such as managed memory).
    @param m Device image (any type, any step; an empty GpuMat gives an empty SyncedMat).
    @param producer Stream on which the work that filled @p m was enqueued: later accesses from
    other streams wait for it. With Stream::Null() (legacy default stream), work on other blocking
    streams is ordered by CUDA itself; for work on non-blocking streams pass the stream.
     */
    CV_WRAP SyncedMat(const GpuMat& m, Stream& producer);
    /** @overload Same with the legacy default stream as producer (two overloads rather than a
    default argument, so that Python's overload resolution never evaluates Stream::Null()). */
    CV_WRAP explicit SyncedMat(const GpuMat& m);

    /** @brief Makes this handle a SyncedMat of the given size and type. Reuses the storage (data and
    state included) when size and type already match; otherwise this handle gets a new UNINITIALIZED
    storage (other handles keep the old one). On a ROI view a different size or type is refused
    (cv::Exception), since it would silently detach the view from its parent. Needs no GPU.
     */
    CV_WRAP void create(int rows, int cols, int type);
    //! @overload
    CV_WRAP void create(Size size, int type);

    /** @brief Makes this handle empty. The storage is freed when its last handle and the last view
    returned by an access are gone (views are reference-counted Mat/GpuMat headers). */
    CV_WRAP void release();

    /** @brief Frees the host side of the storage (seen by every handle sharing it) after waiting on
    the host for transfers that still use it. The next host access allocates and downloads again.
    Throws cv::Exception (and frees nothing) when the host holds the only valid copy: call upload()
    first. No-op when the host side is not allocated. */
    CV_WRAP void releaseHost();

    /** @brief Frees the device side of the storage after waiting on the host for the device work
    this object knows of (the streams that accessed it). The next device access allocates and
    uploads again. Throws cv::Exception (and frees nothing) when the device holds the only valid
    copy: call download() first. No-op when the device side is not allocated. */
    CV_WRAP void releaseDevice();

    /** @brief A host view for reading. Downloads the whole storage first when the host is stale
    (reason READ_HOST), on the stream that last wrote the device, and blocks until the data is on
    the host. Throws on an empty or UNINITIALIZED object.
    @return A Mat header on the page-locked memory (this view's rectangle); do not write through it.
     */
    CV_WRAP Mat readHost();

    /** @brief A host view for overwriting: copies nothing (discard), even when the device is
    newer, except on a partial ROI view (see the class description). Blocks until transfers that
    still read or write host memory have finished. Afterwards only the host is valid.
    @return A Mat header on the page-locked memory; its content is undefined until you write it.
     */
    CV_WRAP Mat writeHost();

    /** @brief A host view for reading and writing: downloads when the host is stale (reason
    READ_WRITE_HOST), blocks until host memory is free of pending transfers; afterwards only the
    host is valid. */
    CV_WRAP Mat readWriteHost();

    /** @brief A device view for reading on @p stream. Uploads the whole storage on @p stream when
    the device is stale (reason READ_DEVICE); makes @p stream wait (Stream::waitEvent, not the host)
    for the last device write done on another stream.
    @param stream Stream on which you will use the view; enqueue that work before the next access
    from another stream.
     */
    CV_WRAP GpuMat readDevice(Stream& stream = Stream::Null());

    /** @brief A device view for overwriting on @p stream: copies nothing (discard; partial ROI
    views excepted), makes @p stream wait for the last writer and every reader since, on other
    streams. Afterwards only the device is valid. */
    CV_WRAP GpuMat writeDevice(Stream& stream = Stream::Null());

    /** @brief A device view for reading and writing on @p stream: uploads when the device is stale
    (reason READ_WRITE_DEVICE), orders @p stream after the last writer and all readers; afterwards
    only the device is valid. */
    CV_WRAP GpuMat readWriteDevice(Stream& stream = Stream::Null());

    /** @brief Prefetch: enqueues the host -> device copy of the whole storage on @p stream when the
    device is stale (reason PREFETCH_UPLOAD); no-op when the device is valid. Does not block. */
    CV_WRAP void upload(Stream& stream = Stream::Null());

    /** @brief Prefetch: enqueues the device -> host copy of the whole storage on @p stream when the
    host is stale (reason PREFETCH_DOWNLOAD); no-op when the host is valid. Does not block: the next
    host access waits for it. */
    CV_WRAP void download(Stream& stream = Stream::Null());

    //! @brief True when this handle has no size (default-constructed or released).
    CV_WRAP bool empty() const;
    //! @brief Size of this handle (of the ROI for a view).
    CV_WRAP Size size() const;
    CV_WRAP int rows() const;
    CV_WRAP int cols() const;
    CV_WRAP int type() const;
    CV_WRAP int depth() const;
    CV_WRAP int channels() const;
    CV_WRAP size_t elemSize() const;
    //! @brief This handle's rectangle in the storage (the whole storage unless a ROI view).
    CV_WRAP Rect roi() const;
    //! @brief Size of the whole shared storage.
    CV_WRAP Size storageSize() const;
    //! @brief True for a ROI view that does not cover its whole storage.
    CV_WRAP bool isSubmatrix() const;
    //! @brief True when both handles share one storage (a view and its parent, or copies).
    CV_WRAP bool sharesStorageWith(const SyncedMat& other) const;

    //! @brief Current SyncedMat::State of the storage (UNINITIALIZED for an empty object).
    CV_WRAP int state() const;
    CV_WRAP bool isHostValid() const;
    CV_WRAP bool isDeviceValid() const;
    CV_WRAP bool isHostAllocated() const;
    CV_WRAP bool isDeviceAllocated() const;
    //! @brief CUDA device of the storage, or -1 before its first allocation.
    CV_WRAP int deviceId() const;

    //! @brief What an access from a thread whose current device is not deviceId() does.
    enum CrossDevicePolicy
    {
        CROSS_DEVICE_REFUSE = 0,    //!< throw cv::Exception naming both devices (default)
        CROSS_DEVICE_MIGRATE = 1    //!< move the device side to the caller's device (moveToDevice()), peer-copying valid data
    };

    /** @brief Sets the storage's SyncedMat::CrossDevicePolicy (seen by every handle and view of the
    storage; kept by create()). Needs no GPU.
    @param policy CROSS_DEVICE_REFUSE or CROSS_DEVICE_MIGRATE; another value, or an empty object,
    throws cv::Exception. */
    CV_WRAP void setCrossDevicePolicy(int policy);
    //! @brief The storage's SyncedMat::CrossDevicePolicy (CROSS_DEVICE_REFUSE for an empty object).
    CV_WRAP int crossDevicePolicy() const;

    /** @brief Moves the device side to @p device, whatever the policy and the calling thread's
    current device (which is left unchanged).

    Nothing happens when the storage is already there. Otherwise valid device data is copied to
    @p device on @p stream (reason TransferStats::PEER_COPY), device memory that holds no valid data
    is dropped without a copy, and deviceId() becomes @p device. Blocks the host until the copy and
    the work known on the old device have finished, then frees the old device's memory. An
    UNINITIALIZED storage (or one whose device side was never allocated) is only re-bound.
    @param device Target device, 0 to cv::cuda::getCudaEnabledDeviceCount() - 1.
    @param stream A stream of @p device (Stream::Null(): the legacy default stream of @p device) on
    which the copy runs; later accesses on other streams are ordered after it.
     */
    CV_WRAP void moveToDevice(int device, Stream& stream = Stream::Null());

    //! @brief Transfer counters of the storage (shared with every view).
    CV_WRAP TransferStats stats() const;
    //! @brief Sets every counter of the storage to zero.
    CV_WRAP void resetStats();

    class Impl;

private:
    friend struct SyncedMatAccess;
    Ptr<Impl> impl_;   // shared storage; null when empty
    Rect roi_;         // this handle's rectangle in the storage
};

/** @brief Applies a cv::cuda::Filter from one SyncedMat to another with the right intents: @p src
is read on the device (uploaded if stale), @p dst is written on the device (discard: nothing copied,
the host side of @p dst becomes stale).

@param filter The filter (e.g. cv::cuda::createGaussianFilter).
@param src Source; non-empty, holding data.
@param dst Destination. If empty, it becomes a new DEVICE_VALID SyncedMat holding the filter's output
(its size and type are whatever the filter produced; its cross-device policy is @p src's). If not empty it must have src's size and the
filter's output type: a mismatch throws cv::Exception and leaves @p dst intact. If @p dst shares
storage with @p src (the same object, a copy, or another view of it) the filter writes into the
storage's device scratch buffer, which is then copied into @p dst's rectangle (device -> device), so
overlapping views are correct.
@param stream Stream for the filter and any transfer.

Cost: at most one upload of @p src; no download; no synchronisation of the host.
 */
CV_EXPORTS_W void applyFilter(const Ptr<Filter>& filter, SyncedMat& src, CV_IN_OUT SyncedMat& dst,
                              Stream& stream = Stream::Null());

/** @brief In-place form: @p srcDst is accessed read-write on the device. The filter writes into a
device scratch buffer kept by the storage, which is then copied back on @p stream (device -> device),
so it is correct for filters that cannot run in place.
@param filter The filter; its output must have @p srcDst's type, or cv::Exception is thrown and
@p srcDst keeps its data.
@param srcDst Image, non-empty, holding data.
@param stream Stream for the filter, the copy back and any upload.

Cost: at most one upload; no download; one device-to-device copy of the view.
 */
CV_EXPORTS_AS(applyFilterInPlace) void applyFilter(const Ptr<Filter>& filter, SyncedMat& srcDst,
                                                   Stream& stream = Stream::Null());

//! @}

}} // namespace cv::cuda

#endif
