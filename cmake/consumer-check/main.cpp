// Compiles against the installed opencv2/cudaimage.hpp, links libcudaimage.so and calls into it.
// Succeeds with or without a GPU (and while createGaussianBlur is still a stub): it checks the
// package, not the filter.
#include <opencv2/cudaimage.hpp>

#include <iostream>

int main()
{
    std::cout << "consumer_check: OpenCV " << CV_VERSION
              << ", CUDA devices: " << cv::cuda::getCudaEnabledDeviceCount() << '\n';
    try
    {
        cv::Ptr<cv::cuda::Filter> blur = cv::cuda::createGaussianBlur(CV_8UC1, CV_8UC1, cv::Size(5, 5), 1.5);
        std::cout << "consumer_check: createGaussianBlur returned " << (blur ? "a filter" : "null") << '\n';
    }
    catch (const cv::Exception& e)
    {
        std::cout << "consumer_check: createGaussianBlur threw (expected without a GPU or while unimplemented): "
                  << e.what() << '\n';
    }
    return 0;
}
