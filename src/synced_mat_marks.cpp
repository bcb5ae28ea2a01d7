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

void record(StreamMark& m, EventPool& events)
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

void waitFor(SideMarks& side, MarkSet which, const Waiter& waiter, EventPool& events)
{
    if (side.writer)
        waitForMark(*side.writer, waiter, events);
    if (which == MarkSet::All)
        for (StreamMark& r : side.readers)
            waitForMark(r, waiter, events);
    if (waiter.stream)
        return;
    if (side.writer)
    {
        events.put(*side.writer);
        side.writer.reset();
    }
    if (which == MarkSet::All)
    {
        for (StreamMark& r : side.readers)
            events.put(r);
        side.readers.clear();
    }
}

void SideMarks::setWriter(Stream& s, cudaStream_t h, bool eager, EventPool& events)
{
    for (StreamMark& r : readers)
        events.put(r);
    readers.clear();
    Ptr<Event> ev;
    if (writer)
    {
        ev = writer->event;
        writer.reset();
    }
    writer.emplace(s, h);
    writer->event = ev;
    writer->recorded = eager;
    if (eager)
    {
        if (!writer->event)
            writer->event = events.take();
        writer->event->record(s);
    }
}

void SideMarks::addReader(Stream& s, cudaStream_t h, bool eager, EventPool& events)
{
    for (StreamMark& r : readers)
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
    readers.emplace_back(s, h);
    StreamMark& r = readers.back();
    r.recorded = eager;
    if (eager)
    {
        r.event = events.take();
        r.event->record(s);
    }
}

}}} // namespace cv::cuda::detail
