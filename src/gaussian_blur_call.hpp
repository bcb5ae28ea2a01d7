// What one apply() hands to the kernel path that blurs it: the images and the borders. Every path's
// launcher takes it; the two-pass path extends it with its own scratch (src/paths/two_pass). A batch
// hands a batched path one launch's images as BatchItems in device memory (BatchLaunch).
#ifndef CUDAIMAGE_GAUSSIAN_BLUR_CALL_HPP
#define CUDAIMAGE_GAUSSIAN_BLUR_CALL_HPP

#include <cstddef>

namespace cv { namespace cuda { namespace gaussian {

/** One call's images. The source is described by its whole image (for sub-matrices: the parent, so
 * real pixels outside the ROI are used) and the ROI's offset in it. Passed to kernels by value. */
struct BlurCall
{
    int depth = 0;          //!< source depth (CV_8U, CV_16U, CV_16S, CV_32F, CV_64F)
    int channels = 1;
    bool floatOutput = false; //!< destination is CV_32F (unrounded) rather than the source depth

    const unsigned char* srcWhole = nullptr; //!< pixel (0,0) of the whole source image
    size_t srcStep = 0;
    int wholeWidth = 0, wholeHeight = 0;
    int roiX = 0, roiY = 0, width = 0, height = 0;

    unsigned char* dst = nullptr;
    size_t dstStep = 0;
    bool dstAligned4 = false;  //!< dst and dstStep are multiples of 4 output elements (vector stores)
    bool dstAligned16 = false; //!< dst and dstStep are multiples of 16 bytes (fused paths' item stores)
    bool srcAligned4 = false;  //!< srcWhole, srcStep and roiX*channels allow 4-element vector loads

    int rx = 0, ry = 0;        //!< the radii filtered with (0 in a direction not filtered across)
    bool unitX = false, unitY = false; //!< a single column / row not filtered across (one-tap kernel there)
    int rowBorder = 0, columnBorder = 0;     //!< cv::BorderTypes without BORDER_ISOLATED
};

/** One image of a batched launch, in device memory: its call and its taps (the path's own tap
 * struct for the source depth, in device memory too; images with the same kernel share them). A
 * batched kernel reads item blockIdx.z. */
struct alignas(16) BatchItem
{
    BlurCall call;
    const void* taps = nullptr;
    long long firstTile = 0;   //!< persistent-grid paths: the tiles of the launch's items before this one
};

/** One batched launch of a path: `count` images of one depth and channel count that share the
 * path's kernel instance (BatchTaps::instance), their items in device memory. The grid covers the
 * largest image (blocksAcross tiles, maxHeight rows); a block outside its own image returns. */
struct BatchLaunch
{
    int depth = 0;
    int channels = 1;
    int instance = 0;                  //!< the path's kernel instance (fused: radius and padding, or 0 for every radius)
    const BatchItem* items = nullptr;  //!< device memory, `count` items
    int count = 0;
    int blocksAcross = 0;              //!< most tiles across any image of the launch
    int maxHeight = 0;                 //!< most rows of any image of the launch
    long long maxRowElements = 0;      //!< most elements (width x channels) in a row of any image of the launch
    int maxRadius = 0;                 //!< the largest radius R = max(rx, ry) of the launch's kernels
    int multiprocessors = 0;           //!< the device's SMs (launchers size their strips by them)
    int forcedStripRows = 0;           //!< the choice's (PathChoice::forcedStripRows)
    bool warpTiles = false;            //!< the choice's (PathChoice::warpTiles)
    // Persistent-grid paths (PathChoice::residentBlocks > 0):
    long long tiles = 0;               //!< every item's tiles (the last item's firstTile plus its own)
    size_t sharedBytes = 0;            //!< the most dynamic shared memory any item's choice asks for
    int residentBlocks = 0;            //!< blocks the device holds at once
};

}}} // namespace cv::cuda::gaussian

#endif
