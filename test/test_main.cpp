#include "test_precomp.hpp"

#ifdef CUDAIMAGE_STANDALONE_TESTS
int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    const std::string& reason = cudaimage_test::gpuUnavailableReason();
    std::cout << (reason.empty() ? std::string("CUDA device found: GPU tests run")
                                 : "GPU tests will be skipped: " + reason) << std::endl;
    return RUN_ALL_TESTS();
}
#else
// CV_CUDA_TEST_MAIN's device set-up, but only when there is a device: OpenCV's
// DeviceManager::loadAll() aborts when getCudaEnabledDeviceCount() is -1 (no driver), and the
// argument checks and the CPU reference tests must run on such machines too.
static void initCudaTests(int argc, char** argv)
{
    const std::string& reason = cudaimage_test::gpuUnavailableReason();
    if (!reason.empty())
    {
        std::cout << "GPU tests will be skipped: " << reason << std::endl;
        return;
    }
    cvtest::parseCudaDeviceOptions(argc, argv);
    cvtest::printCudaInfo();
}
#define CV_TEST_INIT0_CUDAIMAGE initCudaTests(argc, argv)
CV_TEST_MAIN_EX("cv", CUDAIMAGE)
#endif
