// A record of the kernels src/ launches, for the tests: which path's kernel blurred a call, seen
// from outside the library (whose internal symbols are hidden). Off unless a test installs an
// observer; then every successful launchChecked() (src/cuda/checked_launch.cuh) reports its
// kernel's name and grid. Not part of the API.
#ifndef CUDAIMAGE_LAUNCH_RECORD_HPP
#define CUDAIMAGE_LAUNCH_RECORD_HPP

#include "opencv2/core/cvdef.h"

namespace cv { namespace cuda { namespace gaussian {

/** Called after each launch with the kernel's name and its grid's block count. */
typedef void (*LaunchObserver)(const char* kernel, unsigned long long blocks);

/** Installs `observer` for every thread (nullptr: none, the default); returns the previous one. */
CV_EXPORTS LaunchObserver setLaunchObserver(LaunchObserver observer);

/** Reports a launch to the observer, if one is installed (one relaxed atomic load otherwise). */
CV_EXPORTS void recordLaunch(const char* kernel, unsigned long long blocks);

}}} // namespace cv::cuda::gaussian

#endif
