#ifndef CUDAIMAGE_PRECOMP_HPP
#define CUDAIMAGE_PRECOMP_HPP
#include "opencv2/cudaimage.hpp"
#include "opencv2/core/utility.hpp"
#include "opencv2/core/private.cuda.hpp"
#endif
