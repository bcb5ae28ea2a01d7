#include "test_precomp.hpp"

#ifdef CUDAIMAGE_STANDALONE_TESTS
int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
#else
CV_CUDA_TEST_MAIN("cv")
#endif
