// The skeleton the tensor-core units share (src/paths/tensor_core, tensor_core_16u, tensor_core_32f):
// a persistent grid, as many blocks as the device holds at once, each taking tiles of 32 output
// rows in turn, over one image or over the images of a batch, and its host side (grid size,
// shared-memory opt-in, the code-runs query, the checked launch). A unit keeps only its arithmetic
// (a tile's passes), its tap tables in shared memory and its tuning.
//
//   one image (N = 1): the image and its taps are the kernel's parameters (OneImage): nothing is
//     allocated, so the launch is capturable as any other; the tap tables are built once per block;
//   N images: their BatchItems in device memory (ImageList), each with its taps and the number of
//     tiles of the images before it (firstTile); the tiles of all images form one sequence that the
//     blocks take in turn, so a small image does not leave SMs idle and a large one is spread over
//     all of them. A block rebuilds its tap tables only where the image's taps change.
//
// Within an image the tiles go in column-major order (strip fastest): the blocks in flight work
// down the same band of columns, so the costly edge tiles (border-mapped loads) fall on all of them
// alike (in row-major order a block whose step was a multiple of the column count kept the image's
// first column: radius 128 took 5.0 ms instead of about 2 on an H200).
#ifndef CUDAIMAGE_CUDA_PERSISTENT_TILES_CUH
#define CUDAIMAGE_CUDA_PERSISTENT_TILES_CUH

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cuda_runtime.h>
#include "../gaussian_blur_call.hpp"
#include "../gaussian_path_query.hpp"
#include "capture_mode.hpp"
#include "checked_launch.cuh"
#include "gaussian_fused_common.cuh"

namespace cv { namespace cuda { namespace gaussian { namespace persistent {

/** Output rows of every tensor-core tile: two 16-row MMA halves. */
constexpr int kTileRows = 32;
/** The most blocks a launch gets (each takes tiles in turn): tile counts are 64-bit, the kernels'
 * step arithmetic over one image's tiles 32-bit. */
constexpr long long kMaxGridBlocks = 1 << 30;

/** One image and its taps, as kernel parameters. */
template <class Taps>
struct OneImage
{
    BlurCall call;
    Taps taps;
};

/** The images of one batched launch, in device memory: item i's taps are a `Taps` struct in device
 * memory, its firstTile the tiles of items 0..i-1. */
struct ImageList
{
    const BatchItem* items = nullptr;
    int count = 0;
    long long tiles = 0;   //!< every item's tiles
};

#if defined(__CUDACC__)

/** The tiles of one image for this block: prepare(taps) builds the block's tap tables once, then
 * body(p, taps, column, strip) for every tile b, b + gridDim.x, ... (tilePixels(r): output pixels
 * of a tile row at radius r). */
template <class Taps, class TilePixels, class Prepare, class Body>
__device__ __forceinline__ void forEachTile(const OneImage<Taps>& one, TilePixels tilePixels, Prepare&& prepare, Body&& body)
{
    const BlurCall& p = one.call;
    const Taps& taps = one.taps;
    prepare(taps);
    __syncthreads();
    const int tile = tilePixels(taps.r);
    const int columns = (p.width + tile - 1) / tile;
    const int strips = (p.height + kTileRows - 1) / kTileRows;
    // (column, strip) advanced by gridDim.x tiles per step without a division
    const int stepColumns = gridDim.x / strips, stepStrips = gridDim.x % strips;
    int strip = blockIdx.x % strips;
    for (int column = blockIdx.x / strips; column < columns; column += stepColumns)
    {
        body(p, taps, column, strip);
        strip += stepStrips;
        if (strip >= strips)
        {
            strip -= strips;
            column++;
        }
    }
}

/** The item that holds tile t: the last one whose firstTile <= t, from item `from` on (t only
 * grows within a block). Every warp finds it alike, 32 candidates per step. */
__device__ __forceinline__ int itemOfTile(const ImageList& list, long long t, int from)
{
    if (from + 1 >= list.count || list.items[from + 1].firstTile > t)
        return from;
    const int lane = threadIdx.x & 31;
    int lo = from + 1, hi = list.count;   // items[lo].firstTile <= t; the answer is in [lo, hi)
    while (hi - lo > 1)
    {
        const int step = (hi - lo + 31) / 32;
        const int i = lo + lane * step;
        const unsigned at = __ballot_sync(0xffffffffu, i < hi && list.items[i].firstTile <= t);
        lo += (31 - __clz(at)) * step;   // lane 0's candidate (lo) always qualifies
        hi = ::min(hi, lo + step);
    }
    return lo;
}

/** The tiles of a batch's images for this block: tiles b, b + gridDim.x, ... of the sequence of
 * every image's tiles; prepare(taps) wherever the image's taps differ from the block's tables. */
template <class Taps, class TilePixels, class Prepare, class Body>
__device__ __forceinline__ void forEachTile(const ImageList& list, TilePixels tilePixels, Prepare&& prepare, Body&& body)
{
    int item = 0;
    int current = -1;            // the item whose call is in p
    const Taps* tables = nullptr; // the taps the block's tables hold
    BlurCall p;
    int strips = 1;
    for (long long t = blockIdx.x; t < list.tiles; t += gridDim.x)
    {
        item = itemOfTile(list, t, item);
        if (item != current)
        {
            current = item;
            p = list.items[item].call;
            strips = (p.height + kTileRows - 1) / kTileRows;
            const Taps* taps = static_cast<const Taps*>(list.items[item].taps);
            if (taps != tables)
            {
                // block-uniform: every thread takes the same tiles
                __syncthreads();   // the previous tile is done with the tables
                prepare(*taps);
                __syncthreads();
                tables = taps;
            }
        }
        const long long local = t - list.items[item].firstTile;
        body(p, *tables, static_cast<int>(local / strips), static_cast<int>(local % strips));
    }
}

#endif // __CUDACC__

// ---- host -----------------------------------------------------------------------------------

/** Whether a kernel's code for the current device was compiled for sm_80 or later (its MMAs need
 * it): the PTX target of the loaded code (as CUB's PtxVersion), 75 where the driver compiled sm_75
 * PTX for a newer GPU. No code for the device at all: not runnable either (the error is not sticky;
 * cleared). Asked once per device, by the first apply() there, which may be being captured into a
 * CUDA graph: in relaxed capture mode, so that the query is not refused (a refusal would read as
 * "no code" and keep the path off on the device for the process) and does not invalidate the
 * capture. */
template <class Kernel>
bool codeRunsTensorCores(Kernel kernel)
{
    cudaFuncAttributes attributes;
    RelaxedCaptureMode relaxed;
    if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return false;
    }
    return attributes.ptxVersion >= 80;
}

/** A unit's two kernel instances of one body (one image, a batch), their launch geometry and their
 * shared-memory opt-in (once per device and kernel, for the largest tile it can ask for: the path's
 * rule checked that the device holds it; each launch asks for its own). */
template <class Taps>
struct Kernels
{
    const char* name;       //!< one image's kernel
    const char* listName;   //!< a batch's
    void (*one)(OneImage<Taps>);
    void (*list)(ImageList);
    int threads;
    size_t maxSharedBytes;
    mutable std::atomic<uint64_t> optedIn[2] = {};   //!< per device: [0] one, [1] list

    /** One image: as many blocks as the device holds at once (choice.residentBlocks), or one per
     * tile where there are fewer. */
    void launch(const BlurCall& p, const Taps& taps, const PathChoice& choice, cudaStream_t stream) const
    {
        fused::optInSharedMemory(one, maxSharedBytes, optedIn[0]);
        const long long tiles = choice.tiles(p.width, p.height, p.channels);
        const long long blocks = std::min(std::min<long long>(tiles, choice.residentBlocks), kMaxGridBlocks);
        launchChecked(name, one, dim3(static_cast<unsigned>(blocks)), threads, choice.sharedBytes, stream, OneImage<Taps>{p, taps});
    }

    /** The images of `b`: one launch, its shared memory the largest any of them asks for. */
    void launch(const BatchLaunch& b, cudaStream_t stream) const
    {
        fused::optInSharedMemory(list, maxSharedBytes, optedIn[1]);
        ImageList l;
        l.items = b.items;
        l.count = b.count;
        l.tiles = b.tiles;
        const long long blocks = std::min(std::min<long long>(b.tiles, b.residentBlocks), kMaxGridBlocks);
        launchChecked(listName, list, dim3(static_cast<unsigned>(blocks)), threads, b.sharedBytes, stream, l);
    }
};

}}}} // namespace cv::cuda::gaussian::persistent

#endif
