// A batch call laid out on the host before any CUDA call: which images share a launch, where each
// image's descriptor and taps go in the call's one upload, which kernels' taps the device builds,
// and the launches' descriptors. Pure host code (the tests and the host-cost benchmark run it
// without a GPU); gaussian_blur_batch.cpp allocates the memory, uploads and launches.
//
//   upload (host -> device, one copy)                     device only
//   | items (BatchItem x count) | host-built taps, each once | tap jobs | taps the jobs build |
//   0                           itemBytes                    jobsAt     uploaded          total
#ifndef CUDAIMAGE_BATCH_PLAN_HPP
#define CUDAIMAGE_BATCH_PLAN_HPP

#include <utility>
#include <vector>
#include "batch_kernels.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** One image of a batch call: its description, kernel and path, and where its batch taps are. */
struct ImageWork
{
    BlurCall call;
    KernelEntry* kernel = nullptr;
    const PathChoice* choice = nullptr;
    PathTaps* taps = nullptr;   //!< host-built batch taps (attachTaps)
    bool batched = false;       //!< on its path's batched kernel (taps from the host or the device)
};

/** The images of a stack: `in` and `out` hold `kernels.size()` images of `imageRows` rows one
 * under the other (whole matrices: nothing read around them), image i with kernels[i]. Image 0 is
 * described as a single image would be (describeCall, a batch's query), image i is image 0 moved
 * by i images with its own kernel's radii; each takes its kernel's path (BatchKernels::choiceFor). */
CV_EXPORTS std::vector<ImageWork> describeStacked(const GpuMat& in, const GpuMat& out, int imageRows,
                                                  const std::vector<const KernelEntry*>& kernels, const DeviceLimits& limits,
                                                  BatchKernels& choices, const GaussianPaths::Options& options);

/** Gives every image the taps its path reads from the host: a kernel the device builds whose image
 * takes a path without a batched kernel (in place, one row or column) gets its taps, and a kernel
 * the host builds gets its batch taps for its path (over the host's threads, built before any
 * joins its kernel: a throw leaves every kernel as it was). Sets ImageWork::batched and ::taps. */
CV_EXPORTS void attachTaps(std::vector<ImageWork>& images, int srcType);

/** The layout of a call's upload and its launch groups. */
struct BatchPlan
{
    struct Group
    {
        int path = 0, instance = 0;
        std::vector<size_t> images;   //!< indices into the call's images, in order
    };
    std::vector<Group> groups;        //!< (path, instance) in order of first appearance
    size_t itemCount = 0;             //!< batched images: one BatchItem each, in group order
    std::vector<const PathTaps*> distinct;            //!< host-built taps, each once, at PathTaps::offset
    std::vector<std::pair<int, KernelEntry*>> jobs;   //!< (path, kernel): device-built taps, by path
    std::vector<int> jobBytes;                        //!< the struct each job writes (at KernelEntry::jobOffset)
    size_t jobsAt = 0;                //!< offset of the BatchTapJob array
    size_t uploaded = 0;              //!< bytes copied from the host
    size_t total = 0;                 //!< bytes of device memory (the jobs' taps after `uploaded`)
};

/** Lays out the batched images of `images` (after attachTaps) for call id `call` (unique per
 * filter and call: it marks the host-built taps and device-built kernels placed, so that each is
 * placed once). Images without a batched path are left out. */
CV_EXPORTS BatchPlan planBatch(std::vector<ImageWork>& images, int depth, int channels, uint64_t call);

/** The tap jobs of one path: `first`..`first + count` of the plan's jobs. */
struct PathJobs
{
    int path = 0;
    BatchTapJobs jobs;   //!< jobs, count, depth and channels set; the sigmas and exp are the caller's
};

/** What encodeBatch gives the launcher. */
struct EncodedBatch
{
    std::vector<BatchLaunch> launches;   //!< one per plan group, in order
    std::vector<PathJobs> tapJobs;       //!< one per path with device-built taps, in order
};

/** Writes the plan's upload (plan.uploaded bytes at `host`) for device memory at `device` (plan.total
 * bytes) and returns the launches and tap-job lists, which point into `device`. */
CV_EXPORTS EncodedBatch encodeBatch(const BatchPlan& plan, const std::vector<ImageWork>& images, int depth, int channels,
                                    int multiprocessors, unsigned char* device, unsigned char* host);

}}} // namespace cv::cuda::gaussian

#endif
