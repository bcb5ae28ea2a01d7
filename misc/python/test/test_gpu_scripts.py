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


if __name__ == "__main__":
    unittest.main()
