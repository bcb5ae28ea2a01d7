// cv::exp(cv::softdouble) in hardware double arithmetic (softdouble_exp.hpp).
//
// OpenCV's f64_exp: x0 = x * 64 / ln 2 (clamped to +-192000 for |x| >= 2048); n = round(x0) (half to
// even); exp(x) = 2^(n >> 6) * A0 * 2^((n & 63) / 64) * P((x0 - n) / 64), P a fifth-degree
// polynomial in Horner form whose coefficients are OpenCV's constants divided by A0, each product
// and sum rounded as it goes.
#include "precomp.hpp"
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include "opencv2/core/softfloat.hpp"
#include "softdouble_exp.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

using ieee::bitsOf;
using ieee::fromBits;

// The constants of OpenCV's f64_exp (modules/core/src/softfloat.cpp), as bit patterns.
constexpr int kTableScale = SoftdoubleExpConstants::kTableBits;   // 64 entries: 2^(i/64)
constexpr uint64_t kPolyScale = 0x3f83ce0f3e46f431;  // EXPPOLY_32F_A0
constexpr uint64_t kInvLn2 = 0x3ff71547652b82fe;     // 1 / ln 2
constexpr uint64_t kPoly[5] = {0x3f55e7aa1566c2a4, 0x3f83b2a72b4f3cd3, 0x3fac6b08d81fec75,
                               0x3fcebfbdff82a45a, 0x3fe62e42fefa39f1};   // x^5 .. x^1, before / A0

SoftdoubleExpConstants makeConstants()
{
    SoftdoubleExpConstants c;
    c.polyScale = fromBits(kPolyScale);
    c.prescale = fromBits(kInvLn2) * double(1 << kTableScale);
    c.postscale = 1.0 / double(1 << kTableScale);
    c.maxValue = 3000.0 * (1 << kTableScale);
    for (int k = 0; k < 5; k++)
        c.poly[k] = fromBits(kPoly[k]) / c.polyScale;
    c.poly[5] = 1.0 / c.polyScale;
    // 2^(i/64) rounded to nearest: exactly OpenCV's expTab (every entry compared when this was
    // written; the self-check below covers every entry at run time).
    for (int i = 0; i < (1 << kTableScale); i++)
        c.table[i] = static_cast<double>(std::exp2(static_cast<long double>(i) / (1 << kTableScale)));
    return c;
}

} // namespace

const SoftdoubleExpConstants& softdoubleExpConstants()
{
    static const SoftdoubleExpConstants c = makeConstants();
    return c;
}

double softdoubleExpHardware(double x)
{
    const SoftdoubleExpConstants& c = softdoubleExpConstants();
    // A result at or below 2^-960 could meet a flush-to-zero FPU in its last products: NaN, and
    // the caller asks cv::exp.
    if (std::isfinite(x) && softdoubleExpScale(c, softdoubleExpArgument(c, x)) < 1023 - 960)
        return std::numeric_limits<double>::quiet_NaN();
    return softdoubleExpOf(c, x);
}

namespace {

double openCvExp(double x) { return static_cast<double>(cv::exp(cv::softdouble(x))); }

// The self-check: arguments over [-2048, 0] that reach every table entry, both ends of each
// rounding interval, and the clamp beyond.
bool hardwareMatchesOpenCv()
{
    if (FLT_EVAL_METHOD != 0 || std::fegetround() != FE_TONEAREST)
        return false;
    const SoftdoubleExpConstants& c = softdoubleExpConstants();
    for (int n = -64 * 700; n <= 0; n += 7)
        for (double f : {-0.5, -0.49999, -0.25, 0.0, 0.25, 0.49999, 0.5})
        {
            const double x = (n + f) / c.prescale;
            const double h = softdoubleExpHardware(x);
            if (!std::isnan(h) && bitsOf(h) != bitsOf(openCvExp(x)))
                return false;
        }
    for (double x : {-0.0, -1e-300, -2047.9, -2048.0, -1e6, -std::numeric_limits<double>::infinity()})
    {
        const double h = softdoubleExpHardware(x);
        if (!std::isnan(h) && bitsOf(h) != bitsOf(openCvExp(x)))
            return false;
    }
    return true;
}

bool useHardware()
{
    static const bool ok = hardwareMatchesOpenCv();
    return ok;
}

} // namespace

bool softdoubleExpInHardware() { return useHardware() && std::fegetround() == FE_TONEAREST; }

double softdoubleExp(double x)
{
    if (softdoubleExpInHardware())
    {
        const double h = softdoubleExpHardware(x);
        if (!std::isnan(h) || std::isnan(x))
            return h;
    }
    return openCvExp(x);
}

}}} // namespace cv::cuda::gaussian
