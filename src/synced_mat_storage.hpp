// The shared storage of cv::cuda::SyncedMat handles (a parent and its ROI views share one): the two
// images, which of them is valid, the ordering marks and the statistics, under one mutex. The state
// machine and its invariants: the comment at the top of synced_mat_storage.cpp.
#ifndef CUDAIMAGE_SYNCED_MAT_STORAGE_HPP
#define CUDAIMAGE_SYNCED_MAT_STORAGE_HPP

#include <functional>
#include <mutex>
#include <optional>
#include <cuda_runtime_api.h>
#include "opencv2/core.hpp"
#include "opencv2/core/check.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/cudaimage/synced_mat.hpp"
#include "device_check.hpp"
#include "synced_mat_marks.hpp"

namespace cv { namespace cuda { namespace detail {

enum class Intent { Read, Write, ReadWrite };

inline String typeName(int type) { return typeToString(type); }

}}} // namespace cv::cuda::detail

// Impl is nested in the exported SyncedMat and would be exported with it now that its members are
// defined out of line: keep it private to the library, as it was when they were inline.
#if defined(__GNUC__)
#define CUDAIMAGE_SYNCED_MAT_IMPL_HIDDEN __attribute__((visibility("hidden")))
#else
#define CUDAIMAGE_SYNCED_MAT_IMPL_HIDDEN
#endif

// The state is private: it changes only in the member functions defined in synced_mat_storage.cpp
// (the state machine), each of which refuses an illegal transition with a cv::Exception before
// changing anything. Members defined in other files only read it (allocation).
class CUDAIMAGE_SYNCED_MAT_IMPL_HIDDEN cv::cuda::SyncedMat::Impl
{
public:
    // An UNINITIALIZED storage: size and type, nothing allocated, no device yet.
    Impl(Size size, int type, int policy);
    // A HOST_VALID storage holding a copy of `m` in page-locked memory.
    static Ptr<Impl> copyOfHost(const Mat& m, const char* func);
    // A DEVICE_VALID storage that adopts `m` (no copy), written by `producer` (a lazy mark: work the
    // producer enqueued on `m` is waited for by the first other stream or host access).
    static Ptr<Impl> adoptingDevice(const GpuMat& m, Stream& producer);

    // --- what the handle reads (each takes the lock, except the constants) ---

    Size size() const { return size_; }
    int type() const { return type_; }
    int state() const;              // SyncedMat::State bits
    bool hostAllocated() const;
    bool deviceAllocated() const;
    int device() const;             // -1 until the first memory is allocated
    int policy() const;
    TransferStats stats() const;

    // --- transitions the handle asks for (each takes the lock) ---

    void setPolicy(int policy);
    void resetStats();

    Mat hostAccess(const Rect& roi, detail::Intent intent, const char* func);

    // Device access; with fn, fn(view) runs under the lock before a write is committed, and a
    // throwing fn leaves the state as it was before the write (used by applyFilter).
    GpuMat deviceAccess(const Rect& roi, Stream& s, detail::Intent intent, const char* func,
                        const std::function<void(const GpuMat&)>& fn = nullptr,
                        TransferStats::Reason uploadReason = TransferStats::REASON_COUNT);

    void prefetch(bool toDevice, Stream& s, const char* func);
    void releaseSide(bool device, const char* func);
    // The handle has checked that `device` exists; the stream must belong to it.
    void moveToDevice(int device, Stream& s, const char* func);

    // --- applyFilter (apply_filter.cpp) ---

    // Filter src -> dst inside this storage (the same view or two views) through scratch_.
    // The read of src counts as uploadReason (READ_DEVICE for two views, READ_WRITE_DEVICE in place).
    void filterWithin(const Ptr<Filter>& filter, const Rect& srcRoi, const Rect& dstRoi, Stream& s,
                      TransferStats::Reason uploadReason, const char* func);

private:
    size_t payloadBytes() const { return (size_t)size_.width * size_.height * CV_ELEM_SIZE(type_); }
    bool holdsData() const { return hostValid_ || devValid_; }
    bool covers(const Rect& roi) const { return roi == Rect(Point(), size_); }

    // --- checks (caller holds mtx_; they change nothing) ---

    void checkReadable(const char* func) const;
    bool foreign(int cur) const { return device_ >= 0 && cur != device_; }
    void refuseForeign(int cur, const char* func) const;
    // For a host access or a release that needs CUDA: refuses a thread on another device than the
    // storage's, or with CROSS_DEVICE_MIGRATE runs the rest on the storage's device (set into guard).
    void enterStorageDevice(std::optional<detail::DeviceGuard>& guard, const char* func) const;
    // The stream must belong to `expected`, the device the access runs on.
    void checkStream(cudaStream_t h, int expected, const char* func) const;

    // --- new images (synced_mat_allocation.cpp): they change nothing, so running out of memory
    //     leaves the storage as it was ---

    Mat newHostImage(const char* func) const;
    // A device image of the storage's size and type on `device`, the current device.
    GpuMat newDeviceImage(int device, const char* func) const;

    // --- transitions (synced_mat_storage.cpp; caller holds mtx_) ---

    // Allocation: the side's image, and the storage's device if it had none yet.
    void allocateHost(const char* func);
    void allocateDevice(const char* func);
    // For an access with a stream: the current device, after moving the device side there when the
    // storage is on another device and the policy allows it (refused otherwise).
    int deviceForAccess(Stream& s, cudaStream_t h, const char* func);
    // Current device == target; h is stream s, of the target device.
    void moveLocked(int target, Stream& s, cudaStream_t h, const char* func);
    // Copies: both sides allocated, the source side valid, the other stale.
    void uploadLocked(Stream& s, TransferStats::Reason reason);
    void downloadLocked(Stream& s, TransferStats::Reason reason);
    void copyLocked(bool toDevice, Stream& s, TransferStats::Reason reason);
    // A write access makes its side the only valid one; a write through a partial view needs that
    // side valid first (the rest of the storage keeps its data).
    void markHostWritten(bool whole);
    void markDeviceWritten(Stream& s, cudaStream_t h, bool whole);

    const Size size_;
    const int type_;

    // Everything below is guarded by mtx_.
    mutable std::mutex mtx_;
    int device_ = -1;
    int policy_;
    Mat host_;              // whole storage, page-locked; empty until the first host access
    GpuMat dev_;            // whole storage; empty until the first device access
    bool hostValid_ = false;
    bool devValid_ = false;
    detail::SideMarks hostMarks_, devMarks_;
    TransferStats stats_;
    GpuMat scratch_;        // in-place filtering
    detail::EventPool events_;
};

#endif
