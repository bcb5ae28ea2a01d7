// The shape of a kernel path's per-architecture tuning table and its lookup. Each path that has
// run-time thresholds keeps its own table in its folder (src/paths/<name>/<name>_tuning.hpp), each
// number beside the measurement that set it (doc/design-record.md#tuning-tables holds the runs); tile sizes are
// compile-time constants of each path's kernels and live with its tile (<name>_path.hpp).
//
// A row is any struct with `int computeCapability` (10 * major + minor; 0 for the default row),
// `const char* gpus`, `bool measured` and `const char* basis` (where its numbers come from: a row
// that repeats another architecture's values is not `measured` and says so until a run on that GPU
// sets them).
#ifndef CUDAIMAGE_GAUSSIAN_TUNING_HPP
#define CUDAIMAGE_GAUSSIAN_TUNING_HPP

#include <cstddef>

namespace cv { namespace cuda { namespace gaussian { namespace tuning {

/** The row of `rows` for a device of compute capability `cc`, else `fallback`. */
template <class Row, std::size_t N>
constexpr const Row& forArch(const Row (&rows)[N], const Row& fallback, int cc)
{
    for (const Row& r : rows)
        if (r.computeCapability == cc)
            return r;
    return fallback;
}

}}}} // namespace cv::cuda::gaussian::tuning

#endif
