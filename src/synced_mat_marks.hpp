// The ordering marks of one side (host or device) of a SyncedMat: the stream that last wrote it,
// the streams that read it since, and the events that say how far their work went. Eager and lazy
// marks, and why the two kinds exist: the comment at the top of synced_mat_storage.cpp.
#ifndef CUDAIMAGE_SYNCED_MAT_MARKS_HPP
#define CUDAIMAGE_SYNCED_MAT_MARKS_HPP

#include <optional>
#include <vector>
#include <cuda_runtime_api.h>
#include "opencv2/core/cuda.hpp"

namespace cv { namespace cuda { namespace detail {

// One stream that touched a side, and the event that marks how far.
struct StreamMark
{
    StreamMark(const Stream& s, cudaStream_t h) : stream(s), handle(h) {}
    Stream stream;          // a reference-counted copy: keeps the caller's stream alive
    cudaStream_t handle;    // identity of the stream (two Stream objects may wrap one handle)
    Ptr<Event> event;       // created on first record
    bool recorded = false;  // the event marks the end of this mark's work: do not record again
};

// Events no mark holds any more, kept for the next mark instead of creating one per access. They
// belong to the storage's device, as the marks' events do.
class EventPool
{
public:
    Ptr<Event> take();
    void put(StreamMark& m);    // takes m's event, if any
    bool empty() const { return events_.empty(); }
    void clear() { events_.clear(); }

private:
    std::vector<Ptr<Event> > events_;
};

// Which marks of a side a waiter must wait for: a reader of the memory waits for its writer only;
// a writer also for its readers.
enum class MarkSet { Writer, All };

// Who waits: a stream (the wait is enqueued on it with Stream::waitEvent; the host goes on) or the
// calling thread (it blocks in Event::waitForCompletion).
struct Waiter
{
    static Waiter host() { return Waiter(); }
    static Waiter onStream(Stream& s, cudaStream_t h) { Waiter w; w.stream = &s; w.handle = h; return w; }

    Stream* stream = nullptr;       // null: the host
    cudaStream_t handle = nullptr;
};

// The marks of one side: the work still pending on its memory. They change only through these
// functions, and only the storage's state machine calls them (synced_mat_storage.cpp).
class SideMarks
{
public:
    bool any() const { return writer_.has_value() || !readers_.empty(); }

    // Stream s (handle h) writes the side: it replaces every mark. Eager: our own transfer, just
    // enqueued, recorded now; lazy: a caller's access, recorded when someone first waits for it.
    void setWriter(Stream& s, cudaStream_t h, bool eager, EventPool& events);
    // Stream s (handle h) reads the side; a stream already reading keeps its one mark.
    void addReader(Stream& s, cudaStream_t h, bool eager, EventPool& events);

    // The one wait: `waiter` waits for the marks in `which`. A stream does not wait for itself (its
    // own work is already in order). After a host wait the marks it waited for are dropped: their
    // work is finished, nothing else needs to wait for it. After a stream wait they stay: their
    // work may still run, and the host or another stream may have to wait for it later (the access
    // that follows replaces them through setWriter or addReader).
    void waitFor(MarkSet which, const Waiter& waiter, EventPool& events);

    // The stream of the last write, or `otherwise` when none is pending (the host waited for it).
    Stream writerStreamOr(const Stream& otherwise) const { return writer_ ? writer_->stream : otherwise; }

    // The last write's event, recorded if it was not yet (on the writer's own stream: the caller
    // makes that stream's device current), for a wait from another device; null when no write is
    // pending.
    Ptr<Event> recordWriter(EventPool& events);

private:
    std::optional<StreamMark> writer_;
    std::vector<StreamMark> readers_;
};

}}} // namespace cv::cuda::detail

#endif
