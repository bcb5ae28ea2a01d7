// The Gaussian blur's kernel paths, in priority order, and the choice among them. Each path is one
// unit in its own folder (src/paths/<name>/<name>_path.hpp) with
//   kName                         its name,
//   accepts(query, tuning)        whether it takes a call, and why not (pure host code),
//   Taps prepare(filterTaps)      its taps, built once per filter on the host,
//   launch(call, taps, choice, s) its kernels on a stream;
// choosePath() asks them in order and the first that accepts takes the call. Adding a path is a
// folder and an entry in GaussianPaths below. Header-only and pure, so the tests compile the same
// rules as the library (whose internal symbols are hidden) and check every boundary without a GPU.
//
//   path         radius R = max(rx, ry)                     one launch, no scratch
//   tensor-core  8U: tuned minimum (gaussian_tuning.hpp)..128  yes
//   fused        1 .. 8 (template)                          yes
//   fused-large  9 .. 128 (run time)                        yes
//   two-pass     any, in place                              no: a stream-ordered scratch image
#ifndef CUDAIMAGE_GAUSSIAN_PATHS_HPP
#define CUDAIMAGE_GAUSSIAN_PATHS_HPP

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include "gaussian_path_query.hpp"
#include "gaussian_tuning.hpp"
#include "paths/tensor_core/tensor_core_path.hpp"
#include "paths/fused/fused_path.hpp"
#include "paths/fused_large/fused_large_path.hpp"
#include "paths/two_pass/two_pass_path.hpp"

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

    /** The first unit that accepts the query takes the call. The last unit must accept every
     * query; a unit accepting with an empty reason is given the reason of the decline before it. */
    static PathChoice choose(const PathQuery& q, const tuning::ArchTuning& t)
    {
        PathChoice c;
        c.radius = q.radius();
        int i = 0;
        bool decided = false;
        auto ask = [&](auto unit) {
            if (decided)
                return;
            const Verdict v = decltype(unit)::type::accepts(q, t);
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
        (ask(TypeTag<Units>()), ...);
        return c;
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
    template <class T> struct TypeTag { typedef T type; };
};

/** The paths, highest priority first. */
typedef PathList<TensorCorePath, FusedPath, FusedLargePath, TwoPassPath> GaussianPaths;

/** The path for one call, with the tuning of the query's architecture. */
inline PathChoice choosePath(const PathQuery& q)
{
    return GaussianPaths::choose(q, tuning::forArch(q.computeCapability));
}

}}} // namespace cv::cuda::gaussian

#endif
