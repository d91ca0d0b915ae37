"""The C++ sources' instruction-set rule (docs/DEVELOPING.md): a file opts
into AVX2 or AVX-512 with `#pragma GCC target`, and everything it includes
after the pragma is compiled for that target.  An inline function with
external linkage is merged across files by the linker, which keeps one copy:
compiled under two targets, the copy kept may be the wider one, and a CPU
without that instruction set then stops on an illegal instruction where a
narrower file calls it.  So every header's definitions are compiled under
one target, or kept apart (an anonymous namespace, or a namespace of the
row's own).  Read from the sources, as the preprocessor would on x86-64."""
import functools
import re
from collections import defaultdict
from pathlib import Path

CSRC = Path(__file__).resolve().parents[1] / "csrc"
X86 = re.compile(r"#if defined\(__x86_64__\)")
# GCC's intrinsics headers set their own targets, function by function.
TARGET_AWARE = {"immintrin.h"}


@functools.lru_cache(maxsize=None)
def contexts():
    """{header: {(namespace path at its first inclusion, target)}} over
    every translation unit, and the system headers first included under a
    target, as (file, header) pairs; read once for the three tests below."""
    seen = defaultdict(set)
    late_system = []
    for unit in sorted(CSRC.rglob("*.cpp")):
        state = {"target": None, "included": set(), "macros": {}}
        walk(unit, unit, [], state, seen, late_system)
    return seen, late_system


def walk(path, unit, outer, state, seen, late_system):
    namespaces = list(outer)
    skip = []  # one entry per open #if: True while in x86-64's #else branch
    for line in path.read_text().splitlines():
        directive = line.strip()
        if directive.startswith("#if"):
            skip.append(False)
            if X86.match(directive):
                skip[-1] = "x86"
            continue
        if directive.startswith("#else") and skip:
            skip[-1] = skip[-1] == "x86" or skip[-1] is True
            continue
        if directive.startswith("#endif") and skip:
            skip.pop()
            continue
        if any(s is True for s in skip):
            continue
        if m := re.match(r"#define (\w+) (\w+)$", directive):
            state["macros"][m[1]] = m[2]
        elif m := re.match(r'#pragma GCC target\("([^"]+)"\)', directive):
            state["target"] = m[1]
        elif m := re.match(r"namespace ?(\w*) \{", directive):
            namespaces.append(state["macros"].get(m[1], m[1]) or "(anonymous)")
        elif re.match(r"\}\s*// namespace", directive) and namespaces:
            namespaces.pop()
        elif m := re.match(r"#include <([^>]+)>", directive):
            if m[1] not in state["included"] and state["target"] and m[1] not in TARGET_AWARE:
                late_system.append((unit.relative_to(CSRC).as_posix(), m[1]))
            state["included"].add(m[1])
        elif m := re.match(r'#include "([^"]+)"', directive):
            header = CSRC / m[1]
            if m[1] in state["included"] or not header.exists():
                continue
            state["included"].add(m[1])
            seen[m[1]].add(("::".join(namespaces), state["target"]))
            walk(header, unit, namespaces, state, seen, late_system)


def test_no_header_is_compiled_under_two_targets_in_one_namespace():
    seen, _ = contexts()
    clashes = []
    for header, where in sorted(seen.items()):
        if "namespace {" in (CSRC / header).read_text():
            continue  # its definitions are the file's own
        targets = defaultdict(set)
        for namespace, target in where:
            if "(anonymous)" not in namespace:
                targets[namespace].add(target or "baseline")
        clashes += [f"{header} in namespace '{ns}' under {sorted(t)}" for ns, t in targets.items() if len(t) > 1]
    assert not clashes, "headers whose inline functions the linker may merge across targets:\n" + "\n".join(clashes)


def test_standard_headers_come_before_the_target_pragma():
    _, late = contexts()
    assert not late, f"standard headers first included after `#pragma GCC target`: {late}"


def test_the_check_sees_the_target_files():
    seen, _ = contexts()
    targets = {t for where in seen.values() for _, t in where}
    assert {None, "avx2,fma", "avx512f,avx2,fma"} <= targets
