// 8U vertical sums by DP4A, exactly the CPU's fixed point: a thread's 4 columns of source words are
// transposed 4x4 (a word per column, a byte per row), and each output row takes a DP4A per column
// and group of 4 source rows against a tap word shifted to its phase. The sums start at the float
// bits of 2^23, so a sum below 2^16 reads as the float 2^23 + sum (one FADD takes it out).
// No OpenCV dependency: the fused kernel (src/paths/fused) uses it.
#ifndef CUDAIMAGE_CUDA_DP4A_COLUMN_SUMS_CUH
#define CUDAIMAGE_CUDA_DP4A_COLUMN_SUMS_CUH

#include <cstdint>

namespace cv { namespace cuda { namespace gaussian { namespace fused {

// 4x4 byte transpose: in w_r byte c = row r, column c; out x[c] byte r = row r, column c.
__device__ __forceinline__ void transpose4x4(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t (&x)[4])
{
    const uint32_t t0 = __byte_perm(w0, w1, 0x5140), t1 = __byte_perm(w0, w1, 0x7362);
    const uint32_t t2 = __byte_perm(w2, w3, 0x5140), t3 = __byte_perm(w2, w3, 0x7362);
    x[0] = __byte_perm(t0, t2, 0x5410);
    x[1] = __byte_perm(t0, t2, 0x7632);
    x[2] = __byte_perm(t1, t3, 0x5410);
    x[3] = __byte_perm(t1, t3, 0x7632);
}

// 8U vertical sums start at the float bits of 2^23: a sum below 2^16 lands in the mantissa.
constexpr uint32_t kDp4aBias = 0x4B000000u;

// acc[v][c] += sum over j of tap[j] * row (v + j) of column c, j = 0 .. 2R, for kRows output rows;
// w[j] holds source row j's 4 bytes (rows past kRows + 2R are zero), vw[ph][q] byte b = tap[4q + b - ph].
template <int kRows, int R, int kSourceRows, int kWords>
__device__ __forceinline__ void dp4aColumnSums(const uint32_t (&w)[kSourceRows], const uint32_t (&vw)[4][kWords],
                                               uint32_t (&acc)[kRows][4])
{
    static_assert(kSourceRows % 4 == 0 && kSourceRows >= kRows + 2 * R, "whole groups of 4, a word for every source row");
    constexpr int kGroups = kSourceRows / 4;
#pragma unroll
    for (int g = 0; g < kGroups; g++)
    {
        uint32_t x[4];
        transpose4x4(w[4 * g], w[4 * g + 1], w[4 * g + 2], w[4 * g + 3], x);
#pragma unroll
        for (int v = 0; v < kRows; v++)
        {
            const int ph = v & 3, q = g - (v >> 2);
            if (q >= 0 && 4 * q - ph <= 2 * R)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[v][c] = __dp4a(x[c], vw[ph][q], acc[v][c]);
        }
    }
}

}}}} // namespace cv::cuda::gaussian::fused

#endif
