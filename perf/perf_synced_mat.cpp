// Round trip host -> device -> filter -> host on a 4K frame, three ways:
//   SyncedMat   : src.writeHost() (discard, no copy), applyFilter (uploads src, discard-writes dst),
//                 dst.readHost() (downloads and waits) -- what the class costs on top of the copies;
//   pinned      : the same bytes by hand with HostMem page-locked buffers, one stream (the floor;
//                 goal: SyncedMat within 1.1x of it);
//   pageable    : the seed's pattern, GpuMat::upload/download from an ordinary Mat on every call.
// 8UC3 uses a cheap per-pixel op (x + 1) so the copies dominate; 8UC4 uses cudafilters'
// createGaussianFilter 5x5. Bytes moved per cycle: 2 x 3840 x 2160 x cn.
//   opencv_perf_cudaimage --gtest_filter='*SyncedMat*'
#include "perf_precomp.hpp"

namespace opencv_test { namespace {

typedef tuple<Size, MatType> Size_Type;
typedef perf::TestBaseWithParam<Size_Type> SyncedMatRoundTrip;

#define SYNCED_SIZES testing::Values(Size(3840, 2160))
#define SYNCED_TYPES testing::Values(CV_8UC3, CV_8UC4)

// dst = src + 1 (saturated): a filter that costs one read and one write of each byte.
struct AddOneFilter : public cuda::Filter
{
    void apply(InputArray src, OutputArray dst, cuda::Stream& stream) CV_OVERRIDE
    {
        src.getGpuMat().convertTo(dst, -1, 1.0, 1.0, stream);
    }
};

Ptr<cuda::Filter> filterFor(int type)
{
    if (CV_MAT_CN(type) == 4)
        return cuda::createGaussianFilter(type, type, Size(5, 5), 1.5);
    return makePtr<AddOneFilter>();
}

// One round trip's case: the image size and type, the filter for the type; skips without a device.
struct RoundTripCase
{
    Size size;
    int type;
    Ptr<cuda::Filter> filter;
};

RoundTripCase roundTripCase(const Size_Type& param)
{
    if (!PERF_RUN_CUDA())
        throw SkipTestException("needs a CUDA device");
    return RoundTripCase{get<0>(param), get<1>(param), filterFor(get<1>(param))};
}

PERF_TEST_P(SyncedMatRoundTrip, SyncedMat, testing::Combine(SYNCED_SIZES, SYNCED_TYPES))
{
    const RoundTripCase c = roundTripCase(GetParam());
    const Ptr<cuda::Filter>& f = c.filter;
    Mat init(c.size, c.type);
    declare.in(init, WARMUP_RNG);
    cuda::Stream stream;
    cuda::SyncedMat src(init), dst;
    cuda::applyFilter(f, src, dst, stream);   // allocates both sides once
    dst.readHost();
    src.resetStats();
    dst.resetStats();
    int cycles = 0;
    TEST_CYCLE()
    {
        src.writeHost();                      // new host data: the device copy is stale
        cuda::applyFilter(f, src, dst, stream);
        dst.readHost();
        ++cycles;
    }
    // Exactly one upload and one download per cycle, nothing hidden.
    EXPECT_EQ(cycles, src.stats().uploads);
    EXPECT_EQ(0, src.stats().downloads);
    EXPECT_EQ(cycles, dst.stats().downloads);
    EXPECT_EQ(0, dst.stats().uploads);
    SANITY_CHECK_NOTHING();
}

PERF_TEST_P(SyncedMatRoundTrip, pinned_by_hand, testing::Combine(SYNCED_SIZES, SYNCED_TYPES))
{
    const RoundTripCase c = roundTripCase(GetParam());
    const Ptr<cuda::Filter>& f = c.filter;
    cuda::HostMem hsrc(c.size, c.type, cuda::HostMem::PAGE_LOCKED), hdst(c.size, c.type, cuda::HostMem::PAGE_LOCKED);
    Mat init = hsrc.createMatHeader();
    declare.in(init, WARMUP_RNG);
    cuda::Stream stream;
    cuda::GpuMat dsrc(c.size, c.type), ddst(c.size, c.type);
    TEST_CYCLE()
    {
        dsrc.upload(hsrc, stream);
        f->apply(dsrc, ddst, stream);
        ddst.download(hdst, stream);
        stream.waitForCompletion();
    }
    SANITY_CHECK_NOTHING();
}

PERF_TEST_P(SyncedMatRoundTrip, pageable_seed_pattern, testing::Combine(SYNCED_SIZES, SYNCED_TYPES))
{
    const RoundTripCase c = roundTripCase(GetParam());
    const Ptr<cuda::Filter>& f = c.filter;
    Mat src(c.size, c.type), dst(c.size, c.type);
    declare.in(src, WARMUP_RNG);
    cuda::GpuMat dsrc, ddst;
    TEST_CYCLE()
    {
        dsrc.upload(src);                     // synchronous, from pageable memory
        f->apply(dsrc, ddst);
        ddst.download(dst);
    }
    SANITY_CHECK_NOTHING();
}

}} // namespace opencv_test::<anonymous>
