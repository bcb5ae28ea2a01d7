// The Gaussian blur's kernel paths, in priority order, and the choice among them. Each path is one
// unit in its own folder (src/paths/<name>/) that owns its numbers (tile sizes, radius range,
// per-architecture tuning) and speaks the vocabulary of gaussian_path_query.hpp:
//   kName                              its name,
//   accepts(query, deviceFacts, opts)  whether it takes a call, and why not (pure host code),
//   Taps prepare(filterTaps)           its taps, built once per filter on the host,
//   launch(call, taps, choice, s)      its kernels on a stream,
// and, where it needs them (PathUnit gives empty ones), DeviceFacts deviceFacts(cc) and
// Options options(). choosePath() asks the units in order and the first that accepts takes the
// call. Adding a path is a folder and an entry in GaussianPaths below (test_gaussian_path_list.cpp
// adds a test-only one). Header-only and pure, so the tests compile the same rules as the library
// (whose internal symbols are hidden) and check every boundary without a GPU.
//
//   path         radius R = max(rx, ry)                               one launch, no scratch
//   tensor-core  8U: its tuning row's minimum .. TensorCoreTile::kMaxR  yes
//   tensor-core-16u  16U, one channel: its tuning row's minimum .. 128  yes
//   tensor-core-32f  32F, one channel: its tuning row's minimum .. 128  yes
//   fused        FusedTile::kMinR .. kMaxR (template)                   yes
//   fused-large  FusedLargeTile::kMinR .. kMaxR (run time)              yes
//   two-pass     any, in place                                         no: a stream-ordered scratch image
#ifndef CUDAIMAGE_GAUSSIAN_PATHS_HPP
#define CUDAIMAGE_GAUSSIAN_PATHS_HPP

#include "gaussian_path_list.hpp"
#include "paths/tensor_core/tensor_core_path.hpp"
#include "paths/tensor_core_16u/tensor_core_16u_path.hpp"
#include "paths/tensor_core_32f/tensor_core_32f_path.hpp"
#include "paths/fused/fused_path.hpp"
#include "paths/fused_large/fused_large_path.hpp"
#include "paths/two_pass/two_pass_path.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The paths, highest priority first. */
typedef PathList<TensorCorePath, TensorCore16UPath, TensorCore32FPath, FusedPath, FusedLargePath, TwoPassPath> GaussianPaths;

// Neighbouring radius ranges, stated here once: the large-radius kernel starts where the fused
// kernel's template instances end, and the single kernels end together (the tensor-core path
// gives 8U filters back to the CUDA-core kernels below its tuned minimum, and their taps are of
// the same size).
static_assert(FusedLargeTile::kMinR == FusedTile::kMaxR + 1, "the fused kernels' radius ranges meet");
static_assert(TensorCoreTile::kMinR <= FusedTile::kMinR && TensorCoreTile::kMaxR == FusedLargeTile::kMaxR &&
                  TensorCore16UTile::kMinR <= FusedTile::kMinR && TensorCore16UTile::kMaxR == FusedLargeTile::kMaxR &&
                  TensorCore32FTile::kMinR <= FusedTile::kMinR && TensorCore32FTile::kMaxR == FusedLargeTile::kMaxR,
              "the tensor-core paths' radius ranges are the CUDA-core kernels'");

/** The path for one call on a device (GaussianPaths::deviceFacts; by default an sm_90 on which only
 * the CUDA-core kernels are known to run), with a filter's options (by default the switches'
 * defaults). */
inline PathChoice choosePath(const PathQuery& q, const GaussianPaths::DeviceFacts& facts = GaussianPaths::DeviceFacts(),
                             const GaussianPaths::Options& options = GaussianPaths::Options())
{
    return GaussianPaths::choose(q, facts, options);
}

}}} // namespace cv::cuda::gaussian

#endif
