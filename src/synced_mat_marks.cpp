// The ordering marks of a SyncedMat side: recording, waiting, replacing (synced_mat_marks.hpp).
#include "precomp.hpp"
#include "synced_mat_marks.hpp"

namespace cv { namespace cuda { namespace detail {

Ptr<Event> EventPool::take()
{
    if (!events_.empty())
    {
        Ptr<Event> e = events_.back();
        events_.pop_back();
        return e;
    }
    return makePtr<Event>(Event::DISABLE_TIMING);
}

void EventPool::put(StreamMark& m)
{
    if (m.event)
        events_.push_back(m.event);
    m.event.release();
}

// Records m's event on its own stream, unless it already marks the end of m's work.
static void record(StreamMark& m, EventPool& events)
{
    if (m.recorded)
        return;
    if (!m.event)
        m.event = events.take();
    m.event->record(m.stream);
    m.recorded = true;
}

static void waitForMark(StreamMark& m, const Waiter& waiter, EventPool& events)
{
    if (!waiter.stream)
    {
        record(m, events);
        m.event->waitForCompletion();
        return;
    }
    if (m.handle == waiter.handle)
        return;
    record(m, events);
    waiter.stream->waitEvent(*m.event);
}

void SideMarks::waitFor(MarkSet which, const Waiter& waiter, EventPool& events)
{
    if (writer_)
        waitForMark(*writer_, waiter, events);
    if (which == MarkSet::All)
        for (StreamMark& r : readers_)
            waitForMark(r, waiter, events);
    if (waiter.stream)
        return;
    if (writer_)
    {
        events.put(*writer_);
        writer_.reset();
    }
    if (which == MarkSet::All)
    {
        for (StreamMark& r : readers_)
            events.put(r);
        readers_.clear();
    }
}

Ptr<Event> SideMarks::recordWriter(EventPool& events)
{
    if (!writer_)
        return Ptr<Event>();
    record(*writer_, events);
    return writer_->event;
}

void SideMarks::setWriter(Stream& s, cudaStream_t h, bool eager, EventPool& events)
{
    for (StreamMark& r : readers_)
        events.put(r);
    readers_.clear();
    Ptr<Event> ev;
    if (writer_)
    {
        ev = writer_->event;
        writer_.reset();
    }
    writer_.emplace(s, h);
    writer_->event = ev;
    writer_->recorded = eager;
    if (eager)
    {
        if (!writer_->event)
            writer_->event = events.take();
        writer_->event->record(s);
    }
}

void SideMarks::addReader(Stream& s, cudaStream_t h, bool eager, EventPool& events)
{
    for (StreamMark& r : readers_)
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
    readers_.emplace_back(s, h);
    StreamMark& r = readers_.back();
    r.recorded = eager;
    if (eager)
    {
        r.event = events.take();
        r.event->record(s);
    }
}

}}} // namespace cv::cuda::detail
