#ifndef OPENCV_CUDAIMAGE_BATCH_HPP
#define OPENCV_CUDAIMAGE_BATCH_HPP

#include <functional>
#include <vector>

#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/cudafilters.hpp"
#include "opencv2/cudaimage/synced_mat.hpp"

namespace cv { namespace cuda {

//! @addtogroup cudaimage_batch
//! @{

/** @brief Makes the filter that one device uses in a batch.

Called once per device by BatchProcessor::create() (and so by processBatch()), on the calling thread,
with that device made current (cv::cuda::getDevice() returns it inside the call; the caller's
current device is restored afterwards), one device after the other: never concurrently. The filter
it returns is then used by that device's worker thread only. A factory that throws, or returns a
null filter, makes create() throw cv::Exception naming the device.

Example: `[] { return cv::cuda::createGaussianBlur(CV_8UC3, -1, cv::Size(0, 0), 2.0); }`.
 */
typedef std::function<Ptr<Filter>()> FilterFactory;

/** @brief Applies a filter to a list of images spread over several GPUs, results in input order.

One worker thread per device. Each worker owns its device's filter (made by the FilterFactory) and
two slots, each with its own CUDA stream (non-blocking), page-locked staging buffers and device
buffers. Images are handed out one at a time to whichever worker asks first (a faster GPU takes
more), so the work balances by itself. While one slot's image is uploaded, filtered and downloaded
on its stream, the worker copies the other slot's finished result out of page-locked memory and
the next image in: host copies, transfers in both directions and kernels of successive images
overlap. Those host copies of ordinary (pageable) images are split into row bands of at least 1 MiB
over OpenCV's threads (cv::setNumThreads() sets how many; with several GPUs the workers share them,
and a worker that finds them busy copies alone). Small ordinary images (up to 1 MiB each) move in
groups of up to 4 MiB per direction: a slot packs a group into its page-locked staging over the
host's threads, uploads it in one transfer, applies the filter to each image in turn and downloads
every result in one transfer, so that a list of many small images pays two transfers per group
rather than per image. A group forms once the worker has seen the filter's output type for that
input type (the first image of each type goes alone); a filter that puts a result elsewhere than
the view it was given (another size or type, or memory of its own) still works: that result is
downloaded on its own.

A processor keeps its filters, streams and buffers between calls: reuse it for repeated batches of
the same size (after the first batch, a batch of same-sized images allocates nothing). process() is
not meant to run from several threads at once on one processor; such calls run one after the other.

@par Inputs and results
- cv::Mat images (process(const std::vector<Mat>&, std::vector<Mat>&)): any size and type, and they
  may differ from image to image (a buffer grows to the largest image it has seen); each image must
  be accepted by the filter (a createGaussianBlur filter takes one type; processBatchGaussian()
  accepts several). results is resized to the number of images, and results[i] receives the
  filter's output for images[i] through Mat::create (an element of the right size and type is
  written in place; results may be images itself; an element without data takes images[i]'s
  allocator unless that is page-locked, so that cv2 returns NumPy results without a copy). Images in page-locked memory (cv::cuda::HostMem,
  or a Mat whose allocator is HostMem::getAllocator()) are uploaded from directly, and results
  elements of the right size and type in page-locked memory are downloaded into directly: no
  staging copy on the host for them. An image that is a region of a larger Mat is filtered as an
  image of its own: only the region is uploaded, so the pixels around it are not read (as with
  BORDER_ISOLATED; cv::cuda::Filter::apply on a GpuMat region does read them).
- SyncedMat images (process(std::vector<SyncedMat>&, std::vector<SyncedMat>&)): no staging copy (their
  host memory is page-locked already). An image whose device side is valid on one of the devices is
  processed there; the others go to whichever worker asks first and are moved there with
  SyncedMat::moveToDevice() whatever their cross-device policy (passing them here asks for it: a
  host-only image is re-bound, device data elsewhere is peer-copied). Each input is read on the
  device (uploaded when stale). results[i] becomes a new SyncedMat (earlier handles in results are
  not written) holding the output on the device that computed it and on the host (both valid when
  process() returns, each with one allocation), with the input's cross-device policy. Two inputs
  may not share a storage (ROI views of one image, or one handle twice).

@par Errors
Bad input (no images, an empty image, a SyncedMat without data or sharing its storage with another
input) throws cv::Exception before any CUDA call. A failure on a worker (the filter refusing an
image, out of memory, a CUDA error) stops every worker from taking more images, waits for the work
already queued on the GPUs, and is rethrown on the calling thread as cv::Exception with the original
code and a message naming the image index and the device; the first failure wins. results then holds
the images finished so far and is unspecified for the others. The processor stays usable.

@sa processBatch, processBatchGaussian, SyncedMat
 */
class CV_EXPORTS BatchProcessor
{
public:
    virtual ~BatchProcessor();

    /** @brief Creates the processor: checks the devices, then calls @p factory once per device.
    @param factory Makes each device's filter (see FilterFactory); a null factory throws
    cv::Exception (StsNullPtr) before any CUDA call.
    @param devices CUDA device ids, each once, from 0 to cv::cuda::getCudaEnabledDeviceCount() - 1;
    empty (default): every visible device. Negative or repeated ids throw before any CUDA call.
    Streams and filters are created here; staging and device buffers at the first batch.
     */
    static Ptr<BatchProcessor> create(const FilterFactory& factory,
                                      const std::vector<int>& devices = std::vector<int>());

    /** @brief Filters every host image, spread over the devices; waits until all are done.
    @param images Non-empty list of non-empty 2-D images (see the class description).
    @param results Outputs in input order (resized to images.size()). */
    virtual void process(const std::vector<Mat>& images, std::vector<Mat>& results) = 0;

    /** @brief Filters every SyncedMat, spread over the devices; waits until all results are on the
    host too.
    @param images Non-empty list of SyncedMats holding data, no two sharing a storage.
    @param results New SyncedMats in input order (resized to images.size()). */
    virtual void process(std::vector<SyncedMat>& images, std::vector<SyncedMat>& results) = 0;

    //! @brief The devices, in the order given (or 0 to N-1).
    virtual std::vector<int> devices() const = 0;

    //! @brief How many images each device (same order as devices()) processed in the last batch.
    virtual std::vector<int> imagesPerDevice() const = 0;
};

/** @brief One batch with a temporary BatchProcessor: `BatchProcessor::create(factory,
devices)->process(images, results)`, with the images checked first (before any CUDA call).
Creating the processor costs streams, filters and page-locked buffers: for repeated batches, keep a
BatchProcessor.
@param images Host images (any size; types the filter accepts).
@param factory Makes one filter per device (see FilterFactory).
@param results Outputs, in the order of @p images.
@param devices Device ids, or empty for every visible device.
 */
CV_EXPORTS void processBatch(const std::vector<Mat>& images, const FilterFactory& factory,
                             std::vector<Mat>& results, const std::vector<int>& devices = std::vector<int>());

//! @overload For SyncedMat images (see BatchProcessor for what happens to them and to results).
CV_EXPORTS void processBatch(std::vector<SyncedMat>& images, const FilterFactory& factory,
                             std::vector<SyncedMat>& results, const std::vector<int>& devices = std::vector<int>());

/** @brief Gaussian blur of a list of host images over several GPUs (the Python-friendly form of
processBatch()).

Every result is what cv::cuda::GaussianBlur (and so CPU cv::GaussianBlur, see createGaussianBlur for
the exact guarantees) gives for that image; an image that is a region of a larger Mat is blurred as
an image of its own. Bad arguments (as for createGaussianBlur, for every type present) and bad
images throw cv::Exception before any CUDA call.

Images of one type (each up to 1 GiB) move in chunks of up to 4 MiB: each chunk is packed into
page-locked staging over OpenCV's threads, copied to the device in one transfer, blurred as one
batch (createGaussianBlurBatch: a few launches for the whole chunk) and copied back in one transfer,
two chunks in flight per device on streams of their own, so that transfers, kernels and the host's
packing overlap. The staging, device buffers, streams and filter are kept per device between calls
(grown to the largest chunk; calls for one device take turns), so a call allocates nothing once a
chunk of its size has been seen. Several devices take contiguous ranges of about equal bytes. Lists
of mixed types (or a larger image) go through a temporary BatchProcessor with
createGaussianBlur(type, -1, ksize, sigmaX, sigmaY, borderType, borderType) per type.

A result without data is allocated by its image's allocator (unless that is a page-locked one): from
Python, where the images are NumPy arrays, the results are NumPy arrays that cv2 returns without
another copy. Results given with the right size and type are written in place (in Python: pass a
list of arrays as results), which also spares the page faults of new memory.

@param images Non-empty list of non-empty host images.
@param results Blurred images, in the order of @p images.
@param ksize Kernel size (0 or odd per direction).
@param sigmaX Gaussian sigma in x.
@param sigmaY Gaussian sigma in y; <= 0 means sigmaX.
@param borderType Border mode (default BORDER_REPLICATE), optionally | BORDER_ISOLATED.
@param devices CUDA device ids; empty (default): every visible device.
@sa processBatch, createGaussianBlur, cv::GaussianBlur
 */
CV_EXPORTS_W void processBatchGaussian(const std::vector<Mat>& images, CV_OUT std::vector<Mat>& results,
                                       Size ksize, double sigmaX, double sigmaY = 0,
                                       int borderType = BORDER_REPLICATE,
                                       const std::vector<int>& devices = std::vector<int>());

//! @}

}} // namespace cv::cuda

#endif
