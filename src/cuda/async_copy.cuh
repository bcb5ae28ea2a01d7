// Asynchronous global-to-shared copies (cp.async, sm_80 and later): a thread starts copies of its
// own words into shared memory, works on, and waits for them when it needs them; the registers stay
// free meanwhile. Below sm_80 asyncCopies() is false and the callers keep their direct loads (the
// copy functions are then never reached; they trap if they are).
#ifndef CUDAIMAGE_CUDA_ASYNC_COPY_CUH
#define CUDAIMAGE_CUDA_ASYNC_COPY_CUH

#include <cstdint>

namespace cv { namespace cuda { namespace gaussian {

/** Whether this device code has cp.async. */
__host__ __device__ __forceinline__ constexpr bool asyncCopies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return true;
#else
    return false;
#endif
}

/** Starts a copy of Bytes (4, 8 or 16; both addresses aligned to it) from global to shared memory,
 * through L1 (.ca: the neighbouring strips' halo rows are read again from L1 or L2). */
template <int Bytes>
__device__ __forceinline__ void copyAsync(void* shared, const void* global)
{
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(global), "n"(Bytes) : "memory");
#else
    (void)shared; (void)global;
    __trap();
#endif
}

/** Waits until every copy this thread started has landed (its own words only: no barrier). */
__device__ __forceinline__ void waitAsyncCopies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}}} // namespace cv::cuda::gaussian

#endif
