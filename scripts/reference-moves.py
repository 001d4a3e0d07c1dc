#!/usr/bin/env python3
"""How far two recordings of tests/data/detect-reference/analyses.tsv lie apart.

Usage: scripts/reference-moves.py OLD.tsv NEW.tsv

Walks every analysis's JSON side by side and prints, per field name (array indices dropped),
the largest absolute and relative change of its float values, how many integers moved and
by how much at most, and any change of a boolean, a string (a warning, a phase's kind), a
null or a list's length (the number of cliffs, phases, dips). Exits 1 when anything other
than a float or an integer moved, or when the traces differ.
"""
import json
import sys


def walk(path, old, new, floats, ints, other):
    if isinstance(old, bool) or isinstance(new, bool):
        if old != new:
            other.append(f"{path}: {old!r} -> {new!r}")
    elif isinstance(old, int) and isinstance(new, int):
        if old != new:
            n, most = ints.get(path, (0, 0))
            ints[path] = (n + 1, max(most, abs(new - old)))
    elif isinstance(old, (int, float)) and isinstance(new, (int, float)):
        d = abs(new - old)
        r = d / max(abs(old), abs(new)) if d else 0.0
        a0, r0, n0 = floats.get(path, (0.0, 0.0, 0))
        floats[path] = (max(a0, d), max(r0, r), n0 + (1 if d else 0))
    elif isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            other.append(f"{path}: {len(old)} -> {len(new)} entries")
        for o, n in zip(old, new):
            walk(path + "[]", o, n, floats, ints, other)
    elif isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            other.append(f"{path}: keys {sorted(old)} -> {sorted(new)}")
        for k in old.keys() & new.keys():
            walk(f"{path}.{k}", old[k], new[k], floats, ints, other)
    elif old != new:
        other.append(f"{path}: {old!r} -> {new!r}")


def load(p):
    rows = [line.rstrip("\n").split("\t", 1) for line in open(p) if line.strip()]
    return [(name, json.loads(body)) for name, body in rows]


def main():
    old, new = load(sys.argv[1]), load(sys.argv[2])
    if [n for n, _ in old] != [n for n, _ in new]:
        print("the traces differ")
        return 1
    floats, ints, other = {}, {}, []
    changed = 0
    for (name, o), (_, n) in zip(old, new):
        changed += o != n
        walk(name.split(" ")[0], o, n, floats, ints, other)
    print(f"{changed} of {len(old)} analyses changed")
    print("| field | floats changed | max abs change | max rel change |")
    print("|---|---|---|---|")
    byfield = {}
    for path, (a, r, c) in floats.items():
        f = path.split(".", 1)[1]
        a0, r0, c0 = byfield.get(f, (0.0, 0.0, 0))
        byfield[f] = (max(a0, a), max(r0, r), c0 + c)
    for f, (a, r, c) in sorted(byfield.items()):
        if c:
            print(f"| {f} | {c} | {a:.3g} | {r:.3g} |")
    for path, (c, most) in sorted(ints.items()):
        print(f"integer {path}: {c} changed, by at most {most}")
    for o in other:
        print("CHANGED", o)
    return 1 if other else 0


if __name__ == "__main__":
    sys.exit(main())
