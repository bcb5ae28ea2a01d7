// The vocabulary every Gaussian kernel path speaks (src/paths/<name>/<name>_path.hpp, which include
// only this header and their own): what a path is asked (PathQuery), what it answers (Verdict),
// what it prepares from (FilterTaps), and the decision the list of paths reaches (PathChoice, src/gaussian_paths.hpp). Pure host code, no CUDA
// call: the tests check every rule without a GPU.
#ifndef CUDAIMAGE_GAUSSIAN_PATH_QUERY_HPP
#define CUDAIMAGE_GAUSSIAN_PATH_QUERY_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime_api.h>
#include "opencv2/core/hal/interface.h"
#include "gaussian_blur_call.hpp"
#include "gaussian_kernel_bits.hpp"
#include "gaussian_taps.hpp"
#include "gaussian_tile.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** Every fixed-point tap is below 1.0: fits its fraction bits (8U a byte, 16U two bytes), as byte
 * products (DP4A, IMMA) need; a tap of 1.0 is a direction with all its weight on one tap. True for
 * the depths without fixed-point taps. */
inline bool tapsBelowOne(int depth, const std::vector<uint32_t>& fixedTaps)
{
    const int bits = fixedPointBits(depth);
    return bits == 0 || std::all_of(fixedTaps.begin(), fixedTaps.end(), [bits](uint32_t t) { return t < (1u << bits); });
}

/** What a filter gives every path to prepare its taps from, once, at creation (host only). */
struct FilterTaps
{
    int depth = CV_8U;
    int channels = 1;
    Taps1D x, y;
};

/** One direction's taps as a path's tap preparation reads them, on the host (a Taps1D's arrays)
 * or on the device (the batch tap maker's shared memory): `size` (odd) real taps and, for the
 * fixed-point depths, as many fixed-point ones. */
struct TapSpan
{
    const double* real = nullptr;
    const uint32_t* fixed = nullptr;
    int size = 0;
    CUDAIMAGE_HOST_DEVICE int radius() const { return size / 2; }
};

/** A kernel's taps in both directions, with the filter's depth and channels: what every unit's
 * tap preparation takes (FilterTaps on the host, the tap maker's arrays on the device). */
struct KernelTaps
{
    int depth = CV_8U;
    int channels = 1;
    TapSpan x, y;
    CUDAIMAGE_HOST_DEVICE int radius() const { return x.radius() > y.radius() ? x.radius() : y.radius(); }
};

inline TapSpan spanOf(const Taps1D& t)
{
    TapSpan s;
    s.real = t.real.data();
    s.fixed = t.fixed.empty() ? nullptr : t.fixed.data();
    s.size = static_cast<int>(t.real.size());
    return s;
}

inline KernelTaps spansOf(const FilterTaps& f)
{
    KernelTaps k;
    k.depth = f.depth;
    k.channels = f.channels;
    k.x = spanOf(f.x);
    k.y = spanOf(f.y);
    return k;
}

/** 8U fixed-point taps of `t` centred in out[0 .. 2R], zero outside; false when one does not fit
 * a byte (a 1-tap or degenerate kernel has a tap of 256), which rules byte products (DP4A, IMMA)
 * out. */
CUDAIMAGE_HOST_DEVICE inline bool centredByteTaps(const TapSpan& t, int R, uint32_t* out)
{
    const int r = t.radius();
    for (int m = 0; m <= 2 * R; m++)
        out[m] = 0;
    bool fits = true;
    for (int m = 0; m <= 2 * r; m++)
    {
        out[R - r + m] = t.fixed[m];
        fits = fits && t.fixed[m] <= 255;
    }
    return fits;
}

/** Where a batched unit's taps of one kernel go and which kernel instance they need (images of
 * one instance share a launch): known from the kernel's size alone, so that the device can build
 * the taps (src/cuda/batch_tap_maker.cuh) without the host computing them. */
struct BatchTapsLayout
{
    int instance = 0;
    int bytes = 0;    //!< the struct the batched kernel reads
};

/** The most taps of one direction the batched kernels take (radius 128), and so the tap maker. */
constexpr int kMaxBatchTaps = 2 * 128 + 1;

/** One kernel whose taps the device builds (src/cuda/batch_tap_maker.cuh): its size, its sigmas
 * (host values, or indices into the launch's device arrays) and where its unit's struct goes. */
struct BatchTapJob
{
    unsigned char* out = nullptr;   //!< device memory, 16-byte aligned, `bytes` long
    int bytes = 0;
    int ksizeX = 0, ksizeY = 0;     //!< odd, at most kMaxBatchTaps
    double sigmaX = 0, sigmaY = 0;  //!< used where the index is negative; <= 0 as OpenCV's rules say
    int sigmaIndexX = -1, sigmaIndexY = -1;
};

/** The jobs of one unit and depth, in device memory, and the device sigma arrays they index. */
struct BatchTapJobs
{
    const BatchTapJob* jobs = nullptr;
    int count = 0;
    int depth = CV_8U;
    int channels = 1;
    const void* sigmaX = nullptr;   //!< device arrays of CV_32F or CV_64F values, or nullptr
    const void* sigmaY = nullptr;
    int sigmaXType = CV_64F, sigmaYType = CV_64F;
    SoftdoubleExpConstants exp;     //!< softdoubleExpConstants()
};

/** What the choice of a path depends on: the filter, the call's images, the device. */
struct PathQuery
{
    int depth = CV_8U;              //!< source depth
    int channels = 1;               //!< 1 to 4
    int rx = 0, ry = 0;             //!< the filter's radii (ksize / 2)
    bool floatOutput = false;       //!< dst is CV_32F from a source of another depth
    bool horizontalTapsBelowOne = true; //!< tapsBelowOne() of the horizontal taps
    bool verticalTapsBelowOne = true;   //!< tapsBelowOne() of the vertical taps
    bool unitRowOrColumn = false;   //!< this image is one row or column that is not filtered across
    bool dstInSrcAllocation = false; //!< in place, or dst inside the source's allocation
    bool batch = false;             //!< one image of a batch: only batched paths (PathUnit::kBatched) and the last path take it
    size_t sharedMemOptIn = 0;      //!< the device's cudaDevAttrMaxSharedMemoryPerBlockOptin (bytes)
    int multiprocessors = 0;        //!< the device's SMs (0: unknown)
    int computeCapability = 90;     //!< 10 * major + minor: the row of a path's tuning table

    int radius() const { return std::max(rx, ry); }
};

/** A path's answer to a query: whether it takes the call, why (or why not), and the launch
 * geometry it would use. */
struct Verdict
{
    bool accepted = false;
    const char* reason = "";
    int tileOutputs = 0;      //!< single-kernel paths: output elements per block row
    size_t sharedBytes = 0;   //!< single-kernel paths: dynamic shared memory per block
    int residentBlocks = 0;   //!< persistent grids: blocks the grid holds; 0: one block per tile
    int tileRows = 0;         //!< persistent grids: output rows of a tile
    int forcedStripRows = 0;  //!< the fused kernel's 8U strip rows forced by the filter's options (0: its rule)
    bool warpTiles = false;   //!< the fused batch kernel's warp tiles for narrow launches (the filter's options)

    static Verdict decline(const char* why) { Verdict v; v.reason = why; return v; }
    static Verdict accept(const char* why, int tileOutputs = 0, size_t sharedBytes = 0, int residentBlocks = 0, int tileRows = 0)
    {
        Verdict v;
        v.accepted = true;
        v.reason = why;
        v.tileOutputs = tileOutputs;
        v.sharedBytes = sharedBytes;
        v.residentBlocks = residentBlocks;
        v.tileRows = tileRows;
        return v;
    }

    /** Persistent grids: the tiles of an image of `width` x `height` pixels of `channels`. */
    long long tiles(int width, int height, int channels) const
    {
        const long long elements = static_cast<long long>(width) * channels;
        return (elements + tileOutputs - 1) / tileOutputs * ((height + tileRows - 1) / tileRows);
    }
};

/** The decision for one call: the path (its position in the list and its name), its verdict, and
 * why each path before it declined. */
struct PathChoice : Verdict
{
    static constexpr int kMaxPaths = 8;
    int index = -1;           //!< position of the path in the list (src/gaussian_paths.hpp)
    const char* name = "";    //!< the path's name
    int radius = 0;           //!< R = max(rx, ry)
    int multiprocessors = 0;  //!< the query's (launchers size their strips by it)
    const char* declined[kMaxPaths] = {}; //!< declined[i]: why path i did not take the call (i < index)
};

/** A batched path's taps for one kernel: the bytes of the struct its batched kernel reads from
 * device memory, and the kernel instance they need (images of one instance share a launch). */
struct BatchTaps
{
    int instance = 0;
    std::vector<unsigned char> bytes;
    void assign(const void* data, size_t size)
    {
        const unsigned char* b = static_cast<const unsigned char*>(data);
        bytes.assign(b, b + size);
    }
    /** A tap struct's bytes, instance 0 (a kernel that takes every radius). */
    template <class T>
    static BatchTaps of(const T& taps)
    {
        BatchTaps b;
        b.assign(&taps, sizeof taps);
        return b;
    }
};

/** What a path unit may declare beyond the shared query, gathered by the list of paths
 * (src/gaussian_paths.hpp), so that the code around the paths names none of them:
 *   DeviceFacts deviceFacts(int computeCapability)   facts about the current device (its tuning
 *                                                     row, what its loaded code can do), queried
 *                                                     once per device;
 *   Options options()                                settings read when a filter is created (an
 *                                                     environment switch).
 * A default-constructed DeviceFacts describes an sm_90 on which nothing beyond the CUDA-core
 * kernels is known to run (the pure tests of the rules start from it). Units that need neither
 * inherit these empty ones. */
struct PathUnit
{
    /** Whether the unit has a batched kernel (BatchTaps batchTaps(const Taps&, int depth) and
     * launchBatch(const BatchLaunch&, cudaStream_t)): the images of a batch that share its kernel
     * instance are blurred by one launch, blockIdx.z the image. */
    static constexpr bool kBatched = false;
    /** The names its kernels launch under (launchChecked), for the tests' launch record. */
    static constexpr const char* kKernel = "";
    static constexpr const char* kBatchKernel = "";
    struct DeviceFacts {};
    struct Options {};
    static DeviceFacts deviceFacts(int) { return DeviceFacts(); }
    static Options options() { return Options(); }
};

/** The limits every single-kernel path shares (no scratch image: it reads rows other blocks
 * write, and its taps hold the filter's kernel in both directions), or nullptr when none applies. */
inline const char* singleKernelLimit(const PathQuery& q)
{
    // A single row or column (not filtered across) uses a one-tap kernel in one direction, which
    // the two-pass kernels take at run time. Such an image is one row or column: no speed to win.
    if (q.unitRowOrColumn)
        return "one row or column, not filtered across";
    // A block reads 2R halo rows and columns that its neighbours overwrite when dst is (in) src's
    // memory; the two-pass path reads the whole source into scratch before it writes dst.
    if (q.dstInSrcAllocation)
        return "dst in the source's allocation (in place)";
    if (q.radius() < 1)
        return "radius 0 (1x1 kernel)";
    return nullptr;
}

/** The largest radius at which a single-kernel tile keeps at least one item of `depth` outputs
 * after its halo for `cn` channels (Tile::kMaxR when every radius does). */
template <class Tile>
constexpr int lastRadiusWithTile(int cn, int depth)
{
    int last = Tile::kMinR - 1;
    for (int r = Tile::kMinR; r <= Tile::kMaxR; r++)
        if (tile::tileOutputs<Tile>(r, cn) >= tile::itemOutputs(depth))
            last = r;
        else
            break;
    return last;
}

/** A unit's decline and accept reasons, built once from its tile's constants (Tile::kLabel,
 * kMinR, kMaxR, halo()), so that a changed limit changes its message. */
template <class Tile>
struct TileReasons
{
    static const char* range()
    {
        static const std::string s = "radius " + std::to_string(Tile::kMinR) + ".." + std::to_string(Tile::kMaxR);
        return s.c_str();
    }
    static const char* below()
    {
        static const std::string s = "radius below " + std::to_string(Tile::kMinR);
        return s.c_str();
    }
    static const char* above()
    {
        static const std::string s = "radius above " + std::to_string(Tile::kMaxR);
        return s.c_str();
    }
    static const char* tooLarge()
    {
        static const std::string s = std::string(Tile::kLabel) + " tile exceeds the device's shared memory";
        return s.c_str();
    }
    /** For `cn` channels (1..4) and a source depth. */
    static const char* noRoom(int cn, int depth)
    {
        static const std::vector<std::string> table = [] {
            std::vector<std::string> t;
            for (int d = 0; d < 8; d++)
                for (int c = 1; c <= 4; c++)
                    t.push_back(std::string(Tile::kLabel) + " tile has no room after the halo (" + std::to_string(c) +
                                " channels: radius above " + std::to_string(lastRadiusWithTile<Tile>(c, d)) + ")");
            return t;
        }();
        return table[(depth & 7) * 4 + (std::min(std::max(cn, 1), 4) - 1)].c_str();
    }
};

/** The rule of the CUDA-core single kernels (src/paths/fused, src/paths/fused_large), one rule over
 * their tiles: singleKernelLimit(); the radius within the tile's range; a tile of at least one item
 * after the halo; the tile's shared memory within the device's. (8U vertical sums are DP4A byte
 * products; the one column kernel whose tap does not fit a byte, all the weight on the centre, is
 * prepared as 128 with the horizontal taps doubled: the same sums, exactly.) Tile gives kLabel,
 * kMinR, kMaxR and halo(); the reasons are TileReasons<Tile>. */
template <class Tile>
Verdict acceptCudaCoreTile(const PathQuery& q)
{
    typedef TileReasons<Tile> Why;
    if (const char* limit = singleKernelLimit(q))
        return Verdict::decline(limit);
    const int R = q.radius();
    if (R < Tile::kMinR)
        return Verdict::decline(Why::below());
    if (R > Tile::kMaxR)
        return Verdict::decline(Why::above());
    const int outputs = tile::tileOutputs<Tile>(R, q.channels);
    if (outputs < tile::itemOutputs(q.depth))
        return Verdict::decline(Why::noRoom(q.channels, q.depth));
    const size_t bytes = tile::sharedBytes<Tile>(q.depth);
    if (bytes > q.sharedMemOptIn)
        return Verdict::decline(Why::tooLarge());
    return Verdict::accept(Why::range(), outputs, bytes);
}

}}} // namespace cv::cuda::gaussian

#endif
