"""A griffe extension for the API reference: the engine's docstrings are written in
reStructuredText (Sphinx roles, doctest blocks, literal blocks, simple tables), and
mkdocstrings renders Markdown. Before a docstring is rendered it is rewritten:

- a role (``:class:`~civlite.engine.Game```, ``:meth:`Game.apply```, ``:mod:`.resolution```)
  becomes a link to the object when the site documents it, else inline code;
- a doctest block (``>>>`` lines and their output) becomes a ``pycon`` code block;
- a literal block (a paragraph ending in ``::`` and the indented lines after it) becomes a
  code block;
- a simple table (columns framed by ``====`` lines) becomes a Markdown table.

mkdocs.yml loads it (``extensions: [docs/griffe_rst.py]``). The docstrings stay as they
are in the source, where ``help()`` and doctest read them.
"""

from __future__ import annotations

import re
from pathlib import Path
from textwrap import dedent
from typing import Any

from griffe import Alias, Extension, Module, Object

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|data|mod|exc|obj|const|type):`([^`]+)`")
RULE = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")
#: the page whose ``::: module`` blocks render objects with their anchors
REFERENCE = "engine/reference.md"


class RstToMarkdown(Extension):
    """Rewrites every docstring of a loaded package (see the module's documentation)."""

    def on_package(self, *, pkg: Module, **kwargs: Any) -> None:
        if not pkg.path.startswith("civlite"):
            return
        self.pkg = pkg
        self.targets = self._targets(pkg)
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = self.convert(obj.docstring.value, obj)

    # -- which objects the site renders, by canonical path -> the anchor to link ------------
    def _targets(self, pkg: Module) -> dict[str, str]:
        """The objects the reference page renders with an anchor: the package's exports and
        their public members, those with a docstring (modules are rendered without a
        heading of their own, so they are named, not linked)."""
        out: dict[str, str] = {}
        docs = Path(__file__).resolve().parent
        text = (docs / REFERENCE).read_text(encoding="utf-8")
        for path in re.findall(r"^::: (civlite[\w.]*)", text, flags=re.M):
            root = _lookup(pkg, path)
            if root is None:
                continue
            for name in _exports(root):
                member = _lookup(pkg, f"{path}.{name}")
                if member is None or not _documented(member):
                    continue
                out.setdefault(_canonical(member), f"{path}.{name}")
                final = _final(member)
                if getattr(final, "is_class", False):
                    for sub, child in final.members.items():
                        if not sub.startswith("_") and _documented(child):
                            out.setdefault(_canonical(child), f"{path}.{name}.{sub}")
        return out

    # -- the rewriting ------------------------------------------------------------------------
    def convert(self, text: str, obj: Object) -> str:
        text = _tables(text)
        text = _blocks(text)
        return ROLE.sub(lambda m: self._role(m.group(1), obj), text)

    def _role(self, body: str, obj: Object) -> str:
        label, _, explicit = body.partition(" <")
        if explicit:
            target = explicit.rstrip(">")
        else:
            target = label
        short = target.startswith("~")
        target = target.lstrip("~")
        if not explicit:
            label = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        anchor = self._anchor(target, obj)
        code = f"`{label}`"
        return f"[{code}][{anchor}]" if anchor else code

    def _anchor(self, target: str, obj: Object) -> str | None:
        for path in self._candidates(target, obj):
            found = _lookup(self.pkg, path)
            if found is not None:
                return self.targets.get(_canonical(found))
        return None

    def _candidates(self, target: str, obj: Object) -> list[str]:
        module = obj if obj.is_module else obj.module
        if target.startswith("civlite"):
            return [target]
        if target.startswith("."):
            package = module.path.rpartition(".")[0] if not module.is_package else module.path
            return [module.path + target, package + target]
        head, _, rest = target.partition(".")
        out = []
        scope: Object | None = obj
        while scope is not None:
            try:
                resolved = scope.resolve(head)
            except Exception:
                resolved = None
            if resolved:
                out.append(resolved + ("." + rest if rest else ""))
                break
            scope = scope.parent
        out.append(f"{module.path}.{target}")
        return out


def _walk(obj: Object) -> list[Object]:
    out = [obj]
    for member in obj.members.values():
        if isinstance(member, Alias):
            continue
        out.extend(_walk(member))
    return out


def _lookup(pkg: Module, path: str) -> Object | Alias | None:
    if path == pkg.path:
        return pkg
    if not path.startswith(pkg.path + "."):
        return None
    obj: Object | Alias = pkg
    for part in path[len(pkg.path) + 1:].split("."):
        try:
            obj = obj.members[part]
        except Exception:
            return None
    return obj


def _final(obj: Object | Alias) -> Object | Alias:
    try:
        return obj.final_target if isinstance(obj, Alias) else obj
    except Exception:
        return obj


def _canonical(obj: Object | Alias) -> str:
    return _final(obj).path


def _documented(obj: Object | Alias) -> bool:
    final = _final(obj)
    return not getattr(final, "is_module", False) and getattr(final, "docstring", None) is not None


def _exports(obj: Object | Alias) -> list[str]:
    target = _final(obj)
    exports = getattr(target, "exports", None)
    if exports:
        return [e if isinstance(e, str) else e.name for e in exports]
    return [n for n in target.members if not n.startswith("_")]


def _blocks(text: str) -> str:
    """Doctest blocks and literal blocks as fenced code."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>") and (not out or not out[-1].strip() or out[-1].startswith("```")):
            indent = len(line) - len(line.lstrip())
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][indent:] if len(lines[i]) >= indent else lines[i].strip())
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            stripped = line.rstrip()[:-2].rstrip()
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            base = len(line) - len(line.lstrip())
            k = j
            while k < len(lines) and (not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) > base):
                k += 1
            while k > j and not lines[k - 1].strip():
                k -= 1
            if k > j:
                if stripped.strip():
                    out.append(stripped + ":")
                out += ["", "```text", *dedent("\n".join(lines[j:k])).split("\n"), "```"]
                i = k
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _tables(text: str) -> str:
    """reST simple tables (``====  ====`` rules) as Markdown tables."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not RULE.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        spans = [s.start() for s in re.finditer(r"=+", lines[i])]
        r2 = next((j for j in range(i + 1, len(lines)) if RULE.match(lines[j])), None)
        if r2 is None:
            out.append(lines[i])
            i += 1
            continue
        r3 = None
        for j in range(r2 + 1, len(lines)):
            if RULE.match(lines[j]):
                r3 = j
                break
            if not lines[j].strip():
                break
        head, body = (lines[i + 1:r2], lines[r2 + 1:r3]) if r3 is not None else ([], lines[i + 1:r2])
        end = r3 if r3 is not None else r2
        rows = [_cells(line, spans) for line in body if line.strip()]
        merged: list[list[str]] = []
        for cells in rows:
            if merged and not cells[0]:  # a continuation line of the row above
                merged[-1] = [f"{x} {y}".strip() for x, y in zip(merged[-1], cells, strict=True)]
            else:
                merged.append(cells)
        header = [_cells(line, spans) for line in head if line.strip()]
        top = header[-1] if header else [""] * len(spans)
        out.append("")
        out.append("| " + " | ".join(_esc(c) for c in top) + " |")
        out.append("|" + "---|" * len(spans))
        out += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in merged]
        out.append("")
        i = end + 1
    return "\n".join(out)


def _cells(line: str, spans: list[int]) -> list[str]:
    return [line[a:(spans[n + 1] if n + 1 < len(spans) else len(line))].strip() for n, a in enumerate(spans)]


def _esc(cell: str) -> str:
    return cell.replace("|", "\\|")
