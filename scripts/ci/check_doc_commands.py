#!/usr/bin/env python3
"""Checks that the commands and code of README.md and doc/*.md still work (no GPU needed).

Run through scripts/ci/check-doc-commands.sh, which finds the built library and cv2; scripts/test.sh
runs it for each OpenCV line. What it checks:

  every document    each fenced block has a language tag (```text for output and samples that are
                    not meant to run); every relative link and image resolves, anchors included; every
                    repository path written in code (`scripts/...`, `perf/...`, `src/...`) exists; no
                    numbered work-round label (the word for a work period followed by its number); README.md is at most 250 lines
  ```sh / bash      `bash -n` of the block; each repository path in it exists; each script it names
                    passes `bash -n` (.sh) or compiles (.py), and answers --help (exit 0) where the
                    script handles --help
  ```python         compiles; a block marked run (below) runs with the built cv2 and must exit 0
  ```cpp            compiled against the installed standalone build (find_package(cudaimage)): a
                    block marked run is a program that is built and run and must exit 0; any other
                    block is compiled as the body of a function (#include lines go to the top), so it
                    must declare what it uses
  ```cmake          a block marked cmake-project is the CMakeLists.txt the document's run block is
                    built with (it must build main.cpp); other cmake blocks are not checked

A marker is an HTML comment on the line before the fence:
  <!-- doc-check: run -->             <!-- doc-check: cmake-project -->      <!-- doc-check: skip -->
Programs marked run must exit 0 on a machine without a GPU, saying why they did nothing.
The C++ and Python runs are skipped, with a message, when the build they need is absent.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
MARKER = re.compile(r"^\s*<!--\s*doc-check:\s*([\w-]+)\s*-->\s*$")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s+(\S+)")
HISTORY = re.compile(r"session ?[0-9]|round [0-9]", re.IGNORECASE)
SHELL_LANGS = {"sh", "bash", "shell"}
CHECKED_LANGS = SHELL_LANGS | {"python", "cpp", "cmake"}
README_MAX_LINES = 250


class Block:
    def __init__(self, doc, line, lang, marker, text):
        self.doc, self.line, self.lang, self.marker, self.text = doc, line, lang, marker, text

    def where(self):
        return "%s:%d" % (self.doc, self.line)


class Checker:
    def __init__(self, repo, prefix, cv2_path, python, verbose):
        self.repo, self.prefix, self.cv2_path, self.python = repo, prefix, cv2_path, python
        self.verbose = verbose
        self.failures = []
        self.notes = []
        self.checked_scripts = {}
        top = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
        self.top_dirs = sorted({p.split("/")[0] for p in top if "/" in p and not p.startswith(".")})
        dirs = "|".join(re.escape(d) for d in self.top_dirs)
        # A repository path: starts with a tracked top-level folder and is not inside another path.
        self.repo_path = re.compile(r"(?<![\w./$~-])((?:%s)/[\w./+-]*)" % dirs)

    def fail(self, where, what):
        self.failures.append("%s: %s" % (where, what))
        print("FAIL %s: %s" % (where, what))

    def ok(self, what):
        if self.verbose:
            print("ok   %s" % what)

    # ---- reading -------------------------------------------------------------------------------

    def documents(self):
        docs = ["README.md"]
        docs += sorted(os.path.join("doc", f) for f in os.listdir(os.path.join(self.repo, "doc"))
                       if f.endswith(".md"))
        return docs

    def parse(self, doc):
        """Fenced blocks with their tag and marker, and the prose lines (line number, text)."""
        lines = open(os.path.join(self.repo, doc), encoding="utf-8").read().split("\n")
        blocks, prose = [], []
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                prose.append((i + 1, lines[i]))
                i += 1
                continue
            fence, lang = m.group(2), m.group(3).strip().split(" ")[0].lower()
            marker = None
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0:
                mm = MARKER.match(lines[j])
                if mm:
                    marker = mm.group(1)
            body, k = [], i + 1
            while k < len(lines) and not (lines[k].strip().startswith(fence[0] * len(fence))
                                          and not lines[k].strip().strip(fence[0])):
                body.append(lines[k])
                k += 1
            if k == len(lines):
                self.fail("%s:%d" % (doc, i + 1), "fence never closed")
            blocks.append(Block(doc, i + 2, lang, marker, "\n".join(body) + "\n"))
            i = k + 1
        return blocks, prose

    # ---- every document ------------------------------------------------------------------------

    def check_document(self, doc, blocks, prose):
        for b in blocks:
            if not b.lang:
                self.fail(b.where(), "fenced block without a language tag (```text for output "
                                     "or anything not meant to run)")
            if b.marker and b.marker not in ("run", "skip", "cmake-project"):
                self.fail(b.where(), "unknown doc-check marker %r" % b.marker)
        text = "\n".join(t for _, t in prose)
        for n, t in prose:
            if HISTORY.search(t):
                self.fail("%s:%d" % (doc, n), "names a work round: %r" % HISTORY.search(t).group(0))
        for b in blocks:
            for k, t in enumerate(b.text.split("\n")):
                if HISTORY.search(t):
                    self.fail("%s:%d" % (doc, b.line + k), "names a work round: %r" % HISTORY.search(t).group(0))
        if doc == "README.md":
            count = len(open(os.path.join(self.repo, doc), encoding="utf-8").read().splitlines())
            if count > README_MAX_LINES:
                self.fail(doc, "%d lines; an introduction keeps to %d (details go to doc/)"
                          % (count, README_MAX_LINES))
        self.check_links(doc, prose)
        # Repository paths in inline code of the prose.
        for n, t in prose:
            for span in re.findall(r"`([^`]+)`", t):
                self.check_paths("%s:%d" % (doc, n), span)
        del text

    def check_links(self, doc, prose):
        base = os.path.dirname(doc)
        for n, t in prose:
            stripped = re.sub(r"`[^`]*`", "", t)
            targets = LINK.findall(stripped)
            m = REF_LINK.match(stripped)
            if m:
                targets.append(m.group(1))
            for target in targets:
                where = "%s:%d" % (doc, n)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):   # http:, https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                if path:
                    full = os.path.normpath(os.path.join(self.repo, base, path))
                    if not os.path.exists(full):
                        self.fail(where, "link to a missing file: %s" % target)
                        continue
                else:
                    full = os.path.join(self.repo, doc)
                if anchor and full.endswith(".md"):
                    if anchor not in self.anchors(full):
                        self.fail(where, "link to a missing heading: %s" % target)
                        continue
                self.ok("%s link %s" % (where, target))

    _anchor_cache = {}

    def anchors(self, path):
        """GitHub's heading anchors of a Markdown file."""
        if path not in self._anchor_cache:
            seen, result, in_fence = {}, set(), None
            for line in open(path, encoding="utf-8"):
                m = FENCE.match(line)
                if m:
                    in_fence = None if in_fence else m.group(2)[0]
                    continue
                if in_fence:
                    continue
                h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not h:
                    continue
                title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h.group(1))   # link text only
                slug = re.sub(r"[^\w\- ]", "", title.lower().replace("`", "")).replace(" ", "-")
                k = seen.get(slug, 0)
                seen[slug] = k + 1
                result.add(slug if k == 0 else "%s-%d" % (slug, k))
            self._anchor_cache[path] = result
        return self._anchor_cache[path]

    def repo_paths(self, text):
        """Repository paths written in text, without placeholders, globs or variables."""
        for m in self.repo_path.finditer(text):
            p = m.group(1).rstrip(".,:;")
            end = m.end(1)
            if end < len(text) and text[end] in "<*{[$":
                continue                      # src/paths/<name>/, dist/*.whl: a pattern
            if "..." in p:
                continue
            yield p

    def check_paths(self, where, text):
        for p in self.repo_paths(text):
            if not os.path.exists(os.path.join(self.repo, p)):
                self.fail(where, "no such file or folder in the repository: %s" % p)
            else:
                self.ok("%s path %s" % (where, p))

    # ---- shell ---------------------------------------------------------------------------------

    def check_shell(self, b):
        # <placeholder> would read as a redirection.
        text = re.sub(r"<[A-Za-z][\w .:/-]*>", "PLACEHOLDER", b.text)
        r = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
        if r.returncode:
            self.fail(b.where(), "bash -n: %s" % r.stderr.strip().replace("bash: ", ""))
        for p in self.repo_paths(b.text):
            full = os.path.join(self.repo, p)
            if not os.path.exists(full):
                self.fail(b.where(), "no such file or folder in the repository: %s" % p)
                continue
            if os.path.isfile(full) and p.endswith((".sh", ".py")):
                self.check_script(b.where(), p)
            else:
                self.ok("%s path %s" % (b.where(), p))

    def check_script(self, where, p):
        if p in self.checked_scripts:
            if self.checked_scripts[p]:
                self.fail(where, self.checked_scripts[p])
            return
        full = os.path.join(self.repo, p)
        src = open(full, encoding="utf-8", errors="replace").read()
        problem = None
        if p.endswith(".sh"):
            r = subprocess.run(["bash", "-n", full], capture_output=True, text=True)
            if r.returncode:
                problem = "%s: bash -n: %s" % (p, r.stderr.strip())
            elif re.search(r"(^|[\s|(])--help\)", src, re.M):
                problem = self.run_help(p, ["bash", full, "--help"])
        else:
            try:
                compile(src, full, "exec")
            except SyntaxError as e:
                problem = "%s does not compile: %s" % (p, e)
            if not problem and "argparse" in src:
                if self.python and self.cv2_path:
                    problem = self.run_help(p, [self.python, full, "--help"], python=True)
                else:
                    self.note("%s --help not run (no Python environment with cv2)" % p)
        self.checked_scripts[p] = problem
        if problem:
            self.fail(where, problem)
        else:
            self.ok("%s script %s" % (where, p))

    def run_help(self, p, cmd, python=False):
        env = dict(os.environ)
        if python and self.cv2_path:
            env["PYTHONPATH"] = self.cv2_path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env,
                               cwd=tempfile.gettempdir(), stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "%s --help did not finish in 60 s" % p
        missing = re.search(r"ModuleNotFoundError: No module named '([^']+)'", r.stderr)
        if python and r.returncode and missing:
            self.note("%s --help not run: this environment lacks the module %s" % (p, missing.group(1)))
            return None
        if r.returncode or not r.stdout.strip():
            return "%s --help: exit status %d, %s" % (p, r.returncode, (r.stderr or r.stdout).strip()[-400:])
        return None

    def note(self, text):
        self.notes.append(text)
        print("skip %s" % text)

    # ---- python --------------------------------------------------------------------------------

    def check_python(self, b, workdir):
        try:
            compile(b.text, b.where(), "exec")
        except SyntaxError as e:
            self.fail(b.where(), "Python does not compile: %s (block line %s)" % (e.msg, e.lineno))
            return
        self.ok("%s python compiles" % b.where())
        if b.marker != "run":
            return
        if not (self.python and self.cv2_path):
            self.note("%s: Python block not run (no built cv2; scripts/build/build-module.sh makes it)"
                      % b.where())
            return
        path = os.path.join(workdir, "block_%s_%d.py" % (re.sub(r"\W", "_", b.doc), b.line))
        open(path, "w").write(b.text)
        env = dict(os.environ, PYTHONPATH=self.cv2_path)
        self.run_program(b, [self.python, path], env, workdir)

    def run_program(self, b, cmd, env, cwd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=cwd,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail(b.where(), "did not finish in 300 s")
            return
        out = (r.stdout + r.stderr).strip()
        if r.returncode:
            self.fail(b.where(), "exit status %d:\n%s" % (r.returncode, out[-2000:]))
        else:
            print("ran  %s (%s block): %s" % (b.where(), b.lang, out.replace("\n", " | ")[:300]))

    # ---- C++ -----------------------------------------------------------------------------------

    def check_cpp(self, cpp_blocks, cmake_blocks, workdir):
        if not cpp_blocks:
            return
        config = os.path.join(self.prefix or "", "lib", "cmake", "cudaimage")
        if not (self.prefix and os.path.isdir(config)):
            self.note("C++ blocks not compiled: no installed standalone build at %s "
                      "(scripts/build/build-standalone.sh makes it)" % (self.prefix or "(none)"))
            return
        proj = os.path.join(workdir, "cpp")
        os.makedirs(proj)
        runs = [b for b in cpp_blocks if b.marker == "run"]
        fragments = [b for b in cpp_blocks if b.marker != "run"]
        lines = []
        targets = []                       # (executable, block)
        project_doc = None
        for c in cmake_blocks:
            if project_doc:
                self.fail(c.where(), "a second cmake-project block (one per check)")
                continue
            project_doc = c.doc
            lines.append(c.text)
            exe = re.search(r"add_executable\(\s*([\w-]+)\s+main\.cpp", c.text)
            if not exe:
                self.fail(c.where(), "the cmake-project block does not build main.cpp")
                return
            main = [b for b in runs if b.doc == c.doc]
            if not main:
                self.fail(c.where(), "no C++ block marked run in %s to be its main.cpp" % c.doc)
                return
            open(os.path.join(proj, "main.cpp"), "w").write('#line %d "%s"\n%s' % (main[0].line, main[0].doc, main[0].text))
            targets.append((exe.group(1), main[0]))
            runs.remove(main[0])
        if not lines:
            lines.append("cmake_minimum_required(VERSION 3.18)\nproject(doc_check LANGUAGES CXX)\n"
                         "find_package(cudaimage 0.1 REQUIRED)\n")
        for i, b in enumerate(runs):
            name = "doc_run_%d" % i
            open(os.path.join(proj, name + ".cpp"), "w").write('#line %d "%s"\n%s' % (b.line, b.doc, b.text))
            lines.append("add_executable(%s %s.cpp)\ntarget_link_libraries(%s PRIVATE cudaimage::cudaimage)\n"
                         % (name, name, name))
            targets.append((name, b))
        if fragments:
            includes = {"#include <opencv2/cudaimage.hpp>", "#include <opencv2/imgproc.hpp>",
                        "#include <vector>", "#include <iostream>"}
            bodies = []
            for i, b in enumerate(fragments):
                body = []
                for k, t in enumerate(b.text.split("\n")):
                    if t.strip().startswith("#include"):
                        includes.add(t.strip())
                        body.append("")
                    else:
                        body.append(t)
                bodies.append('[[maybe_unused]] static void doc_fragment_%d()\n{\n#line %d "%s"\n%s\n}\n'
                              % (i, b.line, b.doc, "\n".join(body)))
            open(os.path.join(proj, "doc_fragments.cpp"), "w").write(
                "\n".join(sorted(includes)) + "\n\n" + "\n".join(bodies) + "\nint main() { return 0; }\n")
            lines.append("add_executable(doc_fragments doc_fragments.cpp)\n"
                         "target_link_libraries(doc_fragments PRIVATE cudaimage::cudaimage)\n")
        open(os.path.join(proj, "CMakeLists.txt"), "w").write("\n".join(lines))
        build = os.path.join(proj, "build")
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        r = subprocess.run(["cmake", "-S", proj, "-B", build, *gen, "-DCMAKE_BUILD_TYPE=Release",
                            "-DCMAKE_PREFIX_PATH=" + self.prefix], capture_output=True, text=True)
        if r.returncode:
            self.fail(project_doc or "C++ blocks", "cmake configure failed:\n" + (r.stdout + r.stderr)[-3000:])
            return
        r = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
        if r.returncode:
            errors = [l for l in r.stdout.split("\n") + r.stderr.split("\n") if "error" in l]
            self.fail("C++ blocks", "do not compile:\n" + "\n".join(errors[:20] or [(r.stdout + r.stderr)[-3000:]]))
            return
        print("ok   C++: %d fragment(s) compiled, %d program(s) built against %s"
              % (len(fragments), len(targets), self.prefix))
        for exe, b in targets:
            self.run_program(b, [os.path.join(build, exe)], dict(os.environ), proj)

    # ---- all -----------------------------------------------------------------------------------

    def run(self, keep):
        workdir = tempfile.mkdtemp(prefix="doc-check-")
        cpp, cmake = [], []
        try:
            for doc in self.documents():
                blocks, prose = self.parse(doc)
                self.check_document(doc, blocks, prose)
                for b in blocks:
                    if b.marker == "skip" or b.lang not in CHECKED_LANGS:
                        continue
                    if b.lang in SHELL_LANGS:
                        self.check_shell(b)
                    elif b.lang == "python":
                        self.check_python(b, workdir)
                    elif b.lang == "cpp":
                        cpp.append(b)
                    elif b.lang == "cmake" and b.marker == "cmake-project":
                        cmake.append(b)
                print("ok   %s: %d fenced blocks" % (doc, len(blocks)))
            self.check_cpp(cpp, cmake, workdir)
        finally:
            if keep:
                print("kept %s" % workdir)
            else:
                shutil.rmtree(workdir, ignore_errors=True)
        if self.failures:
            print("\ndoc commands: %d problem(s)" % len(self.failures))
            return 1
        print("\ndoc commands: all passed%s" % (" (%d part(s) skipped, see above)" % len(self.notes)
                                                if self.notes else ""))
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--prefix", help="the standalone build's install prefix (build-standalone/install)")
    ap.add_argument("--cv2-path", help="PYTHONPATH that finds the built cv2 ($OPENCV_BUILD/python_loader)")
    ap.add_argument("--python", help="the Python that runs Python blocks (the cached venv's)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (generated sources)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every check that passed")
    a = ap.parse_args()
    cv2_path = a.cv2_path if a.cv2_path and os.path.isdir(a.cv2_path) else None
    python = a.python if a.python and os.access(a.python, os.X_OK) else None
    if python and cv2_path:
        # A cv2 that does not import (not built yet) is reported by the Python tests, not here.
        r = subprocess.run([python, "-c", "import cv2"], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=cv2_path), stdin=subprocess.DEVNULL)
        if r.returncode:
            print("skip Python blocks and scripts not run: cv2 from %s does not import (%s)"
                  % (cv2_path, (r.stderr.strip().split("\n") or ["?"])[-1]))
            cv2_path = None
    return Checker(os.path.abspath(a.repo), a.prefix, cv2_path, python, a.verbose).run(a.keep)


if __name__ == "__main__":
    sys.exit(main())
