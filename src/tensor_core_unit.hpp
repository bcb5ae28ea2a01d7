// What the tensor-core units (src/paths/tensor_core, tensor_core_16u, tensor_core_32f) share on the
// host: the switch a filter reads once, at creation, into its options; their device facts (the
// tuning row, whether the loaded code runs); and the part of their rule that follows each unit's own
// checks of depth, channels and taps. Their device side is src/cuda/persistent_tiles.cuh.
#ifndef CUDAIMAGE_TENSOR_CORE_UNIT_HPP
#define CUDAIMAGE_TENSOR_CORE_UNIT_HPP

#include <cstdlib>
#include <string>
#include "gaussian_path_query.hpp"
#include "gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** OPENCV_CUDAIMAGE_TENSOR_CORES, read at filter creation: unset, 1/on/true/yes: the tensor-core
 * paths where they measured faster (each unit's tuning row); 0/off/false/no: never (the CUDA-core
 * kernels, same results); all: at every radius they can take (for comparisons). */
enum class TensorCoreMode { Off, Auto, All };

inline TensorCoreMode tensorCoreMode()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_TENSOR_CORES");
    if (!v)
        return TensorCoreMode::Auto;
    const std::string s(v);
    if (s == "0" || s == "OFF" || s == "off" || s == "FALSE" || s == "false" || s == "NO" || s == "no")
        return TensorCoreMode::Off;
    return s == "all" || s == "ALL" ? TensorCoreMode::All : TensorCoreMode::Auto;
}

/** A tensor-core unit's facts, option and shared rule: Row(cc) is its tuning row for a device,
 * CodeRuns() whether its kernel's loaded code for the current device is for sm_80 or later. */
template <const tuning::RadiusThreshold& (*Row)(int), bool (*CodeRuns)()>
struct TensorCoreUnit
{
    /** Default-constructed: sm_90's row, code not known to run (the path declines). */
    struct DeviceFacts
    {
        tuning::RadiusThreshold tuning = Row(90);
        bool codeRuns = false;
    };
    static DeviceFacts deviceFacts(int computeCapability) { return DeviceFacts{Row(computeCapability), CodeRuns()}; }

    /** The switch, as read at filter creation. */
    struct Options
    {
        TensorCoreMode mode = TensorCoreMode::Auto;
    };
    static Options options() { return Options{tensorCoreMode()}; }

    static constexpr const char* kSwitchedOff = "switched off (OPENCV_CUDAIMAGE_TENSOR_CORES)";

    /** After the unit's own checks: the radius from the tuning row's minimum (every radius of the
     * tile with the switch at `all`; `belowTuned` otherwise) to the tile's maximum, a tile left
     * after the halos, the device holding the largest tile the kernel opts in for (`maxShared`),
     * and code that runs. Accepted (`why`): the tile's outputs and shared memory at this radius, a
     * persistent grid of Tile::blocksPerSM(cn) blocks per SM, tiles of Tile::kRows rows. */
    template <class Tile>
    static Verdict acceptRadius(const PathQuery& q, const DeviceFacts& d, const Options& o, size_t maxShared,
                                const char* belowTuned, const char* why)
    {
        typedef TileReasons<Tile> Why;
        const int R = q.radius();
        if (R < (o.mode == TensorCoreMode::All ? Tile::kMinR : d.tuning.minRadius(q.channels)))
            return Verdict::decline(belowTuned);
        if (R > Tile::kMaxR)
            return Verdict::decline(Why::above());
        const int outputs = tile::tileOutputs<Tile>(R, q.channels);
        if (outputs < tile::itemOutputs(q.depth))
            return Verdict::decline(Why::noRoom(q.channels, q.depth));
        if (maxShared > q.sharedMemOptIn)
            return Verdict::decline(Why::tooLarge());
        if (!d.codeRuns)
            return Verdict::decline("the loaded tensor-core code is not for sm_80 or later");
        return Verdict::accept(why, outputs, Tile::sharedBytes(R, q.channels), Tile::blocksPerSM(q.channels) * q.multiprocessors,
                               Tile::kRows);
    }
};

/** What a tensor-core unit's batch taps are (src/cuda/batch_tap_maker.cuh): its `Taps` struct, one
 * instance for every radius, built by its `prepareInto(const KernelTaps&, Taps&)` for its one depth,
 * on the host or on the device. `Unit` is the unit itself (CRTP). */
template <class Unit, int UnitDepth>
struct TensorCoreBatchTaps
{
    /** The taps of a filter (not valid outside the unit's taps conditions: accepts() then declines). */
    static auto prepare(const FilterTaps& f)
    {
        typename Unit::Taps t;
        Unit::prepareInto(spansOf(f), t);
        return t;
    }
    static BatchTapsLayout batchLayout(int, int, int, int)
    {
        return BatchTapsLayout{0, static_cast<int>(sizeof(typename Unit::Taps))};
    }
    template <int Depth>
    static CUDAIMAGE_HOST_DEVICE void prepareBatch(const KernelTaps& k, unsigned char* out)
    {
        if constexpr (Depth == UnitDepth)
            Unit::prepareInto(k, *reinterpret_cast<typename Unit::Taps*>(out));
    }
    static void prepareBatchOnHost(const KernelTaps& k, unsigned char* out)
    {
        Unit::prepareInto(k, *reinterpret_cast<typename Unit::Taps*>(out));
    }
};

}}} // namespace cv::cuda::gaussian

#endif
