// Side-by-side Gaussian blur benchmark (the table of doc/performance.md), one run on one GPU:
// the device-to-device copy ceiling, cudaimage, cv::cuda::createGaussianFilter, NPP (merged from
// npp_gaussian_bench's output), the first seed's naive kernel and CPU cv::GaussianBlur on all
// cores. CUDA events on one stream, warm-up, median of repeated runs, random data.
//
//   gaussian_bench [--out DIR] [--npp npp.jsonl] [--peers peers.jsonl] [--size 16384] [--quick] [--ours-only]
//   (--ours-only: the copy and cudaimage columns only, for quick iterations on the kernels)
//   gaussian_bench --sweep [--size N] [--sweep-types 8UC1,8UC4,16UC1,32FC1]: by radius (N^2 and 3840x2160),
//   the tensor-core paths at every radius and off, for each type listed (8UC1..8UC4, 16UC1, 32FC1; default 8UC1)
//   gaussian_bench --check-args ARGS...: exit 0 if ARGS are valid, else 2 with the usage; runs nothing
//   (the filter's options, as OPENCV_CUDAIMAGE_TENSOR_CORES=all / 0 would give), to place the path choice's threshold
//   (--peers: PyTorch, CV-CUDA, CuPy and kornia, from perf/python_peers_bench.py's JSON lines: their
//    times become four more columns, their exactness against the CPU a second table)
//
// Bytes per call are counted as one read of the source and one write of the destination; each
// entry is reported in ms, GB/s, fraction of the copy's GB/s, and the speed-up of cudaimage over it.
// Peers too slow to time at full size (the naive kernel's 2-D window, the CPU) are timed on a
// smaller image and scaled by the pixel count; the table marks them.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
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

#include "bench_support.hpp"
#include "../src/gaussian_filter_options.hpp"

namespace {
/** Filter options with every tensor-core unit's switch at `mode` (the sweep forces the paths
 * without touching the process environment). */
cv::cuda::gaussian::GaussianPaths::Options tensorCoreOptions(cv::cuda::gaussian::TensorCoreMode mode)
{
    namespace gs = cv::cuda::gaussian;
    gs::GaussianPaths::Options o = gs::GaussianPaths::options();
    std::get<gs::GaussianPaths::indexOf<gs::TensorCorePath>()>(o).mode = mode;
    std::get<gs::GaussianPaths::indexOf<gs::TensorCore16UPath>()>(o).mode = mode;
    std::get<gs::GaussianPaths::indexOf<gs::TensorCore32FPath>()>(o).mode = mode;
    return o;
}
} // namespace

namespace {

using cudaimage_bench::EventTimer;
using cudaimage_bench::tableKsize;

// The ceiling: a plain copy kernel, 16-byte loads and stores.
__global__ void copyKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

// Holds a stream for about `cycles` clock cycles (device-time and host-time measurements).
__global__ void spinKernel(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
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

cv::Mat randomMat(cv::Size size, int type)
{
    cv::Mat m(size, type);
    cv::RNG rng(12345);
    if (CV_MAT_DEPTH(type) == CV_32F) rng.fill(m, cv::RNG::UNIFORM, 0.0, 255.0);
    else rng.fill(m, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_8U ? 256 : 65536);
    return m;
}

struct Entry
{
    std::string peer; double ms = -1; bool scaled = false; std::string note;
    // Exactness against the CPU (peers from --peers only): 8U/16U differing elements of `elements`
    // and the largest |difference|; 32F the largest |difference| / max |input|. -1: not reported.
    double differing = -1, elements = -1, maxDiff = -1, maxRelDiff = -1;
};

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

// ---- peers JSON lines (perf/python_peers_bench.py): standard C++ only, so that this block can be
// compiled and checked on its own (see perf/python_peers_bench.py's header for the fields). ----
struct JsonValue { std::string text; bool isString = false; };

// One flat JSON object per line: strings (unescaped), numbers, true/false/null; a nested object or
// array is kept as its raw text. Returns an empty map for anything else.
std::map<std::string, JsonValue> parseFlatJsonObject(const std::string& line)
{
    std::map<std::string, JsonValue> r;
    size_t i = 0;
    const size_t n = line.size();
    auto ws = [&] { while (i < n && std::isspace((unsigned char)line[i])) i++; };
    auto str = [&](std::string& out) -> bool { // at '"'
        if (i >= n || line[i] != '"') return false;
        for (i++; i < n && line[i] != '"'; i++)
        {
            char c = line[i];
            if (c == '\\' && i + 1 < n)
            {
                c = line[++i];
                if (c == 'n') c = '\n'; else if (c == 't') c = '\t'; else if (c == 'r') c = '\r';
                else if (c == 'b') c = '\b'; else if (c == 'f') c = '\f';
                else if (c == 'u') // \uXXXX: ASCII kept, anything else as '?'
                {
                    if (i + 4 >= n) return false;
                    const unsigned long u = std::strtoul(line.substr(i + 1, 4).c_str(), nullptr, 16);
                    c = u < 128 ? (char)u : '?';
                    i += 4;
                }
            }
            out += c;
        }
        if (i >= n) return false;
        i++;
        return true;
    };
    ws();
    if (i >= n || line[i] != '{') return r;
    i++;
    for (;;)
    {
        ws();
        if (i < n && line[i] == '}') break;
        std::string key;
        if (!str(key)) return {};
        ws();
        if (i >= n || line[i] != ':') return {};
        i++;
        ws();
        JsonValue v;
        if (i < n && line[i] == '"')
        {
            v.isString = true;
            if (!str(v.text)) return {};
        }
        else
        {
            const size_t b = i;
            int depth = 0;
            bool inStr = false;
            for (; i < n; i++)
            {
                const char c = line[i];
                if (inStr) { if (c == '\\') i++; else if (c == '"') inStr = false; continue; }
                if (c == '"') inStr = true;
                else if (c == '{' || c == '[') depth++;
                else if ((c == '}' || c == ']') && depth > 0) depth--;
                else if ((c == ',' || c == '}') && depth == 0) break;
            }
            v.text = line.substr(b, i - b);
            while (!v.text.empty() && std::isspace((unsigned char)v.text.back())) v.text.pop_back();
        }
        r[key] = v;
        ws();
        if (i < n && line[i] == ',') { i++; continue; }
        if (i < n && line[i] == '}') break;
        return {};
    }
    return r;
}

struct PeerCell
{
    std::string status;  // ok, unsupported, error, not run
    std::string note;
    double ms = -1; bool scaled = false;
    double differing = -1, elements = -1, maxDiff = -1, maxRelDiff = -1;
    int checkSize = 0;
};

struct PeerResults
{
    std::map<std::string, JsonValue> meta;    // the {"peer": "meta", ...} line
    std::map<std::string, PeerCell> cells;    // peersKey(peer, type, sigma) ->
    int checkSize = 0;
};

std::string peersKey(const std::string& peer, const std::string& type, double sigma)
{
    std::ostringstream k;
    k << peer << "|" << type << "|" << sigma;
    return k.str();
}

PeerResults parsePeers(std::istream& in)
{
    PeerResults r;
    std::string line;
    auto num = [](const std::map<std::string, JsonValue>& m, const char* name, double dflt) {
        auto it = m.find(name);
        if (it == m.end() || it->second.isString || it->second.text.empty() || it->second.text == "null") return dflt;
        try { return std::stod(it->second.text); } catch (...) { return dflt; }
    };
    auto text = [](const std::map<std::string, JsonValue>& m, const char* name) {
        auto it = m.find(name);
        return it == m.end() ? std::string() : it->second.text;
    };
    while (std::getline(in, line))
    {
        const std::map<std::string, JsonValue> o = parseFlatJsonObject(line);
        const std::string peer = text(o, "peer");
        if (peer.empty()) continue;
        if (peer == "meta") { r.meta = o; r.checkSize = (int)num(o, "check_size", 0); continue; }
        const std::string type = text(o, "type");
        const double sigma = num(o, "sigma", -1);
        if (type.empty() || sigma < 0) continue;
        PeerCell c;
        c.status = text(o, "status");
        c.note = text(o, "note");
        c.ms = num(o, "ms", -1);
        if (c.status.empty()) c.status = c.ms > 0 ? "ok" : "error";
        if (c.status != "ok") c.ms = -1;
        c.scaled = text(o, "scaled") == "true";
        c.differing = num(o, "differing", -1);
        c.elements = num(o, "elements", -1);
        c.maxDiff = num(o, "max_diff", -1);
        c.maxRelDiff = num(o, "max_rel_diff", -1);
        c.checkSize = (int)num(o, "check_size", 0);
        if (c.checkSize > 0 && r.checkSize == 0) r.checkSize = c.checkSize;
        r.cells[peersKey(peer, type, sigma)] = c;
    }
    return r;
}

std::string jsonEscape(const std::string& s)
{
    std::string r;
    for (char c : s)
    {
        if (c == '"' || c == '\\') { r += '\\'; r += c; }
        else if (c == '\n') r += "\\n";
        else if ((unsigned char)c < 0x20) r += ' ';
        else r += c;
    }
    return r;
}
// ---- end of the peers JSON lines block ----

// The whole text to path; false (and a message) if it could not be written.
bool writeText(const std::string& path, const std::string& text)
{
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    if (!f)
        fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return static_cast<bool>(f);
}

// "8UC1,8UC4,16UC1" -> their types; false unless every entry is one of 8UC1..8UC4, 16UC1.
bool parseSweepTypes(const char* text, std::vector<int>& out)
{
    static const std::pair<const char*, int> known[] = {{"8UC1", CV_8UC1}, {"8UC2", CV_8UC2}, {"8UC3", CV_8UC3}, {"8UC4", CV_8UC4}, {"16UC1", CV_16UC1}, {"32FC1", CV_32FC1}};
    std::vector<int> v;
    std::string s(text), item;
    std::istringstream in(s);
    while (std::getline(in, item, ','))
    {
        int type = -1;
        for (const auto& k : known)
            if (item == k.first)
                type = k.second;
        if (type < 0)
            return false;
        v.push_back(type);
    }
    if (v.empty())
        return false;
    out = v;
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    std::string outDir = ".", nppPath, peersPath;
    int side = 16384;
    bool quick = false, oursOnly = false, sweep = false, checkArgs = false;
    std::vector<int> sweepTypes = {CV_8UC1};
    for (int i = 1; i < argc; i++)
    {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) outDir = argv[++i];
        else if (!strcmp(argv[i], "--npp") && i + 1 < argc) nppPath = argv[++i];
        else if (!strcmp(argv[i], "--peers") && i + 1 < argc) peersPath = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && (side = atoi(argv[i + 1])) > 0) i++;
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--ours-only")) oursOnly = true;
        else if (!strcmp(argv[i], "--sweep")) sweep = true;
        else if (!strcmp(argv[i], "--sweep-types") && i + 1 < argc && parseSweepTypes(argv[i + 1], sweepTypes)) i++;
        else if (!strcmp(argv[i], "--check-args")) checkArgs = true;
        else
        {
            fprintf(stderr, "%s: '%s' is not an argument here, or lacks its value; usage: %s [--out DIR] [--npp npp.jsonl] "
                    "[--peers peers.jsonl] [--size N (N > 0)] [--quick] [--ours-only] [--sweep] [--sweep-types 8UC1,8UC4,16UC1,32FC1] [--check-args]\n",
                    argv[0], argv[i], argv[0]);
            return 2;
        }
    }
    if (checkArgs)
        return 0;
    PeerResults peerResults;
    if (!peersPath.empty())
    {
        std::ifstream in(peersPath);
        if (!in) { fprintf(stderr, "cannot read %s\n", peersPath.c_str()); return 2; }
        peerResults = parsePeers(in);
        fprintf(stderr, "%s: %zu peer cells\n", peersPath.c_str(), peerResults.cells.size());
    }
    if (cv::cuda::getCudaEnabledDeviceCount() < 1) { fprintf(stderr, "no CUDA device\n"); return 1; }
    cv::cuda::DeviceInfo dev;
    const std::map<std::string, double> npp = nppPath.empty() ? std::map<std::string, double>() : readNpp(nppPath);

    cv::cuda::Stream stream;
    cudaStream_t s = cv::cuda::StreamAccessor::getStream(stream);
    EventTimer timer(s);
    if (sweep)
    {
        // By radius with the tensor-core paths at every radius ("all") and off ("0"), then
        // 3840x2160 the same way, per type; the default path's choice (the tuning rows' minimum
        // radius) follows from it.
        const cv::Size sizes[] = {cv::Size(side, side), cv::Size(3840, 2160)};
        for (int type : sweepTypes)
        for (const cv::Size& size : sizes)
        {
            const cv::Mat host = randomMat(size, type);
            cv::cuda::GpuMat src(host), dst(size, type);
            const size_t vecs = src.step * src.rows / 16;
            const double copyMs = timer.median([&] { copyKernel<<<132 * 16, 256, 0, s>>>((const uint4*)src.data, (uint4*)dst.data, vecs); }, 20);
            printf("\n%s %dx%d, BORDER_REPLICATE, ksize 2r+1 (sigma from ksize); copy %.4f ms\n| radius | tensor cores ms | %% of copy | CUDA cores ms | %% of copy |\n|---|---|---|---|---|\n",
                   cv::typeToString(type).c_str(), size.width, size.height, copyMs);
            fflush(stdout);
            const bool small = size.area() < side * side;
            for (int r : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 24, 25, 30, 40, 45, 60, 90, 120, 128})
            {
                if (small && r > 15)
                    break;
                double ms[2];
                for (int on = 1; on >= 0; on--)
                {
                    cv::Ptr<cv::cuda::Filter> f = cv::cuda::gaussian::createGaussianBlurWithOptions(
                        type, type, cv::Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE, -1,
                        tensorCoreOptions(on ? cv::cuda::gaussian::TensorCoreMode::All : cv::cuda::gaussian::TensorCoreMode::Off));
                    ms[on] = timer.median([&] { f->apply(src, dst, stream); }, small ? 50 : 10);
                }
                printf("| %d | %.4f | %.1f | %.4f | %.1f |\n", r, ms[1], 100 * copyMs / ms[1], ms[0], 100 * copyMs / ms[0]);
                fflush(stdout);
            }
        }
        return 0;
    }
    const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4, CV_16UC1, CV_32FC1};
    const cv::Size size(side, side);

    std::ostringstream md, js;
    char date[32]; std::time_t now = std::time(nullptr); std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    md << "Gaussian blur, " << size.width << "x" << size.height << ", BORDER_REPLICATE, ksize = 2*round(3 sigma)+1, on "
       << dev.name() << " (" << date << "). GB/s count one read of the source and one write of the destination; "
       << "'copy' is a 16-byte-vector device-to-device copy of the same bytes; x = cudaimage's speed-up over the peer; "
       << "* = timed on a smaller image and scaled by the pixel count.\n\n"
       << "| type | sigma (ksize) | copy GB/s | cudaimage ms | GB/s | % of copy | createGaussianFilter ms (x) | NPP ms (x) | seed naive ms (x) | CPU ms (x)";
    // The Python peers (perf/python_peers_bench.py, --peers): JSON name, column name. Each adds a
    // column to the table and to the exactness table under it.
    const char* const pyPeers[][2] = {{"pytorch", "PyTorch"}, {"cvcuda", "CV-CUDA"}, {"cupy", "CuPy"}, {"kornia", "kornia"}};
    for (const auto& pp : pyPeers) md << " | " << pp[1] << " ms (x)";
    md << " |\n|---|---|---|---|---|---|---|---|---|---|";
    for (size_t i = 0; i < sizeof pyPeers / sizeof pyPeers[0]; i++) md << "---|";
    md << "\n";
    std::ostringstream exact; // the peers' exactness rows
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

        for (double sigma : cudaimage_bench::kTableSigmas)
        {
            const int k = tableKsize(sigma);
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
                cpu.ms = cudaimage_bench::hostMedianMs([&] { cv::GaussianBlur(sub, out, ks, sigma, sigma, cv::BORDER_REPLICATE); },
                                                       quick ? 1 : 3) * (double)host.total() / r.area();
                cpu.scaled = r.area() != (int)host.total();
            }
            peers.push_back(cpu);

            // The Python peers (perf/python_peers_bench.py, merged like NPP), with their exactness.
            exact << "| " << cv::typeToString(type).substr(3) << " | " << sigma << " (" << k << ")";
            for (const auto& pp : pyPeers)
            {
                Entry e{pp[1]};
                auto pc = peerResults.cells.find(peersKey(pp[0], cv::typeToString(type).substr(3), sigma));
                if (peersPath.empty()) e.note = "not run";
                else if (pc == peerResults.cells.end()) e.note = "not measured";
                else
                {
                    const PeerCell& c = pc->second;
                    if (c.ms > 0) { e.ms = c.ms; e.scaled = c.scaled; }
                    else e.note = c.status;
                    e.differing = c.differing; e.elements = c.elements; e.maxDiff = c.maxDiff; e.maxRelDiff = c.maxRelDiff;
                }
                peers.push_back(e);
                if (CV_MAT_DEPTH(type) == CV_32F && e.maxRelDiff >= 0)
                    exact << " | max rel " << cv::format("%.2g", e.maxRelDiff);
                else if (e.differing >= 0 && e.elements > 0)
                    exact << " | " << cv::format("%.0f (%.2f %%), max %g", e.differing, 100 * e.differing / e.elements, e.maxDiff);
                else
                    exact << " | " << (e.note.empty() ? "-" : e.note);
            }
            exact << " |\n";

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
                std::string ex; // the peers' exactness, when reported
                if (e.differing >= 0) ex += cv::format(", \"differing\": %.0f, \"elements\": %.0f", e.differing, e.elements);
                if (e.maxDiff >= 0) ex += cv::format(", \"max_diff\": %g", e.maxDiff);
                if (e.maxRelDiff >= 0) ex += cv::format(", \"max_rel_diff\": %g", e.maxRelDiff);
                js << (i ? ", " : "") << "\"" << e.peer << "\": " << (e.ms > 0 ? cv::format("{\"ms\": %.5f, \"scaled\": %s", e.ms, e.scaled ? "true" : "false") + ex + "}"
                                                                              : "{\"note\": \"" + jsonEscape(e.note) + "\"" + ex + "}");
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
        // Device time alone: a spin kernel holds the stream while the host enqueues the call, so the
        // events bracket the kernel only (the line above also counts apply()'s host time).
        const double deviceMs = timer.medianBehind([&] { spinKernel<<<1, 1, 0, s>>>(2000000); CHECK_CUDA(cudaGetLastError()); },
                                                   [&] { f->apply(src, dst, stream); }, 100);
        // Host time of apply() (argument and device checks, launch): wall time of 200 enqueued calls
        // behind a spin kernel (the queue never fills, so no call waits for the device).
        std::vector<double> hostUs;
        for (int rep = 0; rep < 5; rep++)
        {
            spinKernel<<<1, 1, 0, s>>>(200000000); CHECK_CUDA(cudaGetLastError());
            const int64 t0 = cv::getTickCount();
            for (int i = 0; i < 200; i++) f->apply(src, dst, stream);
            hostUs.push_back((cv::getTickCount() - t0) * 1e6 / cv::getTickFrequency() / 200);
            CHECK_CUDA(cudaStreamSynchronize(s));
        }
        const double hostUsMedian = cudaimage_bench::medianOf(hostUs);
        md << "\n3840x2160 8UC1 sigma 2 (k13): " << cv::format("%.1f", deviceMs * 1000) << " us device time per call (target <= 20 us); "
           << "apply() host time " << cv::format("%.1f", hostUsMedian) << " us (target <= 5 us); event-to-event on an idle stream, host and device together: "
           << cv::format("%.1f", ms * 1000) << " us.\n";
        js << "\n  ],\n  \"uhd_8UC1_sigma2_us\": " << deviceMs * 1000 << ",\n  \"uhd_8UC1_sigma2_host_us\": " << hostUsMedian
           << ",\n  \"uhd_8UC1_sigma2_idle_stream_us\": " << ms * 1000;
    }
    if (!peersPath.empty())
    {
        auto meta = [&](const char* name) {
            auto it = peerResults.meta.find(name);
            return it == peerResults.meta.end() || it->second.text == "null" ? std::string("?") : it->second.text;
        };
        const int cs = peerResults.checkSize;
        // An optional peer's version, or why it did not run ("<peer>_missing").
        auto version = [&](const char* name) {
            const std::string missing = std::string(name) + "_missing";
            return peerResults.meta.count(missing) ? "(not run: " + meta(missing.c_str()) + ")" : meta(name);
        };
        md << "\nPyTorch " << meta("torch") << " (CUDA " << meta("torch_cuda") << ", cuDNN " << meta("cudnn")
           << ", cudnn.benchmark " << meta("cudnn_benchmark") << ", cudnn.allow_tf32 " << meta("cudnn_allow_tf32")
           << "): float32 NCHW, replicate pad, two depthwise conv2d with cv2.getGaussianKernel's taps, 8U/16U converted "
           << "and rounded back inside the timed call; CV-CUDA " << version("cvcuda") << ": cvcuda.gaussian_into, NHWC, "
           << "Border.REPLICATE; CuPy " << version("cupy") << ": cupyx.scipy.ndimage.gaussian_filter(mode=\"nearest\", "
           << "truncate=(ksize/2)/sigma, output= of the source dtype) on the HWC image, sigma (s, s, 0) for more than one "
           << "channel, on the same stream: float32 taps and sums, two passes through a scratch array of the source dtype, "
           << "8U/16U truncated (not rounded) after each pass (the function dask-image's CuPy path calls and cuCIM's "
           << "filters.gaussian vendors); kornia " << version("kornia") << ": kornia.filters.gaussian_blur2d("
           << "border_type=\"replicate\", separable=True)"
           << (meta("kornia_sigma") == "?" ? std::string() : ", sigma as a " + meta("kornia_sigma")) << ", float32 NCHW, taps "
           << "computed on the device per call, 8U/16U converted and rounded back inside the timed call "
           << "(perf/python_peers_bench.py).\n\n"
           << "Exactness against CPU cv::GaussianBlur (BORDER_REPLICATE) on the top-left " << cs << "x" << cs
           << " crop of the same random image: 8U/16U: elements differing (fraction), max |difference|; "
           << "32F: max |difference| / max |input|.\n\n"
           << "| type | sigma (ksize)";
        for (const auto& pp : pyPeers) md << " | " << pp[1];
        md << " |\n|---|---|";
        for (size_t i = 0; i < sizeof pyPeers / sizeof pyPeers[0]; i++) md << "---|";
        md << "\n" << exact.str();
        js << ",\n  \"peers_meta\": {";
        bool first = true;
        for (const auto& kv : peerResults.meta)
        {
            if (kv.first == "peer") continue;
            js << (first ? "" : ", ") << "\"" << jsonEscape(kv.first) << "\": "
               << (kv.second.isString ? "\"" + jsonEscape(kv.second.text) + "\"" : kv.second.text);
            first = false;
        }
        js << "}";
    }
    js << "\n}\n";
    const std::string base = outDir + "/gaussian-" + date;
    printf("%s", md.str().c_str());
    std::error_code dirError;
    std::filesystem::create_directories(outDir, dirError);   // --out may name a folder not made yet
    if (!writeText(base + ".md", md.str()) || !writeText(base + ".json", js.str()))
        return 1;
    fprintf(stderr, "wrote %s.md and %s.json\n", base.c_str(), base.c_str());
    return 0;
}
