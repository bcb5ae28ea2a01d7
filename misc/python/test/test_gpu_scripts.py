#!/usr/bin/env python3
"""The argument checks of the scripts that run on the GPU machine (scripts/gpu/, perf/): a part,
set, tool or peer name they do not know, or a malformed count, must fail at once (exit status 2,
naming what is allowed) before anything runs, rather than run less than asked and report success.
No GPU and no bundle needed: each call fails before it would need one.

The scripts are taken from the repository (scripts/gpu/..., perf/...), or inside an unpacked GPU
bundle ($CUDAIMAGE_BUNDLE, set by run-all.sh) from the bundle's copies; a script found in neither
is skipped, saying so.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
BUNDLE = os.environ.get("CUDAIMAGE_BUNDLE")


def find_script(repo_path, bundle_path=None):
    """The script's path in the repository, else in the bundle; None if neither has it."""
    for candidate in (os.path.join(REPO, repo_path),
                      os.path.join(BUNDLE, bundle_path) if BUNDLE and bundle_path else None):
        if candidate and os.path.isfile(candidate):
            return candidate
    return None


RUN_ALL = find_script("scripts/gpu/bundle/run-all.sh", "run-all.sh")
RUN_SANITIZERS = find_script("scripts/gpu/run-sanitizers.sh", "run-sanitizers.sh")
RUN_FUZZ = find_script("scripts/gpu/run-fuzz.sh")
COMPARE_BUNDLES = find_script("scripts/gpu/compare-bundles.sh")
RUN_GAUSSIAN_BENCH = find_script("perf/run-gaussian-bench.sh", "perf/run-gaussian-bench.sh")
HAS_BASH = shutil.which("bash") is not None


@unittest.skipUnless(HAS_BASH, "no bash on this machine")
class GpuScriptArgumentsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cudaimage-script-args-")
        self.out = os.path.join(self.tmp, "out")   # must stay absent: nothing may run

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, script, args, words, env=None):
        """Runs `bash script args` in the scratch folder; it must exit 2, create nothing and say `words`."""
        if script is None:
            self.skipTest("script not found in the repository or the bundle")
        full_env = dict(os.environ, OUT=self.out)
        full_env.update(env or {})
        r = subprocess.run(["bash", script] + args, cwd=self.tmp, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        self.assertEqual(2, r.returncode, r.stdout)
        for w in words:
            self.assertIn(w, r.stdout, (args, env))
        self.assertFalse(os.path.exists(self.out), "%s %s made %s" % (script, args, self.out))
        return r.stdout

    def test_run_all_refuses_an_unknown_part(self):
        for only in ("perf", "nosuch", "samples,perf", "samples,,demo", ","):
            text = self.refused(RUN_ALL, ["--only", only], ["is not a part", "opencv_perf_cudaimage"])
            self.assertNotIn("==>", text, only)   # no part started
        # Every part it lists is a name --only takes (the list is the one the script runs).
        text = self.refused(RUN_ALL, ["--only", "nosuch"], [])
        parts = text.rsplit("the parts: ", 1)[1].strip().split(",")
        self.assertIn("python-tests", parts)
        self.assertEqual(len(parts), len(set(parts)))

    def test_run_sanitizers_refuses_an_unknown_set_tool_or_shard_count(self):
        bundle = os.path.join(self.tmp, "no-bundle")   # never reached
        self.refused(RUN_SANITIZERS, [bundle, self.out], ["SANITIZE_SET is 'leen'", "lean"], {"SANITIZE_SET": "leen"})
        self.refused(RUN_SANITIZERS, [bundle, self.out], ["TOOLS names 'memchek'", "racecheck"], {"TOOLS": "memchek"})
        self.refused(RUN_SANITIZERS, [bundle, self.out], ["TOOLS names 'race'"], {"TOOLS": "memcheck,race"})
        self.refused(RUN_SANITIZERS, [bundle, self.out], ["SHARDS"], {"SHARDS": "0"})

    def test_run_sanitizers_refuses_a_resume_folder_that_is_not_there(self):
        bundle = os.path.join(self.tmp, "no-bundle")   # never reached
        self.refused(RUN_SANITIZERS, [bundle, self.out], ["RESUME_FROM is not a folder", "no-run"],
                     {"RESUME_FROM": os.path.join(self.tmp, "no-run")})

    def test_run_fuzz_refuses_a_count_that_is_not_a_number(self):
        self.refused(RUN_FUZZ, ["-n", "10k", self.tmp], ["-n is '10k'"])
        self.refused(RUN_FUZZ, ["-n", "0", self.tmp], ["at least 1"])
        self.refused(RUN_FUZZ, ["-s", "seed", self.tmp], ["-s is 'seed'"])

    def test_compare_bundles_refuses_a_bad_run_count_or_a_missing_bundle(self):
        tar = os.path.join(self.tmp, "base.tar.xz")
        open(tar, "w").close()
        self.refused(COMPARE_BUNDLES, ["--runs", "two", tar, tar, self.out], ["--runs is 'two'"])
        self.refused(COMPARE_BUNDLES, [tar, os.path.join(self.tmp, "new.tar.xz"), self.out], ["no bundle at"])

    def test_run_gaussian_bench_refuses_an_unknown_peer(self):
        bundle = os.path.join(self.tmp, "bundle")   # an empty folder: the check comes before its files
        os.mkdir(bundle)
        self.refused(RUN_GAUSSIAN_BENCH, [bundle, self.out], ["unknown peer(s) pytoch", "kornia"],
                     {"PEERS": "pytoch,cupy", "PYTHON": sys.executable})

    @unittest.skipUnless(BUNDLE and os.path.isfile(os.path.join(BUNDLE, "bin", "gaussian_bench")),
                         "needs a GPU bundle with bin/gaussian_bench ($CUDAIMAGE_BUNDLE)")
    def test_run_gaussian_bench_refuses_an_unknown_bench_argument(self):
        # gaussian_bench --check-args judges its own arguments before NPP's or the peers' benches run.
        self.refused(RUN_GAUSSIAN_BENCH, [BUNDLE, self.out, "--only-ours"], ["'--only-ours' is not an argument here"])


# A stand-in for the bundle's test binary: lists the tests of a fixed catalogue that match a
# --gtest_filter of exact names or 'Case.*' patterns (after a device report that must not be taken
# for tests), and "runs" them by printing gtest's OK lines.
FAKE_TEST_BINARY = r"""#!/usr/bin/env bash
catalogue="A_Case.one A_Case.two P/B_Case.sweep/0 P/B_Case.sweep/1 P/B_Case.sweep/2"
filter=; list=0
for a in "$@"; do
    case $a in --gtest_filter=*) filter=${a#--gtest_filter=} ;; --gtest_list_tests) list=1 ;; esac
done
selected=()
for t in $catalogue; do
    IFS=: read -ra pats <<< "${filter%%-*}"
    for p in "${pats[@]}"; do
        [[ $t == $p ]] && { selected+=("$t"); break; }
    done
done
if ((list)); then
    echo "Device 0: \"Fake GPU\""
    echo "  Compute Mode:"
    last=
    for t in "${selected[@]}"; do
        c=${t%.*}.; [[ $c != "$last" ]] && echo "$c  # a comment"; last=$c
        echo "  ${t##*.}"
    done
    exit 0
fi
echo "Note: Google Test filter = $filter"
for t in "${selected[@]}"; do echo "[ RUN      ] $t"; echo "[       OK ] $t (1 ms)"; done
"""

FAKE_SANITIZER = r"""#!/usr/bin/env bash
[[ ${1:-} == --version ]] && { echo "fake Version 0"; exit 0; }
while [[ $# -gt 0 && ! -x $1 ]]; do shift; done
"$@"; rc=$?
echo "========= ERROR SUMMARY: 0 errors"
exit $rc
"""


@unittest.skipUnless(HAS_BASH and RUN_SANITIZERS, "no bash, or no run-sanitizers.sh")
class RunSanitizersResumeTest(unittest.TestCase):
    """RESUME_FROM: a tool runs only the tests of its filter that an earlier run's logs of the same
    tool do not show finished; with none left it says so and the run is clean."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cudaimage-sanitizer-resume-")
        self.bundle = os.path.join(self.tmp, "bundle")
        os.makedirs(os.path.join(self.bundle, "bin"))
        for path, text in ((os.path.join(self.bundle, "bin", "opencv_test_cudaimage"), FAKE_TEST_BINARY),
                           (os.path.join(self.tmp, "compute-sanitizer"), FAKE_SANITIZER),
                           (os.path.join(self.bundle, "bundle-libs.sh"), "use_bundle_libraries() { :; }\n")):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tools(self, out, env):
        full_env = dict(os.environ, COMPUTE_SANITIZER=os.path.join(self.tmp, "compute-sanitizer"),
                        GTEST_FILTER="A_Case.*:P/B_Case.*")
        full_env.pop("SHARDS", None)   # the caller's (run-all.sh SHARDS=k) would change the logs' names
        full_env.update(env)
        r = subprocess.run(["bash", RUN_SANITIZERS, self.bundle, os.path.join(self.tmp, out)], env=full_env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        self.assertEqual(0, r.returncode, r.stdout)
        return r.stdout

    def filters_run(self, out):
        """The tests each log of OUT was asked to run, by log name."""
        found = {}
        folder = os.path.join(self.tmp, out)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".log"):
                with open(os.path.join(folder, name)) as f:
                    for line in f:
                        if line.startswith("Note: Google Test filter = "):
                            found[name] = sorted(line.split(" = ", 1)[1].strip().split(":"))
        return found

    def test_only_what_did_not_finish_runs_again(self):
        # The first run: memcheck finished two of the five tests (its log cut short by hand).
        first = os.path.join(self.tmp, "first")
        os.makedirs(first)
        with open(os.path.join(first, "memcheck.0.log"), "w") as f:
            f.write("[       OK ] A_Case.one (3 ms)\n[ RUN      ] P/B_Case.sweep/1\n"
                    "[       OK ] P/B_Case.sweep/1 (9 ms)\n[ RUN      ] P/B_Case.sweep/2\n")
        text = self.run_tools("second", {"TOOLS": "memcheck,synccheck", "RESUME_FROM": first})
        self.assertIn("memcheck: 3 tests left", text)
        self.assertIn("synccheck: 5 tests left", text)   # no synccheck logs there: all of them
        self.assertEqual({"memcheck.log": ["A_Case.two", "P/B_Case.sweep/0", "P/B_Case.sweep/2"],
                          "synccheck.log": ["A_Case.one", "A_Case.two", "P/B_Case.sweep/0",
                                            "P/B_Case.sweep/1", "P/B_Case.sweep/2"]},
                         self.filters_run("second"))
        # Resuming from the first and second runs' union: nothing left, and a clean summary.
        for name in os.listdir(first):
            shutil.copy(os.path.join(first, name), os.path.join(self.tmp, "second", "memcheck.7.log"))
        text = self.run_tools("third", {"TOOLS": "memcheck", "SHARDS": "2",
                                        "RESUME_FROM": os.path.join(self.tmp, "second")})
        self.assertIn("memcheck: nothing left after", text)
        self.assertIn(": clean", text)


if __name__ == "__main__":
    unittest.main()
