#!/usr/bin/env python3
"""Typing stubs (.pyi) for the module build's cv2, made by OpenCV's own generator.

    cv2_typing_stubs.py --opencv-src SRC --bindings-dir DIR --loader DIR/cv2 [--python-submodule NAME]...

OpenCV's build runs its binding generator (SRC/modules/python/src2/gen2.py) on the headers listed
in DIR/gen_python_config.json (DIR: the build's modules/python_bindings_generator) and, when the
typing-stub part succeeds, copies the stubs into the loader package. In a build without
features2d that part fails ("Typing stubs generation has failed": its table of predefined types,
typing_stubs_generation/predefined_types.py, aliases FeatureDetector, DescriptorExtractor and
FeatureExtractor to cv2.Feature2D, which only features2d defines), so cv2 ships no stubs. This
script runs the same generator on the same configuration, with three additions, and copies the
stubs with OpenCV's own copy step (src2/copy_typings_stubs_on_success.py):

1. Predefined types that name a class this build does not have are left out (each is printed).
2. Functions cv2 defines by hand, outside the headers (misc/python/pyopencv_cudaimage.hpp:
   SyncedMat.readHostCopy(), deviceArray(), __dlpack__(), __dlpack_device__(), and
   DeviceInfo.name()), are added, as OpenCV's generator adds its own hand-wrapped functions
   (typing_stubs_generation/api_refinement.py). misc/python/test/test_typing.py checks that every
   method of those tables is in the stubs.
3. Each --python-submodule (a pure-Python package of the loader, e.g. cudaimage) is re-exported by
   cv2/__init__.pyi, as the loader imports it with cv2: `import cv2; cv2.cudaimage...` type-checks.
   Its own types come from its sources (inline annotations; cv2 is a py.typed package).

One condition is expected and not an error: OpenCV 4.x's generator (the 4.14 line) applies its
manual API refinements (typing_stubs_generation/api_refinement.py, NODES_TO_REFINE) to symbols of
modules this build leaves out (cv::Feature2D::detectAndCompute of features2d, calib3d's functions)
and fails on the first one (ScopeNotFoundError: "'Feature2D' class is not registered yet"); 5.x's
skips them. Then the script says so in a note, installs no stubs and exits 0: cv2 of that line has
no typing stubs and misc/python/test/test_typing.py skips.

Otherwise it exits non-zero, saying why, when the generator reports a failure or a stub is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings

# Signatures of the functions misc/python/pyopencv_cudaimage.hpp adds to cv2 types:
# (class, method, [(argument, type, default or None)], return type, static). Types are written as
# the generator's type nodes are made in glue_type() below.
GLUE_METHODS = [
    ("SyncedMat", "readHostCopy", [], "Mat", False),
    ("SyncedMat", "deviceArray", [("stream", "Stream?", "None"), ("readonly", "bool", "False")],
     "cv2.cudaimage.DeviceArray", False),
    ("SyncedMat", "__dlpack__", [("stream", "int?", "None"), ("max_version", "tuple[int,int]?", "None"),
                                 ("dl_device", "tuple[int,int]?", "None"), ("copy", "bool?", "None")],
     "Any", False),
    ("SyncedMat", "__dlpack_device__", [], "tuple[int,int]", False),
    ("SyncedMat", "_deviceArrayType", [], "type", True),
    ("DeviceInfo", "name", [], "str", False),
]


def symbol_named_by(message):
    """cv::Feature2D::detectAndCompute from the generator's lookup errors, which name the symbol as
    (namespace="cv", classes="Feature2D", name="detectAndCompute"); else the message itself."""
    m = re.search(r'namespace="([^"]*)", classes="([^"]*)", name="([^"]*)"', message)
    if not m:
        return message
    return "::".join(p for part in m.groups() for p in part.split(".") if p)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opencv-src", required=True, help="OpenCV's source tree (holds modules/python/src2)")
    ap.add_argument("--bindings-dir", required=True,
                    help="the build's modules/python_bindings_generator (holds gen_python_config.json)")
    ap.add_argument("--loader", required=True, help="the loader package to install the stubs into (.../cv2)")
    ap.add_argument("--python-submodule", action="append", default=[], metavar="NAME",
                    help="a pure-Python package of the loader that cv2/__init__.pyi re-exports")
    return ap.parse_args()


def main():
    args = parse_args()
    src2 = os.path.join(args.opencv_src, "modules", "python", "src2")
    sys.path.insert(0, src2)
    import gen2
    import typing_stubs_generator
    from typing_stubs_generation import generation
    from typing_stubs_generation.predefined_types import PREDEFINED_TYPES
    from typing_stubs_generation.types_conversion import create_type_node
    from typing_stubs_generation.nodes import FunctionNode
    from typing_stubs_generation.nodes.type_node import (
        TypeResolutionError, AnyTypeNode, ASTNodeTypeNode, OptionalTypeNode, PrimitiveTypeNode,
        TupleTypeNode)
    from typing_stubs_generation.ast_utils import ScopeNotFoundError, SymbolNotFoundError

    def glue_type(spec):
        if spec.endswith("?"):
            return OptionalTypeNode(glue_type(spec[:-1]))
        if spec == "Any":
            return AnyTypeNode("any")
        if spec in ("bool", "int", "str"):
            return getattr(PrimitiveTypeNode, spec + "_")()
        if spec == "tuple[int,int]":
            return TupleTypeNode("tuple", (PrimitiveTypeNode.int_(), PrimitiveTypeNode.int_()))
        if spec == "type":
            return PrimitiveTypeNode("type")
        if "." in spec:                                   # a class of a pure-Python submodule
            module, _, name = spec.rpartition(".")
            return ASTNodeTypeNode(name, module_name=module)
        return create_type_node(spec)                     # a C++ type, as the headers name it

    # 1. Predefined types naming a class that is not built: left out before the typing module is
    #    written (by then the types of the headers are resolved, so only missing classes fail).
    write_typing_module = generation._generate_typing_module

    def typing_module_without_missing_types(root, output_path):
        for name, node in list(PREDEFINED_TYPES.items()):
            if not all(m in root.namespaces for m in getattr(node, "required_modules", ())):
                continue                                  # the generator skips these itself
            try:
                node.resolve(root)
            except TypeResolutionError as e:
                print("typing stubs: predefined type %s left out (%s)" % (name, e))
                del PREDEFINED_TYPES[name]
        return write_typing_module(root, output_path)

    generation._generate_typing_module = typing_module_without_missing_types

    # 2. The hand-written glue's methods, after OpenCV's own refinements. A refinement of a symbol
    #    this build does not have escapes only from a generator that does not skip such symbols
    #    (OpenCV 4.x): noted here, so that the failure it causes is reported as that condition.
    refine = generation.apply_manual_api_refinement
    refinement_of_missing_symbol = []

    def refine_with_glue(root):
        try:
            refine(root)
        except (ScopeNotFoundError, SymbolNotFoundError) as e:
            refinement_of_missing_symbol.append(str(e))
            raise
        cuda = root.namespaces.get("cuda")
        for cls, name, arguments, ret, static in GLUE_METHODS:
            if cuda is None or cls not in cuda.classes:
                continue                                  # the class is not built (no cudaimage)
            cuda.classes[cls].add_function(
                name, [FunctionNode.Arg(a, glue_type(t), d) for a, t, d in arguments],
                FunctionNode.RetType(glue_type(ret)), is_static=static)

    generation.apply_manual_api_refinement = refine_with_glue

    # 3. Pure-Python submodules re-exported by cv2/__init__.pyi (a generator without re-exports
    #    leaves them to `import cv2.cudaimage`).
    populate = getattr(generation, "_populate_reexported_symbols", None)

    def populate_with_python_submodules(root):
        populate(root)
        for name in args.python_submodule:
            if os.path.isfile(os.path.join(args.loader, name, "__init__.py")):
                root.reexported_submodules.append(name)

    if populate is not None:
        generation._populate_reexported_symbols = populate_with_python_submodules
    elif args.python_submodule:
        print("typing stubs: this generator re-exports no submodule; %s not re-exported by cv2/__init__.pyi"
              % ", ".join(args.python_submodule))

    with open(os.path.join(args.bindings_dir, "gen_python_config.json")) as f:
        config = json.load(f)
    with tempfile.TemporaryDirectory(prefix="cv2-typing-stubs-") as out:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gen2.PythonWrapperGenerator().gen(config["headers"], out, config.get("preprocessor_definitions"))
        failed = [str(w.message) for w in caught if "Typing stubs generation has failed" in str(w.message)]
        stubs = os.path.join(out, "cv2")
        if failed or typing_stubs_generator.failures_wrapper.has_failure:
            if refinement_of_missing_symbol:
                defs = config.get("preprocessor_definitions") or {}
                print("note: OpenCV %s.%s's typing stub generator makes no stubs for a build that leaves out "
                      "modules its API refinements name (here %s); this OpenCV line gets no typing stubs, "
                      "and misc/python/test/test_typing.py skips"
                      % (defs.get("CV_VERSION_MAJOR", "?"), defs.get("CV_VERSION_MINOR", "?"),
                         symbol_named_by(refinement_of_missing_symbol[0])))
                return
            sys.exit("error: OpenCV's typing stub generator failed:\n" + "\n".join(failed))
        for need in ("py.typed", "__init__.pyi", os.path.join("cuda", "__init__.pyi")):
            if not os.path.isfile(os.path.join(stubs, need)):
                sys.exit("error: the generator made no cv2/%s" % need)
        subprocess.check_call([sys.executable, os.path.join(src2, "copy_typings_stubs_on_success.py"),
                               "--stubs_dir", stubs, "--output_dir", args.loader])
    count = sum(n.endswith(".pyi") for _, _, names in os.walk(args.loader) for n in names)
    print("typing stubs: %d .pyi files and py.typed in %s" % (count, args.loader))


if __name__ == "__main__":
    main()
