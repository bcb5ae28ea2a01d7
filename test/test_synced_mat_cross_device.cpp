// SyncedMat on several GPUs: the device its storage lives on, moves between devices (peer copies
// and their counts, stale memory dropped, host-only data re-bound) and the cross-device policy
// (refuse, naming both devices, or migrate on a device access), kept by copies, views and create().
//  - CudaImage_MultiGpuArgs.*: what must fail (or hold) before any CUDA call; no GPU needed.
//  - CudaImage_MultiGpu.*: one GPU (moves and the policy on the own device).
//  - CudaImage_MultiGpu2.*: two GPUs; they skip with "needs 2 GPUs" elsewhere.
// Error messages are printed as "[ MULTIGPU ] test | code | message" (doc/errors.md quotes them).
#include "test_precomp.hpp"
#include "multi_gpu_helpers.hpp"

#include <string>

namespace opencv_test { namespace {

// Device-only data on `dev`: DEVICE_VALID, filled with `value`.
SyncedMat deviceOnly(Size sz, int type, Scalar value, int dev)
{
    const int prev = cv::cuda::getDevice();
    cv::cuda::setDevice(dev);
    SyncedMat m(sz, type);
    Stream s;
    m.writeDevice(s).setTo(value, s);
    s.waitForCompletion();
    cv::cuda::setDevice(prev);
    return m;
}

//////////////////////////////////////////////////////////////////////////////////////////////
// No GPU needed

TEST(CudaImage_MultiGpuArgs, policy_is_per_storage_and_checked)
{
    SyncedMat m(8, 8, CV_8UC1);
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_REFUSE, m.crossDevicePolicy());
    SyncedMat copy = m, view(m, Rect(1, 1, 4, 4));
    m.setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_MIGRATE, copy.crossDevicePolicy());
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_MIGRATE, view.crossDevicePolicy());
    m.create(16, 16, CV_8UC3);   // a new storage keeps the handle's policy
    EXPECT_FALSE(m.sharesStorageWith(copy));
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_MIGRATE, m.crossDevicePolicy());
    expectError([&] { m.setCrossDevicePolicy(7); }, cv::Error::StsBadArg,
                {"SyncedMat::setCrossDevicePolicy: policy is 7; allowed: CROSS_DEVICE_REFUSE (0) or CROSS_DEVICE_MIGRATE (1)"});
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_MIGRATE, m.crossDevicePolicy());
    SyncedMat empty;
    EXPECT_EQ((int)SyncedMat::CROSS_DEVICE_REFUSE, empty.crossDevicePolicy());
    expectError([&] { empty.setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE); }, cv::Error::StsBadArg,
                {"SyncedMat::setCrossDevicePolicy: the SyncedMat is empty"});
}

TEST(CudaImage_MultiGpuArgs, peer_copy_reason)
{
    EXPECT_EQ((int)TransferStats::PEER_COPY + 1, (int)TransferStats::REASON_COUNT);
    EXPECT_EQ(std::string("PEER_COPY"), std::string(TransferStats::reasonName(TransferStats::PEER_COPY)));
    const TransferStats st = SyncedMat(4, 4, CV_8UC1).stats();
    EXPECT_EQ(0, st.peerCopies);
    EXPECT_EQ(0u, st.peerCopyBytes);
    EXPECT_EQ(0, st.count(TransferStats::PEER_COPY));
    EXPECT_EQ(0u, st.bytesFor(TransferStats::PEER_COPY));
}

TEST(CudaImage_MultiGpuArgs, move_to_device_checks)
{
    SyncedMat empty;
    expectError([&] { empty.moveToDevice(0, noCudaStream()); }, cv::Error::StsBadArg,
                {"SyncedMat::moveToDevice: the SyncedMat is empty"});
    SyncedMat m(4, 4, CV_8UC1);
    expectError([&] { m.moveToDevice(-1, noCudaStream()); }, cv::Error::StsOutOfRange,
                {"SyncedMat::moveToDevice: device is -1"});
    EXPECT_EQ(-1, m.deviceId());
}

//////////////////////////////////////////////////////////////////////////////////////////////
// One GPU

TEST(CudaImage_MultiGpu, move_to_device_on_one_gpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int dev = cv::cuda::getDevice(), n = cv::cuda::getCudaEnabledDeviceCount();
    SyncedMat m(Mat(8, 8, CV_8UC1, Scalar(3)));
    Stream s;
    m.readDevice(s);
    s.waitForCompletion();
    m.moveToDevice(dev, s);   // already there: nothing
    EXPECT_EQ(dev, m.deviceId());
    EXPECT_EQ(0, m.stats().peerCopies);
    EXPECT_EQ(1, m.stats().uploads);
    expectError([&] { m.moveToDevice(n, s); }, cv::Error::StsOutOfRange,
                {"SyncedMat::moveToDevice: device is " + std::to_string(n) + "; allowed: 0 to " + std::to_string(n - 1)});
    EXPECT_EQ((int)SyncedMat::BOTH_VALID, m.state());
}

TEST(CudaImage_MultiGpu, migrate_policy_changes_nothing_on_the_own_device)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(64, 48);
    SyncedMat m(Mat(sz, CV_8UC3, Scalar(1, 2, 3)));
    m.setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
    Stream s;
    cv::cuda::applyFilter(cv::cuda::createGaussianBlur(CV_8UC3, -1, Size(3, 3), 1), m, s);
    EXPECT_MAT_EQ(Mat(sz, CV_8UC3, Scalar(1, 2, 3)), m.readHost());
    const TransferStats st = m.stats();
    EXPECT_EQ(1, st.uploads);
    EXPECT_EQ(1, st.downloads);
    EXPECT_EQ(0, st.peerCopies);
    EXPECT_EQ(cv::cuda::getDevice(), m.deviceId());
}

TEST(CudaImage_MultiGpu, adopted_gpumat_records_its_memory_device)
{
    CUDAIMAGE_REQUIRE_GPU();
    GpuMat g(4, 4, CV_8UC1, Scalar(9));
    EXPECT_EQ(cv::cuda::getDevice(), SyncedMat(g).deviceId());
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Two GPUs

TEST(CudaImage_MultiGpu2, move_peer_copies_valid_device_data)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    const Size sz(1000, 600);
    SyncedMat m = deviceOnly(sz, CV_16UC3, Scalar(1, 2000, 30000), dev0);
    ASSERT_EQ(dev0, m.deviceId());
    Stream s0;                                          // not a stream of the target device
    expectError([&] { m.moveToDevice(dev1, s0); }, cv::Error::StsBadArg,
                {"SyncedMat::moveToDevice: the stream belongs to CUDA device " + std::to_string(dev0) +
                 " but the target device is " + std::to_string(dev1)});
    EXPECT_EQ(dev0, m.deviceId());
    m.moveToDevice(dev1);
    EXPECT_EQ(dev0, cv::cuda::getDevice());            // the caller's device is left alone
    EXPECT_EQ(dev1, m.deviceId());
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    TransferStats st = m.stats();
    EXPECT_EQ(1, st.peerCopies);
    EXPECT_EQ(bytesOf(m), st.peerCopyBytes);
    EXPECT_EQ(1, st.count(TransferStats::PEER_COPY));
    EXPECT_EQ(bytesOf(m), st.bytesFor(TransferStats::PEER_COPY));
    EXPECT_EQ(0, st.uploads);
    EXPECT_EQ(0, st.downloads);
    // The data is on dev1 now: read it there.
    cv::cuda::setDevice(dev1);
    Stream s1;
    EXPECT_MAT_EQ(Mat(sz, CV_16UC3, Scalar(1, 2000, 30000)), toHost(m.readDevice(s1), s1));
    EXPECT_MAT_EQ(Mat(sz, CV_16UC3, Scalar(1, 2000, 30000)), m.readHost());
    cv::cuda::setDevice(dev0);
    EXPECT_EQ(1, m.stats().peerCopies);
    EXPECT_EQ(1, m.stats().downloads);
}

TEST(CudaImage_MultiGpu2, move_drops_stale_device_memory_and_rebinds_host_only)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    const Size sz(64, 64);
    SyncedMat m(Mat(sz, CV_8UC1, Scalar(7)));
    Stream s0;
    m.readDevice(s0);
    m.writeHost().setTo(Scalar(8));                     // device now stale
    m.moveToDevice(dev1);
    EXPECT_EQ(dev1, m.deviceId());
    EXPECT_FALSE(m.isDeviceAllocated());
    EXPECT_EQ(0, m.stats().peerCopies);
    cv::cuda::setDevice(dev1);
    Stream s1;
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(8)), toHost(m.readDevice(s1), s1));
    cv::cuda::setDevice(dev0);
    EXPECT_EQ(2, m.stats().uploads);

    SyncedMat hostOnly(Mat(sz, CV_8UC1, Scalar(9)));    // bound to dev0 by its host allocation
    ASSERT_EQ(dev0, hostOnly.deviceId());
    hostOnly.moveToDevice(dev1);
    EXPECT_EQ(dev1, hostOnly.deviceId());
    const TransferStats st = hostOnly.stats();
    EXPECT_EQ(0, st.peerCopies + st.uploads + st.downloads);
}

TEST(CudaImage_MultiGpu2, refuse_policy_names_both_devices)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    SyncedMat m = deviceOnly(Size(16, 16), CV_8UC1, Scalar(4), dev0);
    cv::cuda::setDevice(dev1);
    Stream s1;
    const std::string both = "lives on CUDA device " + std::to_string(dev0) +
                             " but the calling thread's current device is " + std::to_string(dev1);
    expectError([&] { m.readDevice(s1); }, cv::Error::StsBadArg, {"SyncedMat::readDevice: this SyncedMat " + both, "CROSS_DEVICE_MIGRATE"});
    expectError([&] { m.readHost(); }, cv::Error::StsBadArg, {"SyncedMat::readHost: this SyncedMat " + both});
    expectError([&] { m.upload(s1); m.download(s1); }, cv::Error::StsBadArg, {"SyncedMat::download: this SyncedMat " + both});
    cv::cuda::setDevice(dev0);
    EXPECT_EQ(dev0, m.deviceId());
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    const TransferStats st = m.stats();
    EXPECT_EQ(0, st.peerCopies + st.uploads + st.downloads);
}

TEST(CudaImage_MultiGpu2, migrate_policy_moves_on_device_access)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    const Size sz(640, 480);
    SyncedMat m = deviceOnly(sz, CV_8UC1, Scalar(77), dev0);   // a blur keeps a constant 8U image exactly
    SyncedMat view(m, Rect(10, 10, 100, 100));
    m.setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
    Stream s0;
    cv::cuda::setDevice(dev1);
    expectError([&] { m.readDevice(s0); }, cv::Error::StsBadArg,   // a stream of the storage's device, not the caller's
                {"SyncedMat::readDevice: the stream belongs to CUDA device " + std::to_string(dev0) +
                 " but this SyncedMat would move to the current device " + std::to_string(dev1)});
    EXPECT_EQ(dev0, m.deviceId());
    EXPECT_EQ(0, m.stats().peerCopies);
    {
        Stream s1;
        GpuMat g = view.readDevice(s1);
        EXPECT_EQ(dev1, m.deviceId());
        EXPECT_EQ(1, m.stats().peerCopies);
        EXPECT_EQ(bytesOf(m), m.stats().peerCopyBytes);
        EXPECT_MAT_EQ(Mat(100, 100, CV_8UC1, Scalar(77)), toHost(g, s1));
        // A filter of dev1 on the moved image, then back on dev0 by another access.
        cv::cuda::applyFilter(cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1), m, s1);
        s1.waitForCompletion();
    }
    cv::cuda::setDevice(dev0);
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(77)), toHost(m.readDevice(s0), s0));
    EXPECT_EQ(dev0, m.deviceId());
    EXPECT_EQ(2, m.stats().peerCopies);
    EXPECT_EQ(0, m.stats().uploads);
    EXPECT_EQ(0, m.stats().downloads);
}

TEST(CudaImage_MultiGpu2, migrate_policy_host_access_stays_on_the_storage_device)
{
    CUDAIMAGE_REQUIRE_TWO_GPUS();
    const int dev0 = cv::cuda::getDevice(), dev1 = otherDevice(dev0);
    SyncedMat m = deviceOnly(Size(32, 32), CV_8UC4, Scalar(1, 2, 3, 4), dev0);
    m.setCrossDevicePolicy(SyncedMat::CROSS_DEVICE_MIGRATE);
    cv::cuda::setDevice(dev1);
    EXPECT_MAT_EQ(Mat(32, 32, CV_8UC4, Scalar(1, 2, 3, 4)), m.readHost());
    m.releaseDevice();                                   // on dev0's memory, from dev1
    cv::cuda::setDevice(dev0);
    EXPECT_EQ(dev0, m.deviceId());
    EXPECT_FALSE(m.isDeviceAllocated());
    EXPECT_EQ(1, m.stats().downloads);
    EXPECT_EQ(0, m.stats().peerCopies);
}

}} // namespace opencv_test::<anonymous>
