// Kernel path "two-pass": every depth, border and radius, in place too; a horizontal pass into a
// stream-ordered scratch image, then a vertical pass (two_pass_kernel.cu). The fallback: it
// accepts every query, so it is last in the list (src/gaussian_paths.hpp). This header is the
// path's unit: its rule, its taps, its launch descriptor and its launcher.
#ifndef CUDAIMAGE_PATHS_TWO_PASS_PATH_HPP
#define CUDAIMAGE_PATHS_TWO_PASS_PATH_HPP

#include "../../gaussian_path_query.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The call plus the two passes' device memory. Pass 1 (rows) filters, for each j in
 * [0, rows + 2*ry), whole-image row mapRow(roiY - ry + j) horizontally into scratch row j (a zero
 * row where the vertical border is constant). Pass 2 (columns) filters scratch rows [y, y + 2*ry]
 * into output row y, so it has no border logic and works in place (the source is fully read before
 * the destination is written). */
struct TwoPassPlan : BlurCall
{
    unsigned char* scratch = nullptr;  //!< (height + 2*ry) rows of width*channels work elements
    size_t scratchStep = 0;
    const void* tapsX = nullptr;       //!< 2*rx+1 taps on the device (uint32 fixed or float/double)
    const void* tapsY = nullptr;       //!< 2*ry+1 taps
};

/** Bytes of one scratch element for a source depth (the pass-1 result type). */
size_t scratchElemSize(int depth);

/** The taps as the host holds them: x, y and a one-tap kernel, each in the type the kernels read
 * (uint32 fixed point for 8U/16U, float for 16S/32F, double for 64F), at 16-byte aligned offsets
 * of one block of bytes, which each call copies into its own device memory. */
struct TwoPassTaps
{
    std::vector<unsigned char> bytes;
    size_t x = 0, y = 0, unit = 0;   //!< offsets in `bytes`
};

struct TwoPassPath : PathUnit
{
    static constexpr const char* kName = "two-pass";
    static constexpr const char* kKernel = "rowPass";   //!< its (first) kernel, as launches name it
    typedef TwoPassTaps Taps;

    /** Every query (the fallback). Its reason is left empty: the choice names why the path before
     * it declined. */
    static Verdict accepts(const PathQuery&, const DeviceFacts&, const Options&) { return Verdict::accept(""); }

    static Taps prepare(const FilterTaps& f);

    /** Enqueues the two passes on `stream`; never synchronises the host or the device, and
     * allocates nothing that outlives the call: the taps and the scratch image live in one
     * stream-ordered allocation of the device's scratch pool (cudaMallocFromPoolAsync before,
     * cudaFreeAsync after, both on `stream`), so the call can be captured in a CUDA graph (without
     * a pool, a captured call is refused: stream_scratch.hpp). In place too (the source is fully
     * read by pass 1 before pass 2 writes). call.unitX/unitY: a one-tap kernel in that direction
     * (call.rx/ry are then 0). Throws cv::Exception on allocation and launch errors. */
    static void launch(const BlurCall& call, const Taps& taps, const PathChoice& choice, cudaStream_t stream);
};

}}} // namespace cv::cuda::gaussian

#endif
