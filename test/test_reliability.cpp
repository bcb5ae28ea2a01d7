// Reliability: concurrency, several streams, out-of-memory, leaks, unusual streams, released
// objects, and the no-device path.
//  - CudaImage_Reliability.*: need a CUDA device (CUDAIMAGE_REQUIRE_GPU()).
//  - CudaImage_NoDevice.*: run only where there is *no* usable device (CI): every call that needs
//    one raises cv::Exception instead of crashing.
//
//   CUDAIMAGE_STRESS_OPS=N   operations of the SyncedMat stress test (default 2000; 100000 for the
//                            long run)
//   CUDAIMAGE_LEAK_CYCLES=N  create/apply/release cycles of the leak test (default 200)
#include "test_precomp.hpp"

#include <atomic>
#include <functional>
#include <iostream>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

namespace opencv_test { namespace {

size_t freeDeviceMemory()
{
    Stream::Null().waitForCompletion();
    size_t total = 0, freeMem = 0;
    cv::cuda::DeviceInfo().queryMemory(total, freeMem);
    return freeMem;
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Concurrency: one SyncedMat, 8 threads, 4 streams, mixed host/device reads and writes.
//
// Every write stamps the whole image with a new value (a global counter) and publishes it as
// `latest`; every read checks that the image is uniform (not torn) and equals `latest` (not stale).
// The class serialises state changes but, as documented, writing through a view while another
// thread accesses the same storage is the caller's business: writers hold `rw` exclusively from
// their access until their write is enqueued (host writes: done); readers hold it shared from
// their access until their copy is enqueued (host reads: until checked). Device work is ordered by
// the object alone (events; no host synchronisation between a device write and the next reader).

enum StressOp { HOST_READ, DEVICE_READ, HOST_WRITE, HOST_READ_WRITE, DEVICE_WRITE, DEVICE_READ_WRITE, PREFETCH, OP_KINDS };
const char* opName(int op)
{
    static const char* n[] = {"host reads", "device reads", "host writes", "host read-writes",
                              "device writes", "device read-writes", "prefetches"};
    return n[op];
}

// "" when m is uniformly `expected`; otherwise what is wrong.
std::string checkStamp(const Mat& m, int expected, int maxWritten)
{
    double lo = 0, hi = 0;
    cv::minMaxIdx(m, &lo, &hi);
    if (lo != hi)
        return cv::format("torn: values from %d to %d in one image (latest %d)", (int)lo, (int)hi, expected);
    if ((int)lo != expected)
        return cv::format("stale: %d where the latest write is %d%s", (int)lo, expected,
                          lo < 1 || lo > maxWritten ? " (never written!)" : "");
    return "";
}

TEST(CudaImage_Reliability, synced_mat_8_threads_4_streams_stress)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int totalOps = envInt("CUDAIMAGE_STRESS_OPS", 2000);
    const int nThreads = 8, nStreams = 4;
    const Size sz(512, 256);
    SyncedMat m(sz, CV_32SC1);
    std::atomic<int> counter(1), latest(1);
    m.writeHost().setTo(Scalar(1));
    const int device = m.deviceId();
    std::vector<Stream> streams(nStreams);
    std::shared_mutex rw;
    std::atomic<int> opsLeft(totalOps), stale(0), errors(0);
    std::atomic<int> done[OP_KINDS];
    for (auto& d : done) d = 0;
    std::mutex reportMutex;
    std::vector<std::string> reports;
    auto report = [&](const std::string& r) {
        std::lock_guard<std::mutex> lock(reportMutex);
        if (reports.size() < 10) reports.push_back(r);
    };

    auto worker = [&](int t) {
        try
        {
            cv::cuda::setDevice(device);   // a new thread starts on device 0
            Stream& s = streams[t % nStreams];
            cv::RNG rng(1000 + t);
            GpuMat copy;
            Mat host;
            while (opsLeft.fetch_sub(1) > 0)
            {
                const int op = rng.uniform(0, 20) == 0 ? PREFETCH : rng.uniform(0, OP_KINDS - 1);
                std::string bad;
                switch (op)
                {
                case HOST_READ: {
                    std::shared_lock<std::shared_mutex> lock(rw);
                    bad = checkStamp(m.readHost(), latest, counter);
                    break;
                }
                case DEVICE_READ: {
                    int expected;
                    {
                        std::shared_lock<std::shared_mutex> lock(rw);
                        GpuMat d = m.readDevice(s);
                        expected = latest;
                        d.copyTo(copy, s);                 // enqueued before the next writer
                    }
                    copy.download(host, s);
                    s.waitForCompletion();
                    bad = checkStamp(host, expected, counter);
                    break;
                }
                case HOST_WRITE: {
                    std::unique_lock<std::shared_mutex> lock(rw);
                    const int v = ++counter;
                    m.writeHost().setTo(Scalar(v));
                    latest = v;
                    break;
                }
                case HOST_READ_WRITE: {
                    std::unique_lock<std::shared_mutex> lock(rw);
                    Mat h = m.readWriteHost();
                    bad = checkStamp(h, latest, counter);
                    const int v = ++counter;
                    h.setTo(Scalar(v));
                    latest = v;
                    break;
                }
                case DEVICE_WRITE: {
                    std::unique_lock<std::shared_mutex> lock(rw);
                    const int v = ++counter;
                    m.writeDevice(s).setTo(Scalar(v), s);
                    latest = v;
                    break;
                }
                case DEVICE_READ_WRITE: {
                    // new = old + (v - latest): equals v only if the device really held `latest`.
                    std::unique_lock<std::shared_mutex> lock(rw);
                    GpuMat d = m.readWriteDevice(s);
                    const int v = ++counter;
                    d.convertTo(d, -1, 1.0, double(v - latest), s);
                    latest = v;
                    break;
                }
                default: { // prefetch in either direction; may overlap readers
                    std::shared_lock<std::shared_mutex> lock(rw);
                    if (rng.uniform(0, 2)) m.upload(s); else m.download(s);
                    break;
                }
                }
                done[op]++;
                if (!bad.empty())
                {
                    stale++;
                    report(std::string(opName(op)) + ": " + bad);
                }
            }
        }
        catch (const std::exception& e)
        {
            errors++;
            report(std::string("exception: ") + e.what());
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < nThreads; t++)
        threads.emplace_back(worker, t);
    for (std::thread& t : threads)
        t.join();

    const std::string last = checkStamp(m.readHost(), latest, counter);
    int total = 0;
    std::cout << "[ STRESS   ] " << nThreads << " threads, " << nStreams << " streams, " << sz.width << "x" << sz.height << " CV_32SC1:";
    for (int op = 0; op < OP_KINDS; op++)
    {
        std::cout << " " << done[op] << " " << opName(op) << (op + 1 < OP_KINDS ? "," : "");
        total += done[op];
    }
    std::cout << "\n[ STRESS   ] " << total << " operations, " << stale.load() << " stale or torn reads, "
              << errors.load() << " exceptions, " << counter.load() << " stamps written" << std::endl;
    for (const std::string& r : reports)
        ADD_FAILURE() << r;
    EXPECT_EQ(totalOps, total);
    EXPECT_EQ(0, stale.load());
    EXPECT_EQ(0, errors.load());
    EXPECT_EQ("", last) << "final host read";
}

//////////////////////////////////////////////////////////////////////////////////////////////
// One Gaussian filter object used from 4 threads, each with its own stream and image size (so
// each stream's scratch differs), no host synchronisation between the calls.

TEST(CudaImage_Reliability, one_gaussian_filter_from_4_threads_and_streams)
{
    CUDAIMAGE_REQUIRE_GPU();
    struct Config { int type; double sigma; int border; };
    // 16UC3 sigma 3: radius 12, two passes through a per-stream scratch image; 8UC4 sigma 1.2:
    // radius 4, the fused single-kernel path.
    const Config configs[] = {{CV_16UC3, 3.0, cv::BORDER_REFLECT_101}, {CV_8UC4, 1.2, cv::BORDER_WRAP}};
    for (const Config& cfg : configs)
    {
        SCOPED_TRACE(cv::typeToString(cfg.type));
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(cfg.type, -1, Size(0, 0), cfg.sigma, 0, cfg.border);
        const int nThreads = 4, iterations = 25;
        const int device = cv::cuda::getDevice();
        std::vector<Mat> inputs(nThreads), expected(nThreads), results(nThreads * 2);
        for (int t = 0; t < nThreads; t++)
        {
            cv::RNG rng(40 + t);
            inputs[t] = cudaimage_test::randomMat(Size(640 + 37 * t, 480 - 29 * t), cfg.type, rng);
            if (cfg.border == cv::BORDER_WRAP) // the CPU has no WRAP: blur the wrap-padded image
            {
                const int r = cv::cuda::gaussianKernelSize(cfg.sigma, CV_MAT_DEPTH(cfg.type)) / 2;
                Mat padded, out;
                cv::copyMakeBorder(inputs[t], padded, r, r, r, r, cv::BORDER_WRAP);
                cv::GaussianBlur(padded, out, Size(2 * r + 1, 2 * r + 1), cfg.sigma, 0, cv::BORDER_REPLICATE);
                expected[t] = out(Rect(r, r, inputs[t].cols, inputs[t].rows)).clone();
            }
            else
                cv::GaussianBlur(inputs[t], expected[t], Size(0, 0), cfg.sigma, 0, cfg.border);
        }
        std::atomic<int> errors(0);
        std::vector<std::thread> threads;
        for (int t = 0; t < nThreads; t++)
            threads.emplace_back([&, t] {
                try
                {
                    cv::cuda::setDevice(device);
                    Stream s;
                    GpuMat src, a, b;
                    src.upload(inputs[t], s);
                    for (int i = 0; i < iterations; i++)
                        f->apply(src, i % 2 ? a : b, s);  // two outputs, the same scratch of this stream
                    results[2 * t] = toHost(a, s);
                    results[2 * t + 1] = toHost(b, s);
                }
                catch (const std::exception& e)
                {
                    errors++;
                    std::cout << "thread " << t << ": " << e.what() << std::endl;
                }
            });
        for (std::thread& th : threads)
            th.join();
        EXPECT_EQ(0, errors.load());
        for (int t = 0; t < nThreads; t++)
        {
            EXPECT_EQ(0, countDifferent(expected[t], results[2 * t])) << "thread " << t;
            EXPECT_EQ(0, countDifferent(expected[t], results[2 * t + 1])) << "thread " << t;
        }
    }
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Out of memory.

// Takes device memory until cudaMalloc fails (GpuMat raises cv::Exception), largest blocks first;
// gives it all back when destroyed. Ordinary device memory (never managed).
struct DeviceHog
{
    std::vector<GpuMat> blocks;
    size_t bytes = 0;
    int failures = 0;
    std::string firstError;

    void fill()
    {
        for (int chunk : {1 << 30, 64 << 20, 1 << 20})
            for (int i = 0; i < 200000; i++)
            {
                try
                {
                    blocks.emplace_back(1, chunk, CV_8UC1);
                    bytes += (size_t)chunk;
                }
                catch (const cv::Exception& e)
                {
                    failures++;
                    if (firstError.empty())
                        firstError = e.err;
                    break;
                }
            }
    }
};

// A caught allocation failure of the caller's own GpuMat must not make the next filter call fail:
// CUDA keeps the error for cudaGetLastError() until someone reads it.
TEST(CudaImage_Reliability, gaussian_apply_after_a_caught_allocation_failure)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(12);
    const Mat img = cudaimage_test::randomMat(Size(320, 240), CV_8UC1, rng);
    Mat cpu;
    cv::GaussianBlur(img, cpu, Size(5, 5), 1.2, 0, cv::BORDER_REPLICATE);
    Stream s;
    GpuMat src, dst;
    src.upload(img, s);
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(5, 5), 1.2);
    f->apply(src, dst, s);                                        // warm: taps, scratch, kernels
    s.waitForCompletion();
    EXPECT_THROW(GpuMat impossible(1 << 30, 1 << 30, CV_8UC4), cv::Exception);   // 4 EiB
    try
    {
        f->apply(src, dst, s);
        EXPECT_EQ(0, countDifferent(cpu, toHost(dst, s)));
    }
    catch (const cv::Exception& e)
    {
        ADD_FAILURE() << "apply() failed because of an earlier, unrelated allocation failure: " << e.what();
    }
    // And the one-shot form, and a fresh filter.
    EXPECT_THROW(GpuMat impossible(1 << 30, 1 << 30, CV_8UC4), cv::Exception);
    EXPECT_NO_THROW(cv::cuda::GaussianBlur(src, dst, Size(5, 5), 1.2, 0, cv::BORDER_REPLICATE, s));
    EXPECT_THROW(GpuMat impossible(1 << 30, 1 << 30, CV_8UC4), cv::Exception);
    EXPECT_NO_THROW(cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(7, 7), 2.0)->apply(src, dst, s));
    s.waitForCompletion();
}

TEST(CudaImage_Reliability_DeviceWide, device_out_of_memory_then_recovery)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(11);
    const Mat img = cudaimage_test::randomMat(Size(640, 480), CV_8UC3, rng);
    Mat cpu;
    cv::GaussianBlur(img, cpu, Size(0, 0), 2.0, 0, cv::BORDER_REPLICATE);
    Stream s;
    GpuMat src(img), dst(img.size(), img.type());
    {   // warm-up outside the hog: kernels loaded, one-shot filter created
        cv::cuda::createGaussianBlur(img.type(), -1, Size(0, 0), 2.0)->apply(src, dst, s);
        s.waitForCompletion();
    }
    const Mat bigHost = cudaimage_test::randomMat(Size(4096, 4096), CV_8UC4, rng);   // 64 MiB
    SyncedMat synced(bigHost);                                   // host valid, no device memory
    const size_t before = freeDeviceMemory();
    {
        DeviceHog hog;
        hog.fill();
        std::cout << "[ OOM      ] took " << hog.bytes / (1 << 20) << " MiB of " << before / (1 << 20)
                  << " MiB free; first failure: " << hog.firstError << std::endl;
        ASSERT_GT(hog.failures, 0);

        // SyncedMat: the upload needs 64 MiB of device memory -> cv::Exception, object intact.
        try
        {
            synced.readDevice(s);
            ADD_FAILURE() << "readDevice() succeeded with the device full";
        }
        catch (const cv::Exception& e)
        {
            std::cout << "[ OOM      ] SyncedMat::readDevice: " << e.err << std::endl;
            EXPECT_NE(std::string::npos, e.err.find("cannot allocate")) << e.err;
        }
        EXPECT_EQ((int)SyncedMat::HOST_VALID, synced.state());
        EXPECT_FALSE(synced.isDeviceAllocated());
        EXPECT_EQ(0, countDifferent(bigHost, synced.readHost()));

        // A new filter needs device memory for its taps and scratch: a correct result or a
        // cv::Exception, never a crash or garbage.
        try
        {
            cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(img.type(), -1, Size(0, 0), 2.0);
            GpuMat out = dst;
            f->apply(src, out, s);
            const Mat r = toHost(out, s);
            EXPECT_EQ(0, countDifferent(cpu, r)) << "the filter ran with the device full but gave a wrong result";
        }
        catch (const cv::Exception& e)
        {
            std::cout << "[ OOM      ] Gaussian apply with the device full: " << e.err << std::endl;
        }
    }
    // Everything back: the same objects work.
    const size_t after = freeDeviceMemory();
    std::cout << "[ OOM      ] free device memory " << before / (1 << 20) << " MiB before, " << after / (1 << 20) << " MiB after" << std::endl;
    EXPECT_GE(after + (64u << 20), before);
    try
    {
        GpuMat up = synced.readDevice(s);
        EXPECT_EQ(0, countDifferent(bigHost, toHost(up, s)));
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(img.type(), -1, Size(0, 0), 2.0);
        f->apply(src, dst, s);
        EXPECT_EQ(0, countDifferent(cpu, toHost(dst, s)));
        SyncedMat fromHost(img), out;
        cv::cuda::applyFilter(f, fromHost, out, s);
        EXPECT_EQ(0, countDifferent(cpu, out.readHost()));
    }
    catch (const cv::Exception& e)
    {
        ADD_FAILURE() << "after the memory was given back: " << e.what();
    }
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Leaks: create/apply/release cycles keep device memory flat.

TEST(CudaImage_Reliability_DeviceWide, create_apply_release_cycles_keep_device_memory_flat)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int cycles = envInt("CUDAIMAGE_LEAK_CYCLES", 200);
    cv::RNG rng(13);
    const Mat img = cudaimage_test::randomMat(Size(1024, 768), CV_8UC1, rng);
    auto cycle = [&](int i) {
        Stream s;
        SyncedMat m(img);                                         // pinned host copy
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1.5 + i % 3);
        cv::cuda::applyFilter(f, m, s);                           // upload, in place (storage scratch)
        SyncedMat out;
        cv::cuda::applyFilter(f, m, out, s);                      // a new DEVICE_VALID object
        SyncedMat view(out, Rect(10, 10, 100, 100));
        (void)view.readHost();                                    // download, events
        GpuMat g, d;
        g.upload(img, s);
        // The one-shot form keeps one filter per thread; a new stream every cycle (as a pipeline
        // that makes a stream per frame): radius 2 (fused path) and radius 9 (scratch per stream).
        cv::cuda::GaussianBlur(g, d, Size(5, 5), 0, 0, cv::BORDER_REPLICATE, s);
        cv::cuda::GaussianBlur(g, d, Size(0, 0), 3.0, 0, cv::BORDER_REPLICATE, s);
        f->apply(g, d, s);
        (void)m.readHost();
        m.releaseDevice();
        s.waitForCompletion();
    };
    for (int i = 0; i < 3; i++)
        cycle(i);                                                 // warm-up
    const size_t before = freeDeviceMemory();
    for (int i = 0; i < cycles; i++)
        cycle(i);
    const size_t after = freeDeviceMemory();
    const double lostMiB = (double(before) - double(after)) / (1 << 20);
    std::cout << "[ LEAK     ] " << cycles << " cycles: free device memory " << before / (1 << 20) << " MiB before, "
              << after / (1 << 20) << " MiB after (" << lostMiB << " MiB lost)" << std::endl;
    EXPECT_LE(lostMiB, 16.0) << "device memory grows with create/apply/release cycles";
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Unusual streams: non-blocking streams (no implicit order with the legacy default stream, so any
// synchronous upload the library makes is not ordered before work on them) and the per-thread
// default stream. (A stream of another device: SyncedMat_Cuda.other_device_is_refused.)

TEST(CudaImage_Reliability, non_blocking_and_per_thread_streams)
{
    CUDAIMAGE_REQUIRE_GPU();
    const size_t kNonBlocking = 1;                 // cudaStreamNonBlocking
    const size_t kPerThread = 2;                   // cudaStreamPerThread
    cv::RNG rng(14);
    const Mat img = cudaimage_test::randomMat(Size(333, 257), CV_16UC1, rng);
    // A fresh filter each time, on a non-blocking stream: its first apply to a separate dst (single
    // kernel, taps as parameters) and, with another fresh filter, in place (two passes: the first
    // apply uploads the taps and waits for them before the kernels).
    for (int i = 0; i < 40; i++)
    {
        const double sigma = 0.7 + 0.37 * i;
        Mat cpu;
        cv::GaussianBlur(img, cpu, Size(0, 0), sigma, 0, cv::BORDER_REFLECT);
        Stream s(kNonBlocking);
        GpuMat src, dst;
        src.upload(img, s);
        cv::cuda::createGaussianBlur(CV_16UC1, -1, Size(0, 0), sigma, 0, cv::BORDER_REFLECT)->apply(src, dst, s);
        EXPECT_EQ(0, countDifferent(cpu, toHost(dst, s))) << "non-blocking stream, first use of a filter, sigma " << sigma;
        GpuMat inPlace;
        src.copyTo(inPlace, s);
        cv::cuda::createGaussianBlur(CV_16UC1, -1, Size(0, 0), sigma, 0, cv::BORDER_REFLECT)->apply(inPlace, inPlace, s);
        EXPECT_EQ(0, countDifferent(cpu, toHost(inPlace, s))) << "non-blocking stream, in place, first use of a filter, sigma " << sigma;
    }
    {
        Stream pt = cv::cuda::wrapStream(kPerThread);
        GpuMat src, dst;
        src.upload(img, pt);
        cv::cuda::GaussianBlur(src, dst, Size(0, 0), 2.0, 0, cv::BORDER_REPLICATE, pt);
        Mat cpu;
        cv::GaussianBlur(img, cpu, Size(0, 0), 2.0, 0, cv::BORDER_REPLICATE);
        EXPECT_EQ(0, countDifferent(cpu, toHost(dst, pt))) << "cudaStreamPerThread";
    }
    // SyncedMat across two non-blocking streams: ordered by events alone.
    for (int i = 0; i < 20; i++)
    {
        Stream a(kNonBlocking), b(kNonBlocking);
        SyncedMat m(Size(2048, 1024), CV_32SC1);
        GpuMat w = m.writeDevice(a);
        for (int k = 0; k < 5; k++)
            w.setTo(Scalar(k), a);
        w.setTo(Scalar(1000 + i), a);
        GpuMat copy;
        m.readDevice(b).copyTo(copy, b);
        EXPECT_EQ(0, countDifferent(Mat(m.size(), CV_32SC1, Scalar(1000 + i)), toHost(copy, b))) << "iteration " << i;
        // An adopted GpuMat produced on a non-blocking stream (passed as the producer).
        GpuMat produced(64, 64, CV_32SC1);
        produced.setTo(Scalar(7 + i), a);
        SyncedMat adopted(produced, a);
        EXPECT_EQ(0, countDifferent(Mat(64, 64, CV_32SC1, Scalar(7 + i)), adopted.readHost()));
    }
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Released objects: views outlive their SyncedMat; a filter destroyed right after enqueueing.

TEST(CudaImage_Reliability, views_and_pending_work_outlive_released_objects)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat m(Mat(64, 64, CV_8UC1, Scalar(5)));
    GpuMat deviceView = m.readDevice(s);
    Mat hostView = m.readHost();
    m.release();
    EXPECT_TRUE(m.empty());
    EXPECT_THROW(m.readHost(), cv::Exception);
    EXPECT_THROW(m.readDevice(s), cv::Exception);
    EXPECT_EQ(0, countDifferent(Mat(64, 64, CV_8UC1, Scalar(5)), toHost(deviceView, s)));
    EXPECT_EQ(0, countDifferent(Mat(64, 64, CV_8UC1, Scalar(5)), hostView));

    // releaseDevice() while a device view is held: the view keeps its memory.
    SyncedMat n(Mat(64, 64, CV_8UC1, Scalar(7)));
    GpuMat held = n.readDevice(s);
    n.releaseDevice();
    EXPECT_FALSE(n.isDeviceAllocated());
    EXPECT_EQ(0, countDifferent(Mat(64, 64, CV_8UC1, Scalar(7)), toHost(held, s)));
    EXPECT_EQ(0, countDifferent(Mat(64, 64, CV_8UC1, Scalar(7)), toHost(n.readDevice(s), s)));

    // A filter object (taps, scratch) destroyed right after apply(), before its kernels ran.
    cv::RNG rng(15);
    const Mat img = cudaimage_test::randomMat(Size(1920, 1080), CV_32FC1, rng);
    Mat cpu;
    cv::GaussianBlur(img, cpu, Size(0, 0), 9.0, 0, cv::BORDER_REPLICATE);
    GpuMat src, dst;
    src.upload(img, s);
    for (int i = 0; i < 10; i++)
        cv::cuda::createGaussianBlur(CV_32FC1, -1, Size(0, 0), 9.0)->apply(src, dst, s);
    Mat out = toHost(dst, s), diff;
    cv::absdiff(cpu, out, diff);
    double worst = 0;
    cv::minMaxIdx(diff, nullptr, &worst);
    EXPECT_LE(worst, 1e-5 * 1000) << "result of a filter destroyed while its work was pending";
}

//////////////////////////////////////////////////////////////////////////////////////////////
// No device (CI): whatever needs CUDA raises cv::Exception; argument checks still come first.

TEST(CudaImage_NoDevice, calls_that_need_cuda_raise_cv_exception)
{
    if (cudaimage_test::gpuUnavailableReason().empty())
        CUDAIMAGE_SKIP("a CUDA device is present; this test checks the no-device path");
    auto expectCvException = [](const char* what, const std::function<void()>& f) {
        try
        {
            f();
            ADD_FAILURE() << what << ": no exception without a device";
        }
        catch (const cv::Exception& e)
        {
            std::cout << "[ NODEVICE ] " << what << " | " << int(e.code) << " | " << e.err << std::endl;
        }
    };
    Stream header = cv::cuda::wrapStream(0);   // makes no CUDA call
    expectCvException("SyncedMat(Mat)", [] { SyncedMat m(Mat(4, 4, CV_8UC1, Scalar(1))); });
    SyncedMat m(4, 4, CV_8UC1);
    expectCvException("SyncedMat::writeHost", [&] { m.writeHost(); });
    expectCvException("SyncedMat::writeDevice", [&] { m.writeDevice(header); });
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, m.state());
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
    expectCvException("cv::cuda::Stream()", [] { Stream s; });
    expectCvException("Stream::Null()", [] { Stream::Null(); });
    // A filter is created without CUDA; apply() checks its arguments, then needs the device. The
    // fake address is never dereferenced: allocating dst fails first.
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1);
    GpuMat fake(16, 16, CV_8UC1, reinterpret_cast<void*>(size_t(1) << 32)), out;
    expectCvException("Filter::apply", [&] { f->apply(fake, out, header); });
    expectCvException("cv::cuda::GaussianBlur", [&] { cv::cuda::GaussianBlur(fake, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, header); });
    // Argument errors keep their own message without a device.
    try
    {
        f->apply(GpuMat(16, 16, CV_16UC1, reinterpret_cast<void*>(size_t(1) << 32)), out, header);
        ADD_FAILURE() << "no exception";
    }
    catch (const cv::Exception& e)
    {
        EXPECT_NE(std::string::npos, e.err.find("src type is CV_16UC1")) << e.err;
    }
}

}} // namespace opencv_test
