// An ordered list of Gaussian kernel path units (the vocabulary: gaussian_path_query.hpp): the
// choice among them, their device facts and options, and, per filter, the prepared taps of every
// unit and the launch of the chosen one. The product's list is GaussianPaths (gaussian_paths.hpp).
#ifndef CUDAIMAGE_GAUSSIAN_PATH_LIST_HPP
#define CUDAIMAGE_GAUSSIAN_PATH_LIST_HPP

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <cuda_runtime_api.h>
#include "gaussian_blur_call.hpp"
#include "gaussian_path_query.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** An ordered list of path units: the choice and, per filter, the prepared taps of every unit. */
template <class... Units>
struct PathList
{
    static constexpr int kCount = static_cast<int>(sizeof...(Units));
    static_assert(kCount <= PathChoice::kMaxPaths, "PathChoice records a decline per path");

    /** Position of a unit in the list. */
    template <class Unit>
    static constexpr int indexOf()
    {
        constexpr bool same[] = {std::is_same<Unit, Units>::value...};
        for (int i = 0; i < kCount; i++)
            if (same[i])
                return i;
        return -1;
    }

    static const char* name(int index)
    {
        static const char* const names[] = {Units::kName...};
        return index >= 0 && index < kCount ? names[index] : "none";
    }

    /** Every unit's facts about the current device, and its options read at filter creation. */
    typedef std::tuple<typename Units::DeviceFacts...> DeviceFacts;
    typedef std::tuple<typename Units::Options...> Options;
    static DeviceFacts deviceFacts(int computeCapability) { return DeviceFacts(Units::deviceFacts(computeCapability)...); }
    static Options options() { return Options(Units::options()...); }

    /** The first unit that accepts the query takes the call. The last unit must accept every
     * query; a unit accepting with an empty reason is given the reason of the decline before it. */
    static PathChoice choose(const PathQuery& q, const DeviceFacts& facts = DeviceFacts(), const Options& options = Options())
    {
        return chooseAt(q, facts, options, std::index_sequence_for<Units...>());
    }

    /** Whether the unit at `index` has a batched kernel (PathUnit::kBatched). */
    static bool batched(int index)
    {
        static const bool flags[] = {Units::kBatched...};
        return index >= 0 && index < kCount && flags[index];
    }

    /** The kernel an image takes on the unit at `index`: alone its kKernel, in a batch its
     * kBatchKernel (kKernel where it has no batched kernel), as launchChecked names them. */
    static const char* kernel(int index, bool batch = false)
    {
        const char* k = "none";
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            k = Unit::kKernel;
            if constexpr (Unit::kBatched)
                if (batch)
                    k = Unit::kBatchKernel;
        });
        return k;
    }

    /** A batched unit's taps for one filter as its batched kernel reads them (only the chosen unit
     * prepares its taps: a batch's images may each have their own kernel), built on the host by
     * the code the device's tap maker runs (prepareBatch). */
    static BatchTaps batchTaps(int index, const FilterTaps& f)
    {
        BatchTaps b;
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            if constexpr (Unit::kBatched)
            {
                const KernelTaps k = spansOf(f);
                const BatchTapsLayout l = Unit::batchLayout(f.depth, f.channels, k.x.radius(), k.y.radius());
                b.instance = l.instance;
                b.bytes.assign(static_cast<size_t>(l.bytes), 0);
                Unit::prepareBatchOnHost(k, b.bytes.data());
            }
        });
        return b;
    }

    /** A batched unit's taps layout for a kernel of radii rx, ry (no taps needed). */
    static BatchTapsLayout batchLayout(int index, int depth, int channels, int rx, int ry)
    {
        BatchTapsLayout l;
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            if constexpr (Unit::kBatched)
                l = Unit::batchLayout(depth, channels, rx, ry);
        });
        return l;
    }

    /** The batched unit's tap maker over `jobs` (src/cuda/batch_tap_maker.cuh). */
    static void makeBatchTaps(int index, const BatchTapJobs& jobs, cudaStream_t stream)
    {
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            if constexpr (Unit::kBatched)
                Unit::makeBatchTaps(jobs, stream);
        });
    }

    /** One launch of a batched unit's kernel over `b`'s images. */
    static void launchBatch(int index, const BatchLaunch& b, cudaStream_t stream)
    {
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            if constexpr (Unit::kBatched)
                Unit::launchBatch(b, stream);
        });
    }

    /** One image of a batch on a unit without a batched kernel: its taps prepared for the call. */
    static void launchOne(int index, const FilterTaps& f, const BlurCall& call, const PathChoice& choice, cudaStream_t stream)
    {
        forUnit(index, [&](auto unit) {
            typedef typename decltype(unit)::type Unit;
            Unit::launch(call, Unit::prepare(f), choice, stream);
        });
    }

    /** Every unit's taps for one filter, and the launch of the chosen unit. */
    class Prepared
    {
    public:
        explicit Prepared(const FilterTaps& f) : taps_(Units::prepare(f)...) {}

        void launch(const BlurCall& call, const PathChoice& choice, cudaStream_t stream) const
        {
            launchAt(call, choice, stream, std::index_sequence_for<Units...>());
        }

    private:
        template <std::size_t... I>
        void launchAt(const BlurCall& call, const PathChoice& choice, cudaStream_t stream, std::index_sequence<I...>) const
        {
            // Exactly the chosen unit launches (choose() always picks one).
            ((choice.index == static_cast<int>(I) ? Units::launch(call, std::get<I>(taps_), choice, stream) : void()), ...);
        }

        std::tuple<typename Units::Taps...> taps_;
    };

private:
    template <class Unit> struct Tag { typedef Unit type; };

    /** f(Tag<Unit>()) for the unit at `index`. */
    template <class F>
    static void forUnit(int index, F&& f)
    {
        int i = 0;
        ((i++ == index ? f(Tag<Units>()) : void()), ...);
    }

    template <std::size_t... I>
    static PathChoice chooseAt(const PathQuery& q, const DeviceFacts& facts, const Options& options, std::index_sequence<I...>)
    {
        PathChoice c;
        c.radius = q.radius();
        c.multiprocessors = q.multiprocessors;
        int i = 0;
        bool decided = false;
        auto ask = [&](auto index) {
            constexpr std::size_t k = decltype(index)::value;
            typedef typename std::tuple_element<k, std::tuple<Units...>>::type Unit;
            if (decided)
                return;
            // A batch's image goes to a batched unit, or to the last one (which takes every call).
            const Verdict v = q.batch && !Unit::kBatched && static_cast<int>(k) + 1 < kCount
                                  ? Verdict::decline("no batched kernel")
                                  : Unit::accepts(q, std::get<k>(facts), std::get<k>(options));
            if (!v.accepted)
            {
                c.declined[i++] = v.reason;
                return;
            }
            static_cast<Verdict&>(c) = v;
            if (v.reason[0] == '\0' && i > 0)
                c.reason = c.declined[i - 1];
            c.index = i;
            c.name = name(i);
            decided = true;
        };
        (ask(std::integral_constant<std::size_t, I>()), ...);
        return c;
    }
};

}}} // namespace cv::cuda::gaussian

#endif
