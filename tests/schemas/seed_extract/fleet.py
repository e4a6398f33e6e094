"""Manifest of the fleet family's seed (002): what the seed text documents, by parsing.

The seed is a web page ("Common Types") flattened to text. It documents:

* Cap'n Proto declarations (``struct Name { ... }`` / ``enum Name { ... }``) inside the
  prose, with ordinals; these are parsed as Cap'n Proto (comments stripped, anonymous
  unions flattened, nested declarations qualified ``Outer.Inner``).
* Enums documented only as markdown tables under "Enumerations". The flattening put
  inline-code cells on their own line, so a row may be split over several lines
  (``robot |`` then ``This robot only. |``); tables are therefore read as a stream of
  cells grouped by the header's column count. Enumerants are numbered in row order
  (PROTOCOL.md, "Fleet enums documented only as tables"):
  - ``| Value | Meaning |`` / ``| Role | Intent | Meaning |``: the first column is the name;
  - grouped tables (a ``Values`` column): comma-separated names, in row then list order;
  - when the section's prose states numeric ranges per role class ("Intent roles (0–8)
    ... state roles (10–16)") and a table column carries that class, each class is
    numbered from its stated start, and gaps become placeholder enumerants
    ``unused<N>`` (PROTOCOL.md: LayerRole 9 is ``unused9``).
* One enum given only as prose (ReportedLayerRole): "...: a, b, c." — numbered in listed
  order from 0.

Pure stdlib, deterministic. Raises ValueError on anything it cannot account for, so a
changed seed fails loudly instead of yielding a silently short manifest.
"""

import re

PRIMITIVES = {
    "Void", "Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32",
    "UInt64", "Float32", "Float64", "Text", "Data", "AnyPointer",
}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_MEMBER = re.compile(r"[a-z][A-Za-z0-9]*$")
_DECL_START = re.compile(r"^[ \t]*(struct|enum)[ \t]+[A-Z][A-Za-z0-9]*[ \t]*\{", re.M)
_TOKEN = re.compile(r"\s*(@\d+|[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?|\"[^\"]*\"|[{}();:.,=$\[\]])")
_COMMENT = re.compile(r"\s*#[^\n]*")
_HEADING = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_RANGE = re.compile(r"(\w+) roles \((\d+)\s*[–-]\s*(\d+)\)", re.I)


# ---------------------------------------------------------------------------
# Cap'n Proto declarations
# ---------------------------------------------------------------------------

def _tokenize(code: str, start: int):
    """Tokens of one declaration starting at `start`; returns (tokens, end offset)."""
    tokens, pos, depth, seen_open = [], start, 0, False
    while True:
        # comments run to end of line
        while True:
            m = _COMMENT.match(code, pos)
            if not m:
                break
            pos = m.end()
        m = _TOKEN.match(code, pos)
        if not m:
            raise ValueError(f"fleet seed: cannot tokenize capnp near {code[pos:pos + 60]!r}")
        tok = m.group(1)
        pos = m.end()
        tokens.append(tok)
        if tok == "{":
            depth += 1
            seen_open = True
        elif tok == "}":
            depth -= 1
            if seen_open and depth == 0:
                return tokens, pos


class _Parser:
    def __init__(self, tokens, manifest):
        self.t, self.i, self.m = tokens, 0, manifest

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self, expect=None):
        tok = self.peek()
        if tok is None or (expect is not None and tok != expect):
            raise ValueError(f"fleet seed capnp: expected {expect!r}, got {tok!r}")
        self.i += 1
        return tok

    def ident(self):
        tok = self.take()
        if not _IDENT.match(tok):
            raise ValueError(f"fleet seed capnp: expected a name, got {tok!r}")
        return tok

    def declaration(self, prefix=""):
        kind = self.take()
        name = self.ident()
        qname = prefix + name
        if qname in self.m["structs"] or qname in self.m["enums"]:
            raise ValueError(f"fleet seed: {qname} documented twice")
        self.take("{")
        if kind == "struct":
            fields = {}
            self.m["structs"][qname] = fields
            self.struct_body(qname, fields)
        else:
            values = {}
            self.m["enums"][qname] = values
            while self.peek() != "}":
                member = self.ident()
                num = self.take()
                if not num.startswith("@"):
                    raise ValueError(f"fleet seed enum {qname}.{member}: no ordinal")
                self.take(";")
                if member in values:
                    raise ValueError(f"fleet seed enum {qname}: {member} twice")
                values[member] = int(num[1:])
            self.take("}")

    def struct_body(self, qname, fields):
        while self.peek() != "}":
            tok = self.peek()
            if tok in ("struct", "enum") and self.peek(2) == "{":  # not a field `enum @4`
                self.declaration(qname + ".")
            elif tok == "union" and self.peek(1) == "{":
                self.take()
                self.take("{")
                self.struct_body(qname, fields)  # anonymous union: members are fields
            else:
                name = self.ident()
                num = self.take()
                if not num.startswith("@"):
                    raise ValueError(f"fleet seed {qname}.{name}: no ordinal ({num!r})")
                self.take(":")
                if self.peek() in ("union", "group"):
                    raise ValueError(f"fleet seed {qname}.{name}: named union/group not handled")
                ftype = self.type_expr()
                if self.peek() == "=":  # default value: not part of the manifest
                    while self.peek() != ";":
                        self.take()
                self.take(";")
                if name in fields:
                    raise ValueError(f"fleet seed {qname}: field {name} twice")
                fields[name] = {"ordinal": int(num[1:]), "type": ftype}
        self.take("}")

    def type_expr(self):
        name = self.ident()
        while self.peek() == ".":
            self.take()
            name = self.ident()  # references use the simple (last) name
        if self.peek() == "(":
            self.take()
            inner = self.type_expr()
            self.take(")")
            return f"{name}({inner})"
        return name


def _capnp_declarations(text, manifest):
    """Parse every top-level capnp declaration; returns the (start, end) spans consumed."""
    spans, pos = [], 0
    while True:
        m = _DECL_START.search(text, pos)
        if not m:
            return spans
        tokens, end = _tokenize(text, m.start())
        parser = _Parser(tokens, manifest)
        parser.declaration()
        if parser.i != len(tokens):
            raise ValueError("fleet seed capnp: trailing tokens in declaration")
        spans.append((m.start(), end))
        pos = end


# ---------------------------------------------------------------------------
# Table / prose enums
# ---------------------------------------------------------------------------

def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_enum(name, header, body_lines, prose):
    ncol = len(header)
    stream = " ".join(line.strip().lstrip("|") for line in body_lines)
    cells = [c.strip() for c in stream.split("|")]
    if cells and cells[-1] == "":
        cells.pop()
    if len(cells) % ncol:
        raise ValueError(f"fleet seed table {name}: {len(cells)} cells for {ncol} columns")
    rows = [cells[k:k + ncol] for k in range(0, len(cells), ncol)]
    lower_header = [h.lower() for h in header]

    if "values" in lower_header:  # grouped table: comma-separated names per row
        col = lower_header.index("values")
        names = [n.strip() for row in rows for n in row[col].split(",") if n.strip()]
        classes = None
    else:
        names = [row[0] for row in rows]
        classes = None
        ranges = {k.lower(): (int(a), int(b)) for k, a, b in _RANGE.findall(prose)}
        if ranges:
            for col in range(1, ncol):
                vals = [row[col].lower() for row in rows]
                if set(vals) <= set(ranges):
                    classes = vals
                    break
            if classes is None:
                raise ValueError(f"fleet seed table {name}: ranges stated but no class column")

    for n in names:
        if not _MEMBER.match(n):
            raise ValueError(f"fleet seed table {name}: bad enumerant {n!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"fleet seed table {name}: duplicate enumerants")

    if classes is None:
        return {n: i for i, n in enumerate(names)}

    numbers, nxt = {}, {}
    for n, cls in zip(names, classes, strict=True):
        lo, hi = ranges[cls]
        v = nxt.get(cls, lo)
        if v > hi:
            raise ValueError(f"fleet seed table {name}: too many {cls} rows for {lo}-{hi}")
        numbers[n] = v
        nxt[cls] = v + 1
    for cls, (lo, hi) in ranges.items():
        if nxt.get(cls, lo) != hi + 1:
            raise ValueError(f"fleet seed table {name}: {cls} rows do not fill {lo}-{hi}")
    used = set(numbers.values())
    for v in range(max(used) + 1):
        if v not in used:
            numbers[f"unused{v}"] = v  # PROTOCOL.md placeholder for a gap
    return dict(sorted(numbers.items(), key=lambda kv: kv[1]))


def _prose_enum(name, prose):
    m = re.search(r":\s*((?:[a-z][A-Za-z0-9]*\s*,\s*)+[a-z][A-Za-z0-9]*)\s*\.", prose)
    if not m:
        return None
    names = [n.strip() for n in m.group(1).split(",")]
    if len(set(names)) != len(names):
        raise ValueError(f"fleet seed prose enum {name}: duplicates")
    return {n: i for i, n in enumerate(names)}


def _section_enums(lines, manifest, order):
    """lines: the Enumerations area with capnp declarations blanked out."""
    sections, cur = [], None
    for idx, line in enumerate(lines):
        s = line.strip()
        if _HEADING.match(s):
            cur = [s, []]
            sections.append(cur)
        elif cur is not None:
            cur[1].append((idx, line))
        elif s:
            raise ValueError(f"fleet seed: text before first enum heading: {s!r}")

    for name, body in sections:
        table_at = [k for k, (_, line) in enumerate(body) if line.strip().startswith("|")
                    and k + 1 < len(body) and re.match(r"^\|[-|: ]+\|$", body[k + 1][1].strip())]
        if len(table_at) > 1:
            raise ValueError(f"fleet seed section {name}: more than one table")
        if table_at:
            k = table_at[0]
            header = _cells(body[k][1])
            rows, j = [], k + 2
            while j < len(body) and body[j][1].strip().endswith("|"):
                rows.append(body[j][1])
                j += 1
            prose = " ".join(line.strip() for _, line in body[:k])
            values = _table_enum(name, header, rows, prose)
            pos = body[k][0]
        else:
            prose = " ".join(line.strip() for _, line in body)
            values = _prose_enum(name, prose)
            if values is None:
                raise ValueError(f"fleet seed section {name}: neither table nor listed values")
            pos = body[0][0] if body else 0
        if name in manifest["enums"] or name in manifest["structs"]:
            raise ValueError(f"fleet seed: {name} documented twice")
        manifest["enums"][name] = values
        order.append(("enums", name, pos))


def extract(text: str) -> dict:
    manifest = {"structs": {}, "enums": {}}
    spans = _capnp_declarations(text, manifest)

    # Blank out the capnp declarations (keeping line structure) for the prose pass.
    chars = list(text)
    for a, b in spans:
        for k in range(a, b):
            if chars[k] != "\n":
                chars[k] = " "
    lines = "".join(chars).split("\n")
    try:
        first = next(i for i, line in enumerate(lines) if line.strip() == "Enumerations")
        last = next(
            i for i, line in enumerate(lines) if i > first and line.strip() == "Related"
        )
    except StopIteration:
        raise ValueError("fleet seed: Enumerations / Related markers not found") from None
    table_order = []
    _section_enums(lines[first + 1:last], manifest, table_order)

    # Enums in document order: capnp enums by their declaration line, table/prose enums
    # by their section; enums nested in structs (none in this seed) keep parse order.
    rank = {}
    for a, _ in spans:
        m = re.match(r"\s*enum\s+([A-Z][A-Za-z0-9]*)", text[a:])
        if m:
            rank[m.group(1)] = text.count("\n", 0, a)
    for _, name, pos in table_order:
        rank[name] = first + 1 + pos
    ordered = sorted(rank, key=rank.get) + [n for n in manifest["enums"] if n not in rank]
    manifest["enums"] = {n: manifest["enums"][n] for n in ordered}

    # Every referenced non-primitive type must be documented.
    simple = {q.rsplit(".", 1)[-1] for q in list(manifest["structs"]) + list(manifest["enums"])}
    for sname, fields in manifest["structs"].items():
        for fname, f in fields.items():
            base = f["type"]
            while base.startswith("List("):
                base = base[5:-1]
            if base not in PRIMITIVES and base not in simple:
                raise ValueError(f"fleet seed: {sname}.{fname} references undocumented {base}")
    return manifest
