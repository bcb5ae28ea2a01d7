// The kernels of a batch filter's images: each image's (ksize, sigmaX, sigmaY) checked as
// createGaussianBlur checks them, resolved once to its shape (and, where the host builds them, its
// taps) and kept in a bounded cache, so that a repeated sigma costs a lookup and a refused call
// leaves the cache as it was. Pure host code: the tests and the host-cost benchmark run it without
// a GPU. Used by gaussian_blur_batch.cpp.
#ifndef CUDAIMAGE_BATCH_KERNELS_HPP
#define CUDAIMAGE_BATCH_KERNELS_HPP

#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>
#include "gaussian_call.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** One image's kernel as given: its ksize and sigmas. */
struct KernelArgs
{
    Size ksize;
    double sigmaX = 0, sigmaY = 0;
    bool operator==(const KernelArgs& o) const { return ksize == o.ksize && sigmaX == o.sigmaX && sigmaY == o.sigmaY; }
};

/** A hash of finite kernel arguments (0.0 and -0.0, equal, hash alike). */
struct KernelArgsHash
{
    size_t operator()(const KernelArgs& k) const;
};

/** A batched path's taps for one kernel, and where the current call placed them. */
struct PathTaps
{
    BatchTaps taps;
    uint64_t call = 0;    //!< the call that last placed them in its upload
    size_t offset = 0;    //!< their offset in that upload
};

/** What only a kernel whose taps the host holds needs: the taps, its path per class of image
 * (chosen once: the filter's device and options are fixed) and, per path that a batch gave it,
 * the batch taps. Apart from the entry, so that the many kernels the device builds stay small. */
struct HostKernel
{
    FilterTaps taps;
    PathChoice choice[2][2];              //!< [one row or column][dst in the source's allocation]
    std::map<int, PathTaps> batchTaps;    //!< by path index
};

/** What a filter knows of one kernel: its shape and where its taps come from. */
struct KernelEntry
{
    KernelArgs args;
    FilterShape shape;
    /** Its path per class of image ([one row or column][dst in the source's allocation]), once
     * chosen (BatchKernels::choiceFor): in `host`, or in the filter's choices by shape. */
    const PathChoice* choice[2][2] = {{nullptr, nullptr}, {nullptr, nullptr}};
    /** The host's part: every kernel whose taps the host builds; a kernel the device builds gets
     * one only when an image of it takes a path without a batched kernel. */
    std::unique_ptr<HostKernel> host;
    // A kernel whose batch taps the device builds (batch_tap_maker.cuh) in every call that uses
    // it: its size and sigmas (host values after OpenCV's rules, kept in the cache like any other
    // kernel; or indices into one call's device sigmas, never cached).
    bool deviceTaps = false;
    Size ksize;
    double sigmaX = 0, sigmaY = 0;
    int sigmaIndexX = -1, sigmaIndexY = -1;
    uint64_t resolvedIn = 0;              //!< the last BatchKernels::resolve() that returned it
    uint64_t jobCall = 0;                 //!< the last call whose job list has it (the batch's call id)
    size_t jobOffset = 0;                 //!< where its taps go in that call's device buffer
};

/** body(Range) over [0, n): on the host's threads where there is enough work to repay waking them
 * (a new kernel's taps take a fraction of a microsecond, a parallel_for_ some tens), else here. */
template <class F>
void forKernels(size_t n, F&& body)
{
    constexpr size_t kParallelFrom = 512;
    if (n >= kParallelFrom)
        parallel_for_(Range(0, static_cast<int>(n)), body, static_cast<double>(n) / 128);
    else if (n > 0)
        body(Range(0, static_cast<int>(n)));
}

/** Whether every fixed-point tap of cv::getGaussianKernel(n, sigma) is surely below 1 << bits
 * (tapsBelowOne) without building it: a sigma <= 0 takes OpenCV's fixed kernels or a sigma of at
 * least 2 (n >= 11); a positive one is compared with a bound per depth below which a kernel may put
 * all its weight on the centre tap (the resolution builds such a kernel's few fixed-point taps to
 * know). Exported for the tests. */
CV_EXPORTS bool tapsSurelyBelowOne(int depth, int n, double sigma);

/** A batch filter's kernel cache. Not thread-safe: the filter holds its lock around resolve(). */
class CV_EXPORTS BatchKernels
{
public:
    /** What the filter fixes: its types, borders and default kernel, and whether this host may
     * leave taps to the device (softdoubleExpInHardware()). */
    struct Filter
    {
        int srcType = 0, dstType = 0;
        int rowBorder = BORDER_REPLICATE, columnBorder = -1;
        KernelArgs defaults;
        bool deviceTaps = false;
    };
    /** Kernels kept across calls; past it a call keeps only its own (a batch of random sigmas
     * would otherwise grow the cache without end). */
    static constexpr size_t kMaxCached = 4096;

    explicit BatchKernels(const Filter& filter) : filter_(filter) { cache_.reserve(2 * kMaxCached); }
    BatchKernels(const BatchKernels&) = delete;
    BatchKernels& operator=(const BatchKernels&) = delete;

    /** Every image's kernel, checked under the caller's name `function` and the image's index.
     * sigmaX, sigmaY, ksize: empty (the filter's), one value (every image) or one per image. A
     * kernel the host builds is cached when first seen; one the device builds when seen in a
     * second call (until then it is the call's own). A call that throws leaves the cache as it
     * was. The pointers stay valid until the next call. */
    std::vector<const KernelEntry*> resolve(size_t n, const std::vector<double>& sigmaX, const std::vector<double>& sigmaY,
                                            const std::vector<Size>& ksize, const char* function);

    /** Kernels in the cache. */
    size_t size() const { return cache_.size(); }

    /** Kernel k's path for an image of query q on a device of these facts, with the filter's
     * options. The choice depends on the kernel and on whether the image is one row or column or
     * written inside its source's allocation, not on its size: made once per kernel and such class
     * of image. For a kernel the device builds (often new in every call) it is kept by the shape it
     * depends on, so that a new sigma costs no choice. */
    const PathChoice* choiceFor(KernelEntry* k, const PathQuery& q, const GaussianPaths::DeviceFacts& facts,
                                const GaussianPaths::Options& options);

private:
    typedef std::unordered_map<KernelArgs, KernelEntry, KernelArgsHash> Cache;
    void checkKernel(const KernelArgs& k, size_t i, const char* function) const;
    void keepWithinBound();
    /** Whether a kernel of this hash was resolved, and not cached, by an earlier call. */
    bool seen(uint64_t hash) const;

    typedef std::tuple<int, int, bool, bool, int, int> ChoiceKey;   //!< rx, ry, taps below one (x, y), unit, inside

    Filter filter_;
    std::map<ChoiceKey, PathChoice> choices_;   // node-based: the entries' pointers stay valid
    uint64_t resolves_ = 0;   //!< resolve() calls (marks the entries each returned)
    /** Hashes of the device-built kernels of earlier calls that were not cached (an odd value;
     * one slot per hash, a newer one overwrites): the admission to the cache. */
    static constexpr size_t kSeenSlots = 2 * kMaxCached;
    std::vector<uint64_t> seen_ = std::vector<uint64_t>(kSeenSlots, 0);
    std::vector<KernelEntry> callLocal_;   //!< the current call's device-built kernels not (yet) cached
    Cache cache_;   // node-based: entries stay put while it grows
};

}}} // namespace cv::cuda::gaussian

#endif
