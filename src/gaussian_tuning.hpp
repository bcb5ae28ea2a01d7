// The shape of a kernel path's per-architecture tuning table and its lookup. Each path that has
// run-time thresholds keeps its own table in its folder (src/paths/<name>/<name>_tuning.hpp), each
// number beside the measurement that set it (doc/design-record.md#tuning-tables holds the runs); tile sizes are
// compile-time constants of each path's kernels and live with its tile (<name>_path.hpp).
//
// A row names its GPUs, whether it was measured on them and the basis of its numbers (the GPU,
// image, type and times that set them; a row that repeats another architecture's values is not
// `measured` and says so until a run on that GPU sets them). A table ends with its default row
// (computeCapability 0), which any other device gets.
#ifndef CUDAIMAGE_GAUSSIAN_TUNING_HPP
#define CUDAIMAGE_GAUSSIAN_TUNING_HPP

#include <cstddef>

namespace cv { namespace cuda { namespace gaussian { namespace tuning {

/** A unit whose choice turns on a radius: from which radius a filter takes it, for one channel
 * and for 2-4 channels (a one-channel unit gives both the same). */
struct RadiusThreshold
{
    int computeCapability;   //!< 10 * major + minor; 0: the default row
    const char* gpus;
    bool measured;           //!< false: the values repeat another architecture's, unmeasured here
    int minRadius1;          //!< one channel
    int minRadiusN;          //!< 2 to 4 channels
    const char* basis;       //!< the GPU, image, type and times that set the values

    constexpr int minRadius(int channels = 1) const { return channels == 1 ? minRadius1 : minRadiusN; }
};

/** The row of `rows` for a device of compute capability `cc`, else the table's last (default) row. */
template <class Row, std::size_t N>
constexpr const Row& forArch(const Row (&rows)[N], int cc)
{
    static_assert(N > 0, "a table has at least its default row");
    for (const Row& r : rows)
        if (r.computeCapability == cc)
            return r;
    return rows[N - 1];
}

}}}} // namespace cv::cuda::gaussian::tuning

#endif
