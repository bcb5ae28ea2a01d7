// A batch filter's kernel cache (batch_kernels.hpp).
#include "precomp.hpp"
#include <cmath>
#include <cstring>
#include <iterator>
#include "batch_kernels.hpp"
#include "gaussian_arguments.hpp"
#include "gaussian_taps.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

/** A value list of the batch API: empty (the default), one value (every image) or one per image. */
template <class T>
void checkListSize(const std::vector<T>& v, size_t n, const char* function, const char* name)
{
    if (v.size() > 1 && v.size() != n)
        CV_Error_(Error::StsUnmatchedSizes, ("%s: %s has %zu values for %zu images; allowed: none (the filter's), one "
                                             "(every image) or one per image", function, name, v.size(), n));
}

template <class T>
const T& pick(const std::vector<T>& v, size_t i, const T& fallback) { return v.empty() ? fallback : v.size() == 1 ? v[0] : v[i]; }

/** Below this sigma a fixed-point kernel may put all its weight on the centre tap (1 << bits, which
 * the byte-product paths refuse): the largest such sigma of any kernel of 3 to 257 taps is 0.282
 * for 8 bits and 0.204 for 16 (swept in steps of 0.002; test_batch_kernels.cpp checks the bound). */
double sigmaWithTapsBelowOne(int depth) { return depth == CV_8U ? 0.4 : 0.3; }

uint64_t hashBits(double d)
{
    uint64_t b = 0;
    if (d != 0.0)
        std::memcpy(&b, &d, sizeof b);
    return b;
}

/** tapsBelowOne() of the fixed-point taps of cv::getGaussianKernel(n, sigma), which the path
 * choice needs (a tap of 1.0 does not fit the byte products): built, in a few tens of nanoseconds
 * for these few-tap kernels, only where tapsSurelyBelowOne cannot tell. */
bool kernelTapsBelowOne(int depth, int n, double sigma)
{
    if (tapsSurelyBelowOne(depth, n, sigma))
        return true;
    if (n == 1)
        return false;
    return tapsBelowOne(depth, makeTaps(n, sigma, fixedPointBits(depth)).fixed);
}

} // namespace

size_t KernelArgsHash::operator()(const KernelArgs& k) const
{
    uint64_t h = (static_cast<uint64_t>(static_cast<uint32_t>(k.ksize.width)) << 32) ^ static_cast<uint32_t>(k.ksize.height);
    for (uint64_t b : {hashBits(k.sigmaX), hashBits(k.sigmaY)})
        h = (h ^ b) * 0x9E3779B97F4A7C15ull + (h >> 29);
    // MurmurHash3's finaliser: every bit of the sigmas reaches the low bits (close sigmas differ
    // in a double's low mantissa bits only, which a multiplication carries upwards alone).
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return static_cast<size_t>(h);
}

bool tapsSurelyBelowOne(int depth, int n, double sigma)
{
    if (fixedPointBits(depth) == 0)
        return true;
    if (n == 1)
        return false;
    return !(sigma > 0) || sigma >= sigmaWithTapsBelowOne(depth);
}

std::vector<const KernelEntry*> BatchKernels::resolve(size_t n, const std::vector<double>& sigmaX,
                                                      const std::vector<double>& sigmaY, const std::vector<Size>& ksize,
                                                      const char* f)
{
    checkListSize(sigmaX, n, f, "sigmaX");
    checkListSize(sigmaY, n, f, "sigmaY");
    checkListSize(ksize, n, f, "ksize");
    std::vector<const KernelEntry*> out(n);
    const int depth = CV_MAT_DEPTH(filter_.srcType);
    const KernelArgs& defaults = filter_.defaults;
    const bool perImage = sigmaX.size() > 1 || sigmaY.size() > 1 || ksize.size() > 1;
    // An explicit sigmaX without sigmaY means sigmaY = sigmaX (the filter's sigmaY belongs to its sigmaX).
    const double sigmaYDefault = sigmaX.empty() ? defaults.sigmaY : 0.0;
    // A kernel the host builds goes into the cache when first seen. A kernel the device builds
    // costs the host only its checks and shape, which a fresh sigma in every call (random
    // augmentation) would otherwise pay with a node in the cache and its eviction: it joins the
    // cache when seen in a second call (seen_), and lives in this call's own list until then.
    // New cache entries leave it again if a later image is refused; the marks of a refused call
    // are not kept.
    std::vector<Cache::iterator> added;
    std::vector<KernelEntry*> hostBuilt;
    std::vector<uint64_t> marks;
    callLocal_.clear();
    callLocal_.reserve(perImage ? n : 1);
    const uint64_t call = ++resolves_;
    const KernelArgsHash hash;
    constexpr size_t kRecent = 61;
    const KernelEntry* recent[kRecent] = {};   // the call's own kernels, by hash
    try
    {
        for (size_t i = 0; i < n; i++)
        {
            if (i > 0 && !perImage)
            {
                out[i] = out[0];
                continue;
            }
            KernelArgs k;
            k.ksize = pick(ksize, i, defaults.ksize);
            k.sigmaX = pick(sigmaX, i, defaults.sigmaX);
            k.sigmaY = pick(sigmaY, i, sigmaYDefault);
            // Consecutive images of one kernel (an NCHW tensor's planes) share the lookup.
            if (i > 0 && k == out[i - 1]->args)
            {
                out[i] = out[i - 1];
                continue;
            }
            // Non-finite sigmas never match (NaN != NaN) and go to the checks.
            const bool finite = std::isfinite(k.sigmaX) && std::isfinite(k.sigmaY);
            const uint64_t h = finite ? hash(k) : 0;
            auto it = finite ? cache_.find(k) : cache_.end();
            if (it != cache_.end())
            {
                it->second.resolvedIn = call;
                out[i] = &it->second;
                continue;
            }
            // One entry per kernel where the call's images repeat a few new kernels out of order.
            const KernelEntry* r = finite ? recent[h % kRecent] : nullptr;
            if (r && r->args == k)
            {
                out[i] = r;
                continue;
            }
            checkKernel(k, i, f);
            const GaussianShape g = resolveShape(depth, k.ksize, k.sigmaX, k.sigmaY);
            const bool deviceBuilt = filter_.deviceTaps && std::max(g.ksize.width, g.ksize.height) <= kMaxBatchTaps;
            KernelEntry* e = nullptr;
            if (deviceBuilt && !seen(h))
            {
                marks.push_back(h);
                callLocal_.emplace_back();
                e = &callLocal_.back();
                recent[h % kRecent] = e;
            }
            else
            {
                it = cache_.emplace(k, KernelEntry()).first;
                added.push_back(it);
                e = &it->second;
                e->resolvedIn = call;
            }
            e->args = k;
            if (deviceBuilt)
            {
                // Its shape without its taps on the host.
                e->deviceTaps = true;
                e->ksize = g.ksize;
                e->sigmaX = g.sigmaX;
                e->sigmaY = g.sigmaY;
                e->shape = filterShape(g.ksize, kernelTapsBelowOne(depth, g.ksize.width, g.sigmaX),
                                       kernelTapsBelowOne(depth, g.ksize.height, g.sigmaY), filter_.srcType, filter_.dstType,
                                       filter_.rowBorder, filter_.columnBorder);
            }
            else
            {
                e->host.reset(new HostKernel);
                hostBuilt.push_back(e);
            }
            out[i] = e;
        }
        // New kernels' taps (cv::getGaussianKernel's bits in hardware doubles, gaussian_taps.hpp).
        forKernels(hostBuilt.size(), [&](const Range& r) {
            for (int j = r.start; j < r.end; j++)
            {
                KernelEntry& e = *hostBuilt[j];
                e.host->taps = filterTaps(filter_.srcType, e.args.ksize, e.args.sigmaX, e.args.sigmaY);
                e.shape = filterShape(e.host->taps, filter_.srcType, filter_.dstType, filter_.rowBorder, filter_.columnBorder);
            }
        });
    }
    catch (...)
    {
        for (Cache::iterator it : added)
            cache_.erase(it);
        callLocal_.clear();
        throw;
    }
    for (uint64_t h : marks)
        seen_[h & (kSeenSlots - 1)] = h | 1;
    if (!added.empty())
        keepWithinBound();
    return out;
}

bool BatchKernels::seen(uint64_t h) const
{
    return seen_[h & (kSeenSlots - 1)] == (h | 1);
}

/** Past the bound, the cache keeps only the kernels of the last call (one pass; the others'
 * nodes are freed, the call's stay where they are). */
void BatchKernels::keepWithinBound()
{
    if (cache_.size() <= kMaxCached)
        return;
    for (auto it = cache_.begin(); it != cache_.end();)
        it = it->second.resolvedIn == resolves_ ? std::next(it) : cache_.erase(it);
}

const PathChoice* BatchKernels::choiceFor(KernelEntry* k, const PathQuery& q, const GaussianPaths::DeviceFacts& facts,
                                          const GaussianPaths::Options& options)
{
    const int unit = q.unitRowOrColumn ? 1 : 0, inside = q.dstInSrcAllocation ? 1 : 0;
    const PathChoice*& c = k->choice[unit][inside];
    if (c)
        return c;
    if (k->deviceTaps)
    {
        const ChoiceKey key{k->shape.rx, k->shape.ry, k->shape.horizontalTapsBelowOne, k->shape.verticalTapsBelowOne, unit, inside};
        auto it = choices_.find(key);
        if (it == choices_.end())
            it = choices_.emplace(key, choosePath(q, facts, options)).first;
        c = &it->second;
    }
    else
    {
        PathChoice& h = k->host->choice[unit][inside];   // every kernel whose taps the host builds has its host part
        h = choosePath(q, facts, options);
        c = &h;
    }
    return c;
}

/** createGaussianBlur's checks of one image's kernel, the message naming the image. */
void BatchKernels::checkKernel(const KernelArgs& k, size_t i, const char* f) const
{
    static const ArgumentNames names{"", "srcType", "dstType", "rowBorderMode", "columnBorderMode"};
    try
    {
        checkArguments(filter_.srcType, filter_.dstType, k.ksize, k.sigmaX, k.sigmaY, filter_.rowBorder, filter_.columnBorder,
                       names);
    }
    catch (const cv::Exception& e)
    {
        // The checks' messages start with "<function>: " (here empty).
        const std::string what = e.err.compare(0, 2, ": ") == 0 ? e.err.substr(2) : e.err;
        CV_Error_(e.code, ("%s: image %zu: %s", f, i, what.c_str()));
    }
}

}}} // namespace cv::cuda::gaussian
