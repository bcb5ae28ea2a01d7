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

} // namespace

size_t KernelArgsHash::operator()(const KernelArgs& k) const
{
    uint64_t h = (static_cast<uint64_t>(static_cast<uint32_t>(k.ksize.width)) << 32) ^ static_cast<uint32_t>(k.ksize.height);
    for (uint64_t b : {hashBits(k.sigmaX), hashBits(k.sigmaY)})
        h = (h ^ b) * 0x9E3779B97F4A7C15ull + (h >> 29);
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
    // Kernels first seen in this call go into the cache at once (one lookup, one node each) and
    // leave it again if a later image is refused; those whose taps the host builds, in order.
    std::vector<Cache::iterator> added;
    std::vector<KernelEntry*> hostBuilt;
    const uint64_t call = ++resolves_;
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
            auto it = finite ? cache_.find(k) : cache_.end();
            if (it == cache_.end())
            {
                checkKernel(k, i, f);
                it = cache_.emplace(k, KernelEntry()).first;
                added.push_back(it);
                KernelEntry& e = it->second;
                e.args = k;
                const GaussianShape g = resolveShape(depth, k.ksize, k.sigmaX, k.sigmaY);
                // A kernel the device can build: its shape without taps on the host.
                if (filter_.deviceTaps && std::max(g.ksize.width, g.ksize.height) <= kMaxBatchTaps &&
                    tapsSurelyBelowOne(depth, g.ksize.width, g.sigmaX) && tapsSurelyBelowOne(depth, g.ksize.height, g.sigmaY))
                {
                    e.deviceTaps = true;
                    e.ksize = g.ksize;
                    e.sigmaX = g.sigmaX;
                    e.sigmaY = g.sigmaY;
                    e.shape = filterShape(g.ksize, true, true, filter_.srcType, filter_.dstType, filter_.rowBorder,
                                          filter_.columnBorder);
                }
                else
                {
                    e.host.reset(new HostKernel);
                    hostBuilt.push_back(&e);
                }
            }
            it->second.resolvedIn = call;
            out[i] = &it->second;
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
        throw;
    }
    if (!added.empty())
        keepWithinBound();
    return out;
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
