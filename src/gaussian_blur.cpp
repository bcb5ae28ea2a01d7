#include "precomp.hpp"
cv::Ptr<cv::cuda::Filter> cv::cuda::createGaussianBlur(int, int, Size, double, double, int, int)
{
    CV_Error(Error::StsNotImplemented, "");
}
void cv::cuda::GaussianBlur(InputArray, OutputArray, Size, double, double, int, Stream&)
{
    CV_Error(Error::StsNotImplemented, "");
}
