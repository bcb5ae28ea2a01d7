// The Gaussian kernel paths by name, as positions in the list the library walks
// (src/gaussian_paths.hpp: GaussianPaths), and the boundaries the tests check, taken from the
// units' own tiles and the library's tile arithmetic (radius ranges, outputs after the halos,
// shared memory, tuning rows): a changed limit moves the boundaries every test checks, with no
// edit to the tests.
#ifndef CUDAIMAGE_TEST_GAUSSIAN_PATH_IDS_HPP
#define CUDAIMAGE_TEST_GAUSSIAN_PATH_IDS_HPP

#include <algorithm>
#include <tuple>
#include <vector>
#include "../src/gaussian_paths.hpp"

namespace cudaimage_test { namespace path {

namespace gs = cv::cuda::gaussian;
typedef gs::GaussianPaths List;
constexpr int TensorCore = List::indexOf<gs::TensorCorePath>();
constexpr int TensorCore16U = List::indexOf<gs::TensorCore16UPath>();
constexpr int TensorCore32F = List::indexOf<gs::TensorCore32FPath>();
constexpr int Fused = List::indexOf<gs::FusedPath>();
constexpr int FusedLarge = List::indexOf<gs::FusedLargePath>();
constexpr int TwoPass = List::indexOf<gs::TwoPassPath>();
static_assert(TensorCore >= 0 && TensorCore16U >= 0 && TensorCore32F >= 0 && Fused >= 0 && FusedLarge >= 0 && TwoPass == List::kCount - 1,
              "every path is in the list, the two-pass fallback last");

typedef gs::FusedPath::Tile FusedTile;
typedef gs::FusedWarpTile FusedWarpTile;
typedef gs::FusedLargePath::Tile LargeTile;

/** The last radius of Tile's range whose block keeps one item after its two halos for `cn`
 * channels (Tile::kMinR - 1 if none does): the library's own rule, under the tests' name. */
template <class Tile>
constexpr int lastRadiusOf(int cn, int depth) { return gs::lastRadiusWithTile<Tile>(cn, depth); }

/** The CUDA-core path a separate-dst call of radius r takes on a device with `smem` bytes of
 * opt-in shared memory per block (no tensor cores, byte taps where 8U needs them): an oracle, the
 * rule modelled here from the tiles' facts rather than asked of the units. */
inline int cudaCorePath(int depth, int cn, int r, size_t smem)
{
    if (r >= FusedTile::kMinR && r <= lastRadiusOf<FusedTile>(cn, depth) && gs::tile::sharedBytes<FusedTile>(depth) <= smem)
        return Fused;
    if (r >= LargeTile::kMinR && r <= lastRadiusOf<LargeTile>(cn, depth) && gs::tile::sharedBytes<LargeTile>(depth) <= smem)
        return FusedLarge;
    return TwoPass;
}

/** The radii where the CUDA-core choice can change for a depth and channel count, with their
 * neighbours: each range's first and last radius, the last radius with a large-radius tile, and
 * one beyond each. */
inline std::vector<int> boundaryRadii(int depth, int cn)
{
    std::vector<int> r;
    for (int b : {FusedTile::kMinR, FusedTile::kMaxR, LargeTile::kMinR, lastRadiusOf<LargeTile>(cn, depth), LargeTile::kMaxR})
        for (int d : {-1, 0, 1})
            if (b + d >= 1)
                r.push_back(b + d);
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
}

/** The device facts of an architecture's row as the library would query them, with the
 * tensor-core kernel's code running or not (a build whose code for the device is sm_75's). */
inline List::DeviceFacts factsFor(int computeCapability, bool tensorCodeRuns = true)
{
    List::DeviceFacts f;
    std::get<TensorCore>(f).tuning = gs::tensorCoreTuning(computeCapability);
    std::get<TensorCore>(f).codeRuns = tensorCodeRuns;
    std::get<TensorCore16U>(f).tuning = gs::tensorCore16UTuning(computeCapability);
    std::get<TensorCore16U>(f).codeRuns = tensorCodeRuns;
    std::get<TensorCore32F>(f).tuning = gs::tensorCore32FTuning(computeCapability);
    std::get<TensorCore32F>(f).codeRuns = tensorCodeRuns;
    return f;
}

/** The query of a call of `depth` and `cn` channels with radii rx and ry, separate dst, on a device
 * with `smem` bytes of opt-in shared memory per block and `multiprocessors` SMs (0: unknown); the
 * other fields at their defaults (taps below one, not a batch, sm_90's tuning row). */
inline gs::PathQuery query(int depth, int cn, int rx, int ry, size_t smem, int multiprocessors = 0)
{
    gs::PathQuery q;
    q.depth = depth;
    q.channels = cn;
    q.rx = rx;
    q.ry = ry;
    q.sharedMemOptIn = smem;
    q.multiprocessors = multiprocessors;
    return q;
}

/** A filter's options with the tensor-core switch at `mode`. */
inline List::Options optionsWith(gs::TensorCoreMode mode)
{
    List::Options o;
    std::get<TensorCore>(o).mode = mode;
    std::get<TensorCore16U>(o).mode = mode;
    std::get<TensorCore32F>(o).mode = mode;
    return o;
}

}} // namespace cudaimage_test::path

#endif
