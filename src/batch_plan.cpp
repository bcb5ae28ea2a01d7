// A batch call's layout and launch descriptors (batch_plan.hpp).
#include "precomp.hpp"
#include <algorithm>
#include <cstring>
#include "batch_plan.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

constexpr size_t kAlign = 16;
size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

} // namespace

std::vector<ImageWork> describeStacked(const GpuMat& in, const GpuMat& out, int imageRows,
                                       const std::vector<const KernelEntry*>& kernels, const DeviceLimits& limits,
                                       BatchKernels& choices, const GaussianPaths::Options& options)
{
    PathQuery q0;
    q0.batch = true;
    const size_t inImage = static_cast<size_t>(imageRows) * in.step, outImage = static_cast<size_t>(imageRows) * out.step;
    const BlurCall first = describeCall(GpuMat(imageRows, in.cols, in.type(), in.data, in.step),
                                        GpuMat(imageRows, out.cols, out.type(), out.data, out.step), kernels[0]->shape, limits, q0);
    std::vector<ImageWork> work(kernels.size());
    for (size_t i = 0; i < kernels.size(); i++)
    {
        KernelEntry* k = const_cast<KernelEntry*>(kernels[i]);
        ImageWork& w = work[i];
        w.call = movedCall(first, in.data + i * inImage, out.data + i * outImage);
        w.call.rx = first.unitX ? 0 : k->shape.rx;
        w.call.ry = first.unitY ? 0 : k->shape.ry;
        w.kernel = k;
        PathQuery q = q0;
        setKernel(q, k->shape);
        w.choice = choices.choiceFor(k, q, limits.paths, options);
    }
    return work;
}

void attachTaps(std::vector<ImageWork>& images, int srcType)
{
    for (ImageWork& im : images)
    {
        im.batched = GaussianPaths::batched(im.choice->index);
        if (!im.batched && !im.kernel->host)
        {
            CV_Assert(im.kernel->sigmaIndexX < 0);   // device sigmas take batched paths only (checked)
            std::unique_ptr<HostKernel> h(new HostKernel);
            h->taps = filterTaps(srcType, im.kernel->ksize, im.kernel->sigmaX, im.kernel->sigmaY);
            im.kernel->host = std::move(h);
        }
    }
    std::vector<std::pair<KernelEntry*, int>> fresh;   // (kernel, path), each once
    for (const ImageWork& im : images)
    {
        const std::pair<KernelEntry*, int> key(im.kernel, im.choice->index);
        if (im.batched && !key.first->deviceTaps && !key.first->host->batchTaps.count(key.second) &&
            (fresh.empty() || fresh.back() != key))
            fresh.push_back(key);
    }
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    std::vector<BatchTaps> built(fresh.size());
    forKernels(fresh.size(), [&](const Range& r) {
        for (int j = r.start; j < r.end; j++)
            built[j] = GaussianPaths::batchTaps(fresh[j].second, fresh[j].first->host->taps);
    });
    for (size_t j = 0; j < fresh.size(); j++)
        fresh[j].first->host->batchTaps[fresh[j].second].taps = std::move(built[j]);
    for (ImageWork& im : images)
        if (im.batched && !im.kernel->deviceTaps)
            im.taps = &im.kernel->host->batchTaps.find(im.choice->index)->second;
}

BatchPlan planBatch(std::vector<ImageWork>& images, int depth, int channels, uint64_t call)
{
    BatchPlan p;
    // Groups: (path, instance) -> images, in order of first appearance (a few groups: a list).
    for (size_t i = 0; i < images.size(); i++)
    {
        const ImageWork& im = images[i];
        if (!im.batched)
            continue;
        const int path = im.choice->index;
        const int instance = im.kernel->deviceTaps
                                 ? GaussianPaths::batchLayout(path, depth, channels, im.kernel->shape.rx, im.kernel->shape.ry).instance
                                 : im.taps->taps.instance;
        auto g = std::find_if(p.groups.begin(), p.groups.end(),
                              [&](const BatchPlan::Group& x) { return x.path == path && x.instance == instance; });
        if (g == p.groups.end())
        {
            g = p.groups.insert(p.groups.end(), BatchPlan::Group());
            g->path = path;
            g->instance = instance;
        }
        g->images.push_back(i);
        p.itemCount++;
    }
    if (p.groups.empty())
        return p;
    // Every item, every distinct host-built taps struct once (placed by the call's id), the
    // device's tap jobs by path, then the taps they build (not uploaded).
    size_t total = alignUp(p.itemCount * sizeof(BatchItem));
    for (ImageWork& im : images)
    {
        if (!im.batched)
            continue;
        if (im.kernel->deviceTaps)
        {
            if (im.kernel->jobCall != call)
            {
                im.kernel->jobCall = call;
                p.jobs.emplace_back(im.choice->index, im.kernel);
            }
        }
        else if (im.taps->call != call)
        {
            im.taps->call = call;
            im.taps->offset = total;
            total += alignUp(im.taps->taps.bytes.size());
            p.distinct.push_back(im.taps);
        }
    }
    // By path (most calls have one: already in order).
    auto byPath = [](const std::pair<int, KernelEntry*>& a, const std::pair<int, KernelEntry*>& b) { return a.first < b.first; };
    if (!std::is_sorted(p.jobs.begin(), p.jobs.end(), byPath))
        std::stable_sort(p.jobs.begin(), p.jobs.end(), byPath);
    p.jobsAt = total;
    total += alignUp(p.jobs.size() * sizeof(BatchTapJob));
    p.uploaded = total;
    p.jobBytes.resize(p.jobs.size());
    for (size_t j = 0; j < p.jobs.size(); j++)
    {
        KernelEntry* k = p.jobs[j].second;
        p.jobBytes[j] = GaussianPaths::batchLayout(p.jobs[j].first, depth, channels, k->shape.rx, k->shape.ry).bytes;
        k->jobOffset = total;
        total += alignUp(static_cast<size_t>(p.jobBytes[j]));
    }
    p.total = total;
    return p;
}

EncodedBatch encodeBatch(const BatchPlan& p, const std::vector<ImageWork>& images, int depth, int channels,
                         int multiprocessors, unsigned char* device, unsigned char* host)
{
    EncodedBatch e;
    for (const PathTaps* t : p.distinct)
        std::memcpy(host + t->offset, t->taps.bytes.data(), t->taps.bytes.size());
    BatchTapJob* hostJobs = reinterpret_cast<BatchTapJob*>(host + p.jobsAt);
    for (size_t j = 0; j < p.jobs.size(); j++)
    {
        const KernelEntry* k = p.jobs[j].second;
        BatchTapJob& job = hostJobs[j];
        job = BatchTapJob();
        job.out = device + k->jobOffset;
        job.bytes = p.jobBytes[j];
        job.ksizeX = k->ksize.width;
        job.ksizeY = k->ksize.height;
        job.sigmaX = k->sigmaX;
        job.sigmaY = k->sigmaY;
        job.sigmaIndexX = k->sigmaIndexX;
        job.sigmaIndexY = k->sigmaIndexY;
    }
    for (size_t j = 0; j < p.jobs.size();)
    {
        size_t end = j;
        while (end < p.jobs.size() && p.jobs[end].first == p.jobs[j].first)
            end++;
        PathJobs list;
        list.path = p.jobs[j].first;
        list.jobs.jobs = reinterpret_cast<const BatchTapJob*>(device + p.jobsAt) + j;
        list.jobs.count = static_cast<int>(end - j);
        list.jobs.depth = depth;
        list.jobs.channels = channels;
        e.tapJobs.push_back(list);
        j = end;
    }
    BatchItem* hostItems = reinterpret_cast<BatchItem*>(host);
    size_t at = 0;
    for (const BatchPlan::Group& g : p.groups)
    {
        BatchLaunch b;
        b.depth = depth;
        b.channels = channels;
        b.instance = g.instance;
        b.multiprocessors = multiprocessors;
        b.forcedStripRows = images[g.images[0]].choice->forcedStripRows;   // the filter's options
        b.warpTiles = images[g.images[0]].choice->warpTiles;
        b.items = reinterpret_cast<const BatchItem*>(device) + at;
        b.count = static_cast<int>(g.images.size());
        for (size_t i : g.images)
        {
            const ImageWork& im = images[i];
            BatchItem& item = hostItems[at++];
            std::memcpy(&item.call, &im.call, sizeof(BlurCall));
            item.taps = device + (im.kernel->deviceTaps ? im.kernel->jobOffset : im.taps->offset);
            item.firstTile = 0;
            const long long elements = static_cast<long long>(im.call.width) * im.call.channels;
            b.blocksAcross = std::max(b.blocksAcross, static_cast<int>((elements + im.choice->tileOutputs - 1) / im.choice->tileOutputs));
            b.maxHeight = std::max(b.maxHeight, im.call.height);
            b.maxRowElements = std::max(b.maxRowElements, elements);
            b.maxRadius = std::max(b.maxRadius, im.choice->radius);
            if (im.choice->residentBlocks > 0)
            {
                // a persistent grid: the images' tiles form one sequence
                item.firstTile = b.tiles;
                b.tiles += im.choice->tiles(im.call.width, im.call.height, im.call.channels);
                b.sharedBytes = std::max(b.sharedBytes, im.choice->sharedBytes);
                b.residentBlocks = std::max(b.residentBlocks, im.choice->residentBlocks);
            }
        }
        e.launches.push_back(b);
    }
    return e;
}

}}} // namespace cv::cuda::gaussian
