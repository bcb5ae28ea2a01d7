// Adding a kernel path is a unit and an entry in a list: a test-only unit, declared here and
// nowhere else, joins the product's list (src/gaussian_paths.hpp: GaussianPaths, whatever units it
// holds) in front and takes its radius range, with its own device facts and options gathered by the
// list; the other units keep theirs. No GPU: the choice is pure host code.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"

namespace opencv_test { namespace {

/** A test-only path, first in its list: 16U, one channel, radius 2..5, where its device says it runs. */
struct DummyPath : gs::PathUnit
{
    static constexpr const char* kName = "dummy";
    static constexpr int kMinR = 2, kMaxR = 5;
    struct Taps { int r = 0; };
    struct DeviceFacts { bool runs = true; };
    static DeviceFacts deviceFacts(int computeCapability) { return DeviceFacts{computeCapability >= 80}; }
    struct Options { bool on = true; };

    static gs::Verdict accepts(const gs::PathQuery& q, const DeviceFacts& d, const Options& o)
    {
        if (!o.on || !d.runs || q.depth != CV_16U || q.channels != 1)
            return gs::Verdict::decline("not for the dummy");
        const int R = q.radius();
        if (R < kMinR || R > kMaxR)
            return gs::Verdict::decline("outside the dummy's radii");
        return gs::Verdict::accept("the dummy's radii");
    }
    static Taps prepare(const gs::FilterTaps& f) { return Taps{static_cast<int>(f.y.real.size()) / 2}; }
    static void launch(const gs::BlurCall&, const Taps&, const gs::PathChoice&, cudaStream_t) {}
};

// A path list with one more unit in front of the units of another.
template <class Unit, class List>
struct WithUnitFirst;
template <class Unit, class... Units>
struct WithUnitFirst<Unit, gs::PathList<Units...>>
{
    typedef gs::PathList<Unit, Units...> type;
};

// The product's list with the dummy in front: one entry for the new unit, no copy of the list.
typedef WithUnitFirst<DummyPath, gs::GaussianPaths>::type ListWithDummy;

gs::PathQuery query(int depth, int cn, int r)
{
    gs::PathQuery q;
    q.depth = depth;
    q.channels = cn;
    q.rx = q.ry = r;
    q.sharedMemOptIn = 227 * 1024;
    return q;
}

TEST(CudaImage_GaussianPathList, a_test_only_unit_joins_the_list_with_its_facts_and_options)
{
    constexpr int dummy = ListWithDummy::indexOf<DummyPath>();
    static_assert(dummy == 0 && ListWithDummy::kCount == path::List::kCount + 1, "the dummy in front of the product's units");
    EXPECT_STREQ("dummy", ListWithDummy::name(dummy));

    // Its range is its own; every other query goes where the product's list sends it.
    for (int depth : {CV_8U, CV_16U, CV_32F})
        for (int cn : {1, 3})
            for (int r = 0; r <= path::LargeTile::kMaxR + 1; r++)
            {
                SCOPED_TRACE(cv::format("depth %d, %d channels, radius %d", depth, cn, r));
                const gs::PathChoice c = ListWithDummy::choose(query(depth, cn, r));
                const bool mine = depth == CV_16U && cn == 1 && r >= DummyPath::kMinR && r <= DummyPath::kMaxR;
                if (mine)
                {
                    EXPECT_EQ(dummy, c.index);
                    EXPECT_STREQ("the dummy's radii", c.reason);
                    continue;
                }
                const gs::PathChoice product = gs::choosePath(query(depth, cn, r));
                EXPECT_EQ(product.index + 1, c.index) << c.reason;
                EXPECT_STREQ(product.name, c.name);
            }

    // Its device facts come through the list's query of the device; its options through the list's.
    // Declining, it leaves the call to the product's choice.
    const char* const productsChoice = gs::choosePath(query(CV_16U, 1, 3)).name;
    ListWithDummy::DeviceFacts facts = ListWithDummy::DeviceFacts();
    ListWithDummy::Options options = ListWithDummy::Options();
    EXPECT_EQ(dummy, ListWithDummy::choose(query(CV_16U, 1, 3), facts, options).index);
    std::get<dummy>(facts).runs = false;
    EXPECT_STREQ(productsChoice, ListWithDummy::choose(query(CV_16U, 1, 3), facts, options).name);
    std::get<dummy>(facts).runs = true;
    std::get<dummy>(options).on = false;
    const gs::PathChoice off = ListWithDummy::choose(query(CV_16U, 1, 3), facts, options);
    EXPECT_STREQ(productsChoice, off.name);
    EXPECT_STREQ("not for the dummy", off.declined[dummy]);
    EXPECT_FALSE(DummyPath::deviceFacts(75).runs);
    EXPECT_TRUE(DummyPath::deviceFacts(90).runs);
}

}} // namespace opencv_test
