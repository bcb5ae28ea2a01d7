// The Gaussian kernel paths by name, as positions in the list the library walks
// (src/gaussian_paths.hpp: GaussianPaths), for tests that expect a particular path.
#ifndef CUDAIMAGE_TEST_GAUSSIAN_PATH_IDS_HPP
#define CUDAIMAGE_TEST_GAUSSIAN_PATH_IDS_HPP

#include "../src/gaussian_paths.hpp"

namespace cudaimage_test { namespace path {

typedef cv::cuda::gaussian::GaussianPaths List;
constexpr int TensorCore = List::indexOf<cv::cuda::gaussian::TensorCorePath>();
constexpr int Fused = List::indexOf<cv::cuda::gaussian::FusedPath>();
constexpr int FusedLarge = List::indexOf<cv::cuda::gaussian::FusedLargePath>();
constexpr int TwoPass = List::indexOf<cv::cuda::gaussian::TwoPassPath>();
static_assert(TensorCore >= 0 && Fused >= 0 && FusedLarge >= 0 && TwoPass == List::kCount - 1,
              "every path is in the list, the two-pass fallback last");

}} // namespace cudaimage_test::path

#endif
