// What every C++ and CUDA benchmark here shares: the table's sigmas and kernel-size rule, and the
// timing loops (warm-up, then the median of timed calls). Used by gaussian_bench.cu,
// npp_gaussian_bench.cu and the OpenCV perf tests (perf_*.cpp, whose own timing is OpenCV's
// harness: they take the table and the host loop only).
//
// Standard C++ and the CUDA runtime only, no OpenCV: npp_gaussian_bench.cu links NPP and nothing of
// OpenCV (both benchmarks are targets of the standalone build, CMakeLists.txt). The Python
// benchmarks restate the kernel-size rule (perf/python_peers_bench.py, ksize_for).
#ifndef CUDAIMAGE_PERF_BENCH_SUPPORT_HPP
#define CUDAIMAGE_PERF_BENCH_SUPPORT_HPP

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// Exits with the failing call and CUDA's message: a benchmark has nothing to report after an error.
#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

namespace cudaimage_bench {

// The sigmas of every table (perf/results/, doc/performance.md).
constexpr double kTableSigmas[] = {1, 2, 5, 10, 30};

// The kernel size of every table: 2*round(3 sigma)+1, rounding half away from zero, used for every
// depth so that all rows of a table run the same kernel (7, 13, 31, 61 and 181 for kTableSigmas).
// At those sigmas it is the size OpenCV derives from sigma for 8-bit images
// (cv::cuda::gaussianKernelSize(sigma, CV_8U), cvRound(6 sigma + 1) | 1); at sigmas whose 3 sigma
// ends in .5 the two round differently.
inline int tableKsize(double sigma)
{
    return 2 * (int)std::lround(3 * sigma) + 1;
}

// The median of the samples (the upper middle one of an even count).
template <typename T>
T medianOf(std::vector<T> samples)
{
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

// Milliseconds of device work on one stream, by CUDA events: `warmup` untimed calls, then `reps`
// calls each bracketed by two events on the stream (waited for one at a time), and their median.
class EventTimer
{
public:
    explicit EventTimer(cudaStream_t stream) : stream_(stream)
    {
        CHECK_CUDA(cudaEventCreate(&start_));
        CHECK_CUDA(cudaEventCreate(&stop_));
    }
    ~EventTimer()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    template <class F>
    double median(F run, int reps, int warmup = 3)
    {
        return medianBehind([] {}, run, reps, warmup);
    }

    // As median(), with `hold` enqueued before each timed call (a kernel that keeps the stream busy
    // while the host enqueues the events and `run`): the events then bracket the device work only.
    template <class H, class F>
    double medianBehind(H hold, F run, int reps, int warmup = 3)
    {
        for (int i = 0; i < warmup; i++) run();
        std::vector<float> ms;
        for (int i = 0; i < reps; i++)
        {
            hold();
            CHECK_CUDA(cudaEventRecord(start_, stream_));
            run();
            CHECK_CUDA(cudaEventRecord(stop_, stream_));
            CHECK_CUDA(cudaEventSynchronize(stop_));
            float t = 0;
            CHECK_CUDA(cudaEventElapsedTime(&t, start_, stop_));
            ms.push_back(t);
        }
        return medianOf(ms);
    }

private:
    cudaStream_t stream_;
    cudaEvent_t start_, stop_;
};

// Milliseconds of host wall time (steady clock): `warmup` untimed calls, then the median of `reps`
// timed ones. For calls that return when their work is done (CPU filters, a batch that waits for
// its results).
template <class F>
double hostMedianMs(F run, int reps, int warmup = 1)
{
    for (int i = 0; i < warmup; i++) run();
    std::vector<double> ms;
    for (int i = 0; i < reps; i++)
    {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return medianOf(ms);
}

} // namespace cudaimage_bench

#endif
