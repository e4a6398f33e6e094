"""Manifest extractor for the `isaac` family (seed 000_fc6f2afadf2cf049.txt).

The seed is a doc-generator dump of the Isaac SDK Cap'n Proto message catalogue.
Its native encoding is already Cap'n Proto, so names, ordinals and types are
taken as written. The generator left artefacts that this parser removes:

- the section table at the top (`Section | Message | Description |` rows);
- markdown headings (`## section`, `### Name`) and code fences (```` ``` ````);
  headings are often shifted by one type and are not used at all: only the
  capnp code decides what is declared and where;
- `.. code-block:: capnp` lines inside struct bodies;
- enums nested in a struct are emitted twice: once in place, inside the struct,
  and once more as a top-level block. A top-level enum whose name and
  enumerants equal those of an enum nested in some struct is that artefact and
  is dropped; the nested declaration is the real one. A top-level enum that
  differs from its nested namesake is an error (the seed would be ambiguous).

Every other line must be a capnp comment, a struct/enum opening, a field,
an enumerant or a closing brace; anything else raises ValueError, so a changed
seed cannot be half-parsed silently.

extract(text) -> {"structs": {QualifiedName: {field: {"ordinal": n, "type": T}}},
                  "enums":   {QualifiedName: {enumerant: n}}}
Struct/enum references in "type" are reduced to their simple (last) name.
"""

import re

_TABLE_ROW = re.compile(r"\|")
_FENCE = re.compile(r"^```")
_CODE_BLOCK = re.compile(r"^\.\. code-block::")
_OPEN = re.compile(r"^(struct|enum)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{$")
_FIELD = re.compile(r"^([a-z][A-Za-z0-9_]*)\s*@(\d+)\s*:\s*([A-Za-z0-9_.()]+)\s*;$")
_ENUMERANT = re.compile(r"^([a-z][A-Za-z0-9_]*)\s*@(\d+)\s*;$")
_CLOSE = re.compile(r"^\}$")


def _simple_type(t: str) -> str:
    m = re.fullmatch(r"List\((.*)\)", t)
    if m:
        return "List(" + _simple_type(m.group(1)) + ")"
    return t.split(".")[-1]


def _code_lines(text: str):
    """Yield (lineno, code) for every line that carries capnp code."""
    depth = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        while _FENCE.match(line):
            line = line[3:].lstrip()
        if _CODE_BLOCK.match(line):
            continue
        line = line.split("#", 1)[0].strip()  # capnp comments and md headings
        if not line:
            continue
        if depth == 0 and _TABLE_ROW.search(line):
            continue  # section table at the top of the seed
        if "{" in line:
            depth += 1
        if "}" in line:
            depth -= 1
        yield lineno, line


def _parse(text: str):
    """Return a list of top-level declarations as nested dicts."""
    top = []
    stack = []
    for lineno, line in _code_lines(text):
        m = _OPEN.match(line)
        if m:
            kind, name = m.groups()
            if stack and stack[-1]["kind"] != "struct":
                raise ValueError(f"line {lineno}: {kind} inside an enum")
            decl = {"kind": kind, "name": name, "members": [], "nested": [], "line": lineno}
            (stack[-1]["nested"] if stack else top).append(decl)
            stack.append(decl)
            continue
        if _CLOSE.match(line):
            if not stack:
                raise ValueError(f"line {lineno}: unbalanced '}}'")
            stack.pop()
            continue
        if not stack:
            raise ValueError(f"line {lineno}: code outside a declaration: {line!r}")
        cur = stack[-1]
        if cur["kind"] == "struct":
            m = _FIELD.match(line)
            if not m:
                raise ValueError(f"line {lineno}: not a field: {line!r}")
            cur["members"].append((m.group(1), int(m.group(2)), m.group(3)))
        else:
            m = _ENUMERANT.match(line)
            if not m:
                raise ValueError(f"line {lineno}: not an enumerant: {line!r}")
            cur["members"].append((m.group(1), int(m.group(2))))
    if stack:
        raise ValueError(f"unterminated declaration {stack[-1]['name']}")
    return top


def _walk(decls, prefix, structs, enums, nested_enums):
    for d in decls:
        qname = prefix + d["name"]
        if d["kind"] == "struct":
            if qname in structs:
                raise ValueError(f"struct {qname} declared twice")
            fields = {}
            for name, ordinal, typ in d["members"]:
                if name in fields:
                    raise ValueError(f"{qname}.{name} declared twice")
                fields[name] = {"ordinal": ordinal, "type": _simple_type(typ)}
            structs[qname] = fields
            _walk(d["nested"], qname + ".", structs, enums, nested_enums)
        else:
            values = {}
            for name, number in d["members"]:
                if name in values:
                    raise ValueError(f"{qname}.{name} declared twice")
                values[name] = number
            if qname in enums:
                raise ValueError(f"enum {qname} declared twice")
            enums[qname] = values
            if prefix:
                nested_enums.setdefault(d["name"], []).append(values)


def extract(text: str) -> dict:
    top = _parse(text)
    structs, enums, nested_enums = {}, {}, {}
    # Nested enums first, so top-level repeats can be recognised.
    _walk([d for d in top if d["kind"] == "struct"], "", structs, enums, nested_enums)
    for d in top:
        if d["kind"] != "enum":
            continue
        values = dict(d["members"])
        twins = nested_enums.get(d["name"], [])
        if twins:
            if all(values == t for t in twins):
                continue  # doc-generator repeat of a nested enum
            raise ValueError(
                f"top-level enum {d['name']} (line {d['line']}) differs from its nested namesake"
            )
        _walk([d], "", structs, enums, nested_enums)
    return {
        "structs": dict(sorted(structs.items())),
        "enums": dict(sorted(enums.items())),
    }


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys
    from pathlib import Path

    print(json.dumps(extract(Path(sys.argv[1]).read_text(encoding="utf-8")), indent=1))
