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

class CUDAIMAGE_SYNCED_MAT_IMPL_HIDDEN cv::cuda::SyncedMat::Impl
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
    detail::SideMarks hostMarks_, devMarks_;
    TransferStats stats_;
    GpuMat scratch_;        // in-place filtering
    detail::EventPool events_;

    size_t payloadBytes() const { return (size_t)size_.width * size_.height * CV_ELEM_SIZE(type_); }
    bool holdsData() const { return hostValid_ || devValid_; }

    // --- checks (caller holds mtx_) ---

    void checkReadable(const char* func) const;

    bool foreign(int cur) const { return device_ >= 0 && cur != device_; }

    void refuseForeign(int cur, const char* func) const;

    // For a host access or a release that needs CUDA: refuses a thread on another device than the
    // storage's, or with CROSS_DEVICE_MIGRATE runs the rest on the storage's device (set into guard).
    void enterStorageDevice(std::optional<detail::DeviceGuard>& guard, const char* func) const;

    // The stream must belong to `expected`, the device the access runs on.
    void checkStream(cudaStream_t h, int expected, const char* func) const;

    // For an access with a stream: the current device, after moving the device side there when the
    // storage is on another device and the policy allows it (refused otherwise).
    int deviceForAccess(Stream& s, cudaStream_t h, const char* func);

    // --- allocation (synced_mat_allocation.cpp): into a temporary, committed only on success ---

    void allocateHost(const char* func);
    // A device image of the storage's size and type on the current device `cur`.
    GpuMat newDeviceImage(int cur, const char* func) const;
    void allocateDevice(const char* func);

    // --- moving the device side to another device (caller holds mtx_; current device == target;
    //     h is stream s, of the target device) ---

    void moveLocked(int target, Stream& s, cudaStream_t h, const char* func);

    // --- transfers (caller holds mtx_, both sides allocated) ---

    void uploadLocked(Stream& s, TransferStats::Reason reason);
    void downloadLocked(Stream& s, TransferStats::Reason reason);

    // --- accesses ---

    Mat hostAccess(const Rect& roi, detail::Intent intent, const char* func);

    // Device access; with fn, fn(view) runs under the lock before a write is committed, and a
    // throwing fn leaves the state as it was before the write (used by applyFilter).
    GpuMat deviceAccess(const Rect& roi, Stream& s, detail::Intent intent, const char* func,
                        const std::function<void(const GpuMat&)>& fn = nullptr,
                        TransferStats::Reason uploadReason = TransferStats::REASON_COUNT);

    void prefetch(bool toDevice, Stream& s, const char* func);
    void releaseSide(bool device, const char* func);

    // --- applyFilter (apply_filter.cpp) ---

    // Filter src -> dst inside this storage (the same view or two views) through scratch_.
    // The read of src counts as uploadReason (READ_DEVICE for two views, READ_WRITE_DEVICE in place).
    void filterWithin(const Ptr<Filter>& filter, const Rect& srcRoi, const Rect& dstRoi, Stream& s,
                      TransferStats::Reason uploadReason, const char* func);
};

#endif
