// The machinery of the differential fuzz (test/test_gaussian_fuzz.cpp): a random case of
// cv::cuda::createGaussianBlur drawn from (seed, index), its data, the kernel path it takes, its
// CPU oracles with their tolerances, and one run of it on the GPU compared with them.
// The test file's header says which oracle a case gets and how a failure is replayed.
#ifndef CUDAIMAGE_TEST_GAUSSIAN_FUZZ_CASE_HPP
#define CUDAIMAGE_TEST_GAUSSIAN_FUZZ_CASE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "opencv2/core.hpp"
#include "gaussian_path_ids.hpp"

namespace cudaimage_test { namespace fuzz {

const uint64_t kDefaultSeed = 20261202;
// Budget of one case in multiply-adds of the CPU oracle ((w+2rx)*(h+2ry)*cn*(kx+ky)); keeps a
// 10,000-case run to minutes on a 16-core CPU. Larger draws are redrawn.
const double kMaxWork = 2.5e8;
// Cases at most this big are also checked against the (slow, plain-loop) reference model.
const double kModelWork = 1.5e6;
// Largest image, in bytes per Mat.
const double kMaxBytes = 96.0 * (1 << 20);
// Opt-in shared memory per block of an sm_90 device: the path a case is described by.
const size_t kSm90SharedMem = 227 * 1024;

/** The environment variable `name` as a number (0x.. and 0.. accepted), `dflt` when unset or empty. */
uint64_t envU64(const char* name, uint64_t dflt);

/** splitmix64 finaliser: independent RNG streams per case. */
uint64_t mix(uint64_t x);

enum DataKind { DATA_RANDOM, DATA_EXTREMES, DATA_CONSTANT_MAX, DATA_GRADIENT, DATA_IMPULSES, DATA_KINDS };

// Streams: null stream; one stream; two streams, one filter alternately; two streams, two filters.
enum StreamMode { STREAM_NULL, STREAM_ONE, STREAM_TWO_ONE_FILTER, STREAM_TWO_TWO_FILTERS, STREAM_MODES };

struct FuzzCase
{
    uint64_t seed = 0;
    int index = 0;
    int depth = CV_8U, cn = 1;
    cv::Size size;            // the source (ROI) size
    cv::Size parentSize;
    cv::Rect roi;             // in the parent
    cv::Size ksize;           // as given to createGaussianBlur
    double sigmaX = 0, sigmaY = 0;
    int rowBorder = cv::BORDER_REPLICATE, columnBorder = cv::BORDER_REPLICATE;
    bool floatOutput = false; // dstType CV_32FC(cn) (else -1 or srcType)
    bool dstMinusOne = false; // dstType passed as -1
    bool inPlace = false;
    bool dstInParent = false; // dst is a ROI of a larger GpuMat whose guard band must stay intact
    bool oneShot = false;     // job 0 through cv::cuda::GaussianBlur (per-thread cached filter)
    int streamMode = STREAM_ONE;
    int data = DATA_RANDOM;

    int srcType() const { return CV_MAKETYPE(depth, cn); }
    int dstType() const { return floatOutput ? CV_MAKETYPE(CV_32F, cn) : srcType(); }
    bool isolated() const { return ((rowBorder | columnBorder) & cv::BORDER_ISOLATED) != 0; }
    bool sub() const { return !isolated() && roi != cv::Rect(0, 0, parentSize.width, parentSize.height); }
};

// ---- Drawing a case ---------------------------------------------------------------------------

/** Case `index` of `seed`: its own RNG, seeded from both, so a case is replayed alone. Sizes are
 * mostly small, biased to odd and primes, rarely up to 4096; kernels cover every path's radius
 * range and boundaries; draws over the work and memory budgets are redrawn. */
FuzzCase drawCase(uint64_t seed, int index);

/** The RNG of case `index`'s data (apart from drawCase's, so the data never shifts the draw). */
cv::RNG dataRngOf(uint64_t seed, int index);

/** The filter's kernel size: a zero size derived from sigma (sigmaY <= 0 means sigmaX). */
cv::Size filterKsize(const FuzzCase& c);

/** The kernel size the filter applies: a single row/column of an image seen as whole is not
 * filtered across unless a border is constant (OpenCV's rule). */
cv::Size resolvedKsize(const FuzzCase& c);

/** The kernel path the filter takes for a case (src/gaussian_paths.hpp) on a device with `smem`
 * bytes of opt-in shared memory per block, with the sm_90 row's facts. */
cv::cuda::gaussian::PathChoice pathOf(const FuzzCase& c, size_t smem);

/** The CPU oracle's multiply-adds for a case. */
double workOf(const FuzzCase& c);

/** One line naming everything drawn, and the path on an sm_90. */
std::string describe(const FuzzCase& c);

/** The environment that runs this case alone. */
std::string replayLine(const FuzzCase& c);

/** The radii where a path's range ends, and the first beyond each, for a channel count (8U). */
std::vector<int> coreBoundaries(int cn);

// ---- Data, oracles, comparison ----------------------------------------------------------------

/** The parent image of a case: random over the depth's range, or its data pattern. */
cv::Mat makeData(const FuzzCase& c, cv::RNG& rng);

double maxAbsOf(const cv::Mat& m);

/** Largest |expected - actual| allowed (the documented tolerances). */
double toleranceFor(const FuzzCase& c, double maxAbs);

struct Oracle
{
    cv::Mat expected;         // dst type, or 64F for float outputs of 16S/64F (compared in 64F)
    std::string how;
};

/** CPU cv::GaussianBlur where it expresses the case, else pad-blur-crop (the fixed-point sum in
 * 64F for a float output of 8U/16U). */
Oracle cpuOracle(const FuzzCase& c, const cv::Mat& parent);

/** The plain-loop reference model (referenceGaussianBlur) on the case. */
cv::Mat modelOracle(const FuzzCase& c, const cv::Mat& parent);

/** First element where |expected - actual| > tol, with a description; "" when none. */
std::string firstMismatch(const cv::Mat& expected, const cv::Mat& actual, double tol, bool flagNaN = true);

// ---- One case on the GPU ----------------------------------------------------------------------

/** Runs a case on its streams and filters and returns its failures ("" when it passed): dst
 * against the CPU oracle (and the model when small), the guard band of a dst ROI and the parent
 * outside an in-place ROI untouched. */
std::string runCase(const FuzzCase& c, cv::RNG& dataRng, int& modelChecks, std::string& oracleUsed);

}} // namespace cudaimage_test::fuzz

#endif
