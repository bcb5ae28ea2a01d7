// Side-by-side Gaussian blur benchmark (the performance issue's table), one run on one GPU:
// the device-to-device copy ceiling, cudaimage, cv::cuda::createGaussianFilter, NPP (merged from
// npp_gaussian_bench's output), the first seed's naive kernel and CPU cv::GaussianBlur on all
// cores. CUDA events on one stream, warm-up, median of repeated runs, random data.
//
//   gaussian_bench [--out DIR] [--npp npp.jsonl] [--size 16384] [--quick] [--ours-only]
//   (--ours-only: the copy and cudaimage columns only, for quick iterations on the kernels)
//
// Bytes per call are counted as one read of the source and one write of the destination; each
// entry is reported in ms, GB/s, fraction of the copy's GB/s, and the speed-up of cudaimage over it.
// Peers too slow to time at full size (the naive kernel's 2-D window, the CPU) are timed on a
// smaller image and scaled by the pixel count; the table marks them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/cudafilters.hpp"
#include "opencv2/cudaimage.hpp"

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

namespace {

// The ceiling: a plain copy kernel, 16-byte loads and stores.
__global__ void copyKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

// The first seed's kernel (one thread per pixel over the whole 2-D window, clamped borders,
// exp() per tap, normalised by the weight sum), per channel for multi-channel images.
template <typename T>
__global__ void seedNaiveKernel(const T* input, T* output, int width, int height, int cn, size_t stepElems, float sigma)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int radius = (int)(3.0f * sigma);
    for (int c = 0; c < cn; c++)
    {
        float sum = 0.0f, weightSum = 0.0f;
        for (int ky = -radius; ky <= radius; ky++)
            for (int kx = -radius; kx <= radius; kx++)
            {
                const int px = min(max(x + kx, 0), width - 1);
                const int py = min(max(y + ky, 0), height - 1);
                const float weight = expf(-(float)(kx * kx + ky * ky) / (2.0f * sigma * sigma));
                sum += (float)input[py * stepElems + px * cn + c] * weight;
                weightSum += weight;
            }
        output[y * stepElems + x * cn + c] = (T)(sum / weightSum);
    }
}

struct Timer
{
    cudaStream_t s;
    cudaEvent_t a, b;
    explicit Timer(cudaStream_t stream) : s(stream) { CHECK_CUDA(cudaEventCreate(&a)); CHECK_CUDA(cudaEventCreate(&b)); }
    ~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
    template <class F> double median(F run, int reps, int warmup = 3)
    {
        for (int i = 0; i < warmup; i++) run();
        std::vector<float> t;
        for (int i = 0; i < reps; i++)
        {
            CHECK_CUDA(cudaEventRecord(a, s)); run(); CHECK_CUDA(cudaEventRecord(b, s));
            CHECK_CUDA(cudaEventSynchronize(b));
            float ms = 0; CHECK_CUDA(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

double cpuMedianMs(const cv::Mat& src, cv::Mat& dst, cv::Size k, double sigma, int reps)
{
    cv::GaussianBlur(src, dst, k, sigma, sigma, cv::BORDER_REPLICATE);
    std::vector<double> t;
    for (int i = 0; i < reps; i++)
    {
        const int64 t0 = cv::getTickCount();
        cv::GaussianBlur(src, dst, k, sigma, sigma, cv::BORDER_REPLICATE);
        t.push_back((cv::getTickCount() - t0) * 1000.0 / cv::getTickFrequency());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

cv::Mat randomMat(cv::Size size, int type)
{
    cv::Mat m(size, type);
    cv::RNG rng(12345);
    if (CV_MAT_DEPTH(type) == CV_32F) rng.fill(m, cv::RNG::UNIFORM, 0.0, 255.0);
    else rng.fill(m, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_8U ? 256 : 65536);
    return m;
}

struct Entry { std::string peer; double ms = -1; bool scaled = false; std::string note; };

std::map<std::string, double> readNpp(const std::string& path)
{
    std::map<std::string, double> r;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
    {
        auto field = [&](const char* name) {
            const std::string key = std::string("\"") + name + "\": ";
            const size_t p = line.find(key);
            if (p == std::string::npos) return std::string();
            size_t q = p + key.size(), e = line.find_first_of(",}", q);
            std::string v = line.substr(q, e - q);
            v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
            return v;
        };
        if (field("ms").empty()) continue;
        r[field("type") + "/" + field("sigma")] = std::stod(field("ms"));
    }
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    std::string outDir = ".", nppPath;
    int side = 16384;
    bool quick = false, oursOnly = false;
    for (int i = 1; i < argc; i++)
    {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) outDir = argv[++i];
        else if (!strcmp(argv[i], "--npp") && i + 1 < argc) nppPath = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) side = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--ours-only")) oursOnly = true;
        else { fprintf(stderr, "usage: %s [--out DIR] [--npp npp.jsonl] [--size N] [--quick] [--ours-only]\n", argv[0]); return 2; }
    }
    if (cv::cuda::getCudaEnabledDeviceCount() < 1) { fprintf(stderr, "no CUDA device\n"); return 1; }
    cv::cuda::DeviceInfo dev;
    const std::map<std::string, double> npp = nppPath.empty() ? std::map<std::string, double>() : readNpp(nppPath);

    cv::cuda::Stream stream;
    cudaStream_t s = cv::cuda::StreamAccessor::getStream(stream);
    Timer timer(s);
    const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4, CV_16UC1, CV_32FC1};
    const double sigmas[] = {1, 2, 5, 10, 30};
    const cv::Size size(side, side);

    std::ostringstream md, js;
    char date[32]; std::time_t now = std::time(nullptr); std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    md << "Gaussian blur, " << size.width << "x" << size.height << ", BORDER_REPLICATE, ksize = 2*round(3 sigma)+1, on "
       << dev.name() << " (" << date << "). GB/s count one read of the source and one write of the destination; "
       << "'copy' is a 16-byte-vector device-to-device copy of the same bytes; x = cudaimage's speed-up over the peer; "
       << "* = timed on a smaller image and scaled by the pixel count.\n\n"
       << "| type | sigma (ksize) | copy GB/s | cudaimage ms | GB/s | % of copy | createGaussianFilter ms (x) | NPP ms (x) | seed naive ms (x) | CPU ms (x) |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    js << "{\n  \"gpu\": \"" << dev.name() << "\", \"date\": \"" << date << "\", \"width\": " << size.width << ", \"height\": " << size.height << ",\n  \"cells\": [\n";
    bool firstCell = true;

    for (int type : types)
    {
        const cv::Mat host = randomMat(size, type);
        cv::cuda::GpuMat src(host), dst(size, type);
        const double bytes = 2.0 * host.total() * host.elemSize();
        // Copy ceiling (whole pitched buffers: same bytes to a few per cent).
        const size_t vecs = src.step * src.rows / 16;
        const double copyMs = timer.median([&] { copyKernel<<<132 * 16, 256, 0, s>>>((const uint4*)src.data, (uint4*)dst.data, vecs); }, 20);
        const double copyGBs = bytes / copyMs / 1e6;

        for (double sigma : sigmas)
        {
            const int k = 2 * (int)std::lround(3 * sigma) + 1;
            const cv::Size ks(k, k);
            const int reps = quick ? 5 : (k > 61 ? 10 : 30);
            cv::Ptr<cv::cuda::Filter> ours = cv::cuda::createGaussianBlur(type, type, ks, sigma, sigma, cv::BORDER_REPLICATE);
            const double oursMs = timer.median([&] { ours->apply(src, dst, stream); }, reps);

            std::vector<Entry> peers;
            Entry cf{"createGaussianFilter"};
            if (oursOnly) cf.note = "not run";
            else if (CV_MAT_CN(type) != 3 && k <= 32)
            {
                cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianFilter(type, type, ks, sigma, sigma, cv::BORDER_REPLICATE);
                cf.ms = timer.median([&] { f->apply(src, dst, stream); }, reps);
            }
            else cf.note = CV_MAT_CN(type) == 3 ? "no 3-channel" : "ksize > 32";
            peers.push_back(cf);

            Entry np{"NPP"};
            std::ostringstream key; key << cv::typeToString(type).substr(3) << "/" << sigma;
            auto it = npp.find(key.str());
            if (it != npp.end()) np.ms = it->second; else np.note = nppPath.empty() ? "not run" : "not measured";
            peers.push_back(np);

            // The seed's kernel: full size when quick enough, else 2048^2 scaled.
            Entry naive{"seed naive"};
            if (oursOnly) naive.note = "not run";
            else
            {
                const double work = (double)k * k * host.total() * host.channels();
                cv::cuda::GpuMat nsrc = src, ndst = dst;
                double scale = 1;
                if (work > 2e12)
                {
                    const cv::Rect r(0, 0, 2048, 2048);
                    nsrc = src(r).clone(); ndst = dst(r).clone();
                    scale = (double)host.total() / r.area();
                    naive.scaled = true;
                }
                const dim3 block(32, 8), grid((nsrc.cols + 31) / 32, (nsrc.rows + 7) / 8);
                const int cn = host.channels();
                auto run = [&] {
                    if (CV_MAT_DEPTH(type) == CV_8U)
                        seedNaiveKernel<unsigned char><<<grid, block, 0, s>>>(nsrc.ptr<unsigned char>(), ndst.ptr<unsigned char>(), nsrc.cols, nsrc.rows, cn, nsrc.step, (float)sigma);
                    else if (CV_MAT_DEPTH(type) == CV_16U)
                        seedNaiveKernel<unsigned short><<<grid, block, 0, s>>>(nsrc.ptr<unsigned short>(), ndst.ptr<unsigned short>(), nsrc.cols, nsrc.rows, cn, nsrc.step / 2, (float)sigma);
                    else
                        seedNaiveKernel<float><<<grid, block, 0, s>>>(nsrc.ptr<float>(), ndst.ptr<float>(), nsrc.cols, nsrc.rows, cn, nsrc.step / 4, (float)sigma);
                };
                naive.ms = timer.median(run, 3, 1) * scale;
            }
            peers.push_back(naive);

            // CPU on all cores: 4096^2 scaled (16384^2 takes seconds per call).
            Entry cpu{"CPU"};
            if (oursOnly) cpu.note = "not run";
            else
            {
                const cv::Rect r(0, 0, std::min(4096, size.width), std::min(4096, size.height));
                cv::Mat sub = host(r).clone(), out;
                cpu.ms = cpuMedianMs(sub, out, ks, sigma, quick ? 1 : 3) * (double)host.total() / r.area();
                cpu.scaled = r.area() != (int)host.total();
            }
            peers.push_back(cpu);

            const double gbs = bytes / oursMs / 1e6;
            md << "| " << cv::typeToString(type).substr(3) << " | " << sigma << " (" << k << ") | " << cv::format("%.0f", copyGBs)
               << " | " << cv::format("%.3f", oursMs) << " | " << cv::format("%.0f", gbs) << " | " << cv::format("%.1f %%", 100 * gbs / copyGBs);
            js << (firstCell ? "" : ",\n") << "    {\"type\": \"" << cv::typeToString(type).substr(3) << "\", \"sigma\": " << sigma << ", \"ksize\": " << k
               << ", \"copy_ms\": " << copyMs << ", \"copy_GBps\": " << copyGBs << ", \"cudaimage_ms\": " << oursMs
               << ", \"cudaimage_GBps\": " << gbs << ", \"fraction_of_copy\": " << gbs / copyGBs << ", \"peers\": {";
            firstCell = false;
            for (size_t i = 0; i < peers.size(); i++)
            {
                const Entry& e = peers[i];
                if (e.ms > 0)
                    md << " | " << cv::format("%.3f", e.ms) << (e.scaled ? "*" : "") << " (" << cv::format("%.1f", e.ms / oursMs) << "x)";
                else
                    md << " | " << e.note;
                js << (i ? ", " : "") << "\"" << e.peer << "\": " << (e.ms > 0 ? cv::format("{\"ms\": %.5f, \"scaled\": %s}", e.ms, e.scaled ? "true" : "false")
                                                                              : "{\"note\": \"" + e.note + "\"}");
            }
            md << " |\n";
            js << "}}";
            fprintf(stderr, "%s sigma %g: %.3f ms (%.1f %% of copy)\n", cv::typeToString(type).c_str(), sigma, oursMs, 100 * gbs / copyGBs);
        }
    }

    // The latency target: 3840x2160 8UC1, sigma 2, per call on a stream.
    {
        const cv::Mat host = randomMat(cv::Size(3840, 2160), CV_8UC1);
        cv::cuda::GpuMat src(host), dst;
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, CV_8UC1, cv::Size(13, 13), 2, 2, cv::BORDER_REPLICATE);
        const double ms = timer.median([&] { f->apply(src, dst, stream); }, 100);
        md << "\n3840x2160 8UC1 sigma 2 (k13): " << cv::format("%.1f", ms * 1000) << " us per call (target <= 20 us).\n";
        js << "\n  ],\n  \"uhd_8UC1_sigma2_us\": " << ms * 1000 << "\n}\n";
    }
    const std::string base = outDir + "/gaussian-" + date;
    std::ofstream(base + ".md") << md.str();
    std::ofstream(base + ".json") << js.str();
    printf("%s", md.str().c_str());
    fprintf(stderr, "wrote %s.md and %s.json\n", base.c_str(), base.c_str());
    return 0;
}
