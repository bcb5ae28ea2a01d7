// Prints the dynamic shared memory each single-kernel Gaussian path asks for per block, from the
// path units' own tiles (src/paths/<name>/<name>_path.hpp), one line per kernel:
//   <bytes> <label>
// scripts/ci/compile-archs.sh compiles and runs it (host code only, no GPU) and ptxas_summary.py
// sets the numbers against each architecture's opt-in limit, so that the summary reads the sizes
// the build has, never a copy of them.
#include <cstdio>
#include "gaussian_paths.hpp"

int main()
{
    namespace gs = cv::cuda::gaussian;
    // The CUDA-core tiles: the same bytes for every depth (strips of 16 float or 8 double rows).
    std::printf("%zu fusedTile (%s, radius %d..%d)\n", gs::tile::sharedBytes<gs::FusedTile>(CV_32F), gs::FusedTile::kLabel,
                gs::FusedTile::kMinR, gs::FusedTile::kMaxR);
    std::printf("%zu fusedLargeTile (%s, radius %d..%d)\n", gs::tile::sharedBytes<gs::FusedLargeTile>(CV_32F),
                gs::FusedLargeTile::kLabel, gs::FusedLargeTile::kMinR, gs::FusedLargeTile::kMaxR);
    // The tensor-core kernels opt in for their largest tile per channel count (they need sm_80).
    for (int cn = 1; cn <= 4; cn++)
        std::printf("%zu tensor 8U, %d channel%s (sm_80+)\n", gs::TensorCoreTile::maxSharedBytes(cn), cn, cn == 1 ? "" : "s");
    std::printf("%zu tensor 16U, 1 channel (sm_80+)\n", gs::TensorCore16UTile::maxSharedBytes());
    std::printf("%zu tensor 32F, 1 channel (sm_80+)\n", gs::TensorCore32FTile::maxSharedBytes());
    return 0;
}
