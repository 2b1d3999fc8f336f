"""The raise-site census: every statement of ``reference/`` that raises a contract error.

A *site* is one of:

* a ``raise`` whose exception is a ``VNextError`` variant built in place (``raise InvalidModelConfig(...)``),
  built by a factory whose return annotation is a variant (``raise invalid_plan(...)``,
  ``raise self._fail(...)``), rewritten from a caught one (``raise with_node(exc, node)``), or re-raised at
  a decode boundary (``raise Serialization(...) from None``);
* a ``raise`` of a stored error value declared ``VNextError`` (``raise self._validate_error``);
* a checked-arithmetic call whose ``error=`` is a factory of a variant (``partial(invalid_plan, ...)``,
  ``lambda: ...``, or a local name bound to one): the error is raised inside ``reference/ints.py`` for the
  caller, so the caller's call is the site.

Each site carries the rules it implements as a trailing comment on one of its lines,
``# rule: <rule id>[, <rule id>...]`` (ids of ``conformance/rules``); ``tests/test_raise_sites.py`` keeps
every site annotated with existing ids.

A check shared by many callers (one struct decoder refusing an unknown field for every struct) raises at
one site, yet each caller's rule is its own. A *passage* names those: a statement of the caller carrying
``# rule when <site rule>: <rule id>[, ...]`` credits its rules to an error that passed through that
statement and was raised at a site implementing ``<site rule>`` (``Passage``).

The census is a pure AST and token scan: nothing is imported from the scanned modules, so it reads any
checkout of ``reference/``.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

from reference.errors import ERROR_KINDS, VNextError

__all__ = [
    "ANNOTATION",
    "GENERIC_CLASS",
    "PASSAGE",
    "Passage",
    "RaiseSite",
    "SiteIndex",
    "census",
    "reference_root",
    "scan_source",
]

#: The annotation comment: ``# rule: <id>[, <id>...]``.
ANNOTATION: Final = re.compile(r"#\s*rule:\s*(?P<ids>[^#]*)")
#: The passage annotation: ``# rule when <site rule>: <id>[, <id>...]``.
PASSAGE: Final = re.compile(r"#\s*rule\s+when\s+(?P<when>[^:#\s]+)\s*:\s*(?P<ids>[^#]*)")
#: The class of a site whose error is any variant (a stored or rewritten error).
GENERIC_CLASS: Final = VNextError.__name__
_ERROR_CLASSES: Final = frozenset({cls.__name__ for cls in ERROR_KINDS.values()} | {GENERIC_CLASS})
_ERROR_KEYWORD: Final = "error"


@dataclass(frozen=True, slots=True)
class RaiseSite:
    """One place of ``reference/`` that raises a contract error.

    ``path`` is relative to the repository (``reference/plan/build.py``); ``line`` is the first line of the
    raising expression, ``lines`` every line a traceback of it may show (the statement, or the call of a
    checked-arithmetic site); ``key`` names the site independently of line numbers (path, qualname and a
    digest of the raising expression's source, with an ordinal among identical expressions).
    """

    path: str
    line: int
    lines: tuple[int, int]
    qualname: str
    error_class: str
    rules: tuple[str, ...]
    key: str
    source: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def reference(self) -> str:
        """``path:qualname``, the form of the catalogue's ``reference`` entries."""
        return f"{self.path}:{self.qualname}" if self.qualname else self.path


@dataclass(frozen=True, slots=True)
class Passage:
    """A statement of ``reference/`` whose rules an error passing through it is credited with.

    ``lines`` are the statement's (a compound statement's header only); ``when`` is the rule the error's raise
    site must implement; ``rules`` are the caller's own rules that the refusal there checked.
    """

    path: str
    lines: tuple[int, int]
    qualname: str
    when: str
    rules: tuple[str, ...]

    @property
    def location(self) -> str:
        return f"{self.path}:{self.lines[0]}"


def reference_root() -> Path:
    """The directory of the ``reference`` package being scanned (its parent is the repository root)."""
    return Path(str(resources.files("reference")))


# --------------------------------------------------------------------------- factories


def _annotation_class(node: ast.expr | None) -> str | None:
    """The variant named by a return annotation (``InvalidModelConfig``, ``errors.InvalidModelConfig``,
    ``A | B`` of variants -> generic)."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.Name) and node.id in _ERROR_CLASSES:
        return node.id
    if isinstance(node, ast.Attribute) and node.attr in _ERROR_CLASSES:
        return node.attr
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _annotation_class(node.left), _annotation_class(node.right)
        if left and right:
            return left if left == right else GENERIC_CLASS
    return None


def _factories(tree: ast.Module) -> dict[str, str]:
    """Every function or method of a module whose return annotation is a variant: name -> class."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found = _annotation_class(node.returns)
            if found is not None:
                out.setdefault(node.name, found)
    return out


@cache
def _all_factories(root: Path) -> Mapping[str, Mapping[str, str]]:
    """module path (relative to the repository) -> its factories."""
    return {_relative(root, path): _factories(_parse(path)) for path in _python_files(root)}


def _imported_factories(
    tree: ast.Module, module_path: str, all_factories: Mapping[str, Mapping[str, str]]
) -> dict[str, str]:
    """Factories imported by name (``from reference.errors import invalid_plan``)."""
    out: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        module = node.module
        if node.level:
            base = module_path.rsplit("/", node.level)[0].replace("/", ".")
            module = f"{base}.{module}" if module else base
        if not module.startswith("reference"):
            continue
        candidates = [module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"]
        for alias in node.names:
            for candidate in candidates:
                found = all_factories.get(candidate, {}).get(alias.name)
                if found is not None:
                    out[alias.asname or alias.name] = found
                    break
    return out


# --------------------------------------------------------------------------- scanning


def _callee_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, factories: Mapping[str, str], stored: frozenset[str]) -> None:
        self.path = path
        self.factories = factories
        self.stored = stored
        self.scope: list[str] = []
        self.bound: list[dict[str, str]] = [{}]
        self.found: list[tuple[int, tuple[int, int], str, str, ast.AST]] = []

    # scopes
    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.bound.append({})
        self.generic_visit(node)
        self.bound.pop()
        self.scope.pop()

    visit_FunctionDef = _enter
    visit_AsyncFunctionDef = _enter
    visit_ClassDef = _enter

    @property
    def qualname(self) -> str:
        return ".".join(self.scope)

    def _class_of_factory(self, node: ast.expr) -> str | None:
        """The variant an ``error=`` value builds: ``partial(F, ...)``, ``lambda: F(...)``, a bound name."""
        if isinstance(node, ast.Call) and _callee_name(node.func) == "partial" and node.args:
            return self._class_of_callee(node.args[0])
        if isinstance(node, ast.Lambda) and isinstance(node.body, ast.Call):
            return self._class_of_callee(node.body.func)
        if isinstance(node, ast.Name):
            for frame in reversed(self.bound):
                if node.id in frame:
                    return frame[node.id]
        return None

    def _class_of_callee(self, node: ast.expr) -> str | None:
        name = _callee_name(node)
        if name is None:
            return None
        if name in _ERROR_CLASSES:
            return name
        return self.factories.get(name)

    def visit_Assign(self, node: ast.Assign) -> None:
        found = self._class_of_factory(node.value)
        if found is not None:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.bound[-1][target.id] = found
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        found: str | None = None
        if isinstance(exc, ast.Call):
            found = self._class_of_callee(exc.func)
        elif isinstance(exc, ast.Attribute) and exc.attr in self.stored:
            found = GENERIC_CLASS
        if found is not None:
            assert exc is not None
            end = node.end_lineno or node.lineno
            self.found.append((node.lineno, (node.lineno, end), found, self.qualname, exc))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg == _ERROR_KEYWORD:
                found = self._class_of_factory(keyword.value)
                if found is not None:
                    end = node.end_lineno or node.lineno
                    self.found.append((keyword.value.lineno, (node.lineno, end), found, self.qualname, keyword.value))
        self.generic_visit(node)


def _stored_errors(tree: ast.Module) -> frozenset[str]:
    """Attribute names declared ``VNextError | None`` (stored errors a method re-raises)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            text = ast.unparse(node.annotation)
            if re.fullmatch(r"(VNextError|VNextError \| None|Optional\[VNextError\])", text):
                out.add(node.target.id)
    return frozenset(out)


def _comments(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            out[token.start[0]] = token.string
    return out


def _rules_on(comments: Mapping[int, str], lines: tuple[int, int]) -> tuple[str, ...]:
    for line in range(lines[0], lines[1] + 1):
        comment = comments.get(line)
        if comment is None:
            continue
        match = ANNOTATION.search(comment)
        if match:
            return tuple(part.strip() for part in match.group("ids").split(",") if part.strip())
    return ()


def scan_source(
    path: str, source: str, factories: Mapping[str, str] | None = None, tree: ast.Module | None = None
) -> list[RaiseSite]:
    """The sites of one module's source (``factories``: names of error factories visible to it; ``tree``: the
    source already parsed)."""
    tree = ast.parse(source) if tree is None else tree
    visible = {**_factories(tree), **(factories or {})}
    scanner = _Scanner(path, visible, _stored_errors(tree))
    scanner.visit(tree)
    comments = _comments(source)
    seen: dict[str, int] = {}
    sites = []
    for line, lines, error_class, qualname, node in sorted(scanner.found, key=lambda item: (item[0], item[1])):
        text = ast.unparse(node)
        digest = hashlib.sha256(f"{qualname}\0{text}".encode()).hexdigest()[:10]
        ordinal = seen.get(digest, 0)
        seen[digest] = ordinal + 1
        key = f"{path}:{qualname or '<module>'}:{digest}" + (f"~{ordinal}" if ordinal else "")
        sites.append(RaiseSite(path, line, lines, qualname, error_class, _rules_on(comments, lines), key, text))
    return sites


def _statement_lines(node: ast.stmt) -> tuple[int, int]:
    """The lines of a statement a traceback of a call in it shows (a compound statement's header only)."""
    body = getattr(node, "body", None)
    end = node.end_lineno or node.lineno
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        end = max(node.lineno, body[0].lineno - 1)
    return node.lineno, end


def _statements(tree: ast.Module) -> list[tuple[tuple[int, int], str]]:
    """Every statement's lines with the qualname of the function or class holding it."""
    out: list[tuple[tuple[int, int], str]] = []

    def walk(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.stmt):
                out.append((_statement_lines(child), ".".join(scope)))
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = (*scope, child.name)
            walk(child, inner)

    walk(tree, ())
    return out


def scan_passages(path: str, source: str, tree: ast.Module | None = None) -> list[Passage]:
    """The passages of one module: each ``# rule when`` comment on the innermost statement holding its line."""
    tree = ast.parse(source) if tree is None else tree
    statements = _statements(tree)
    found = []
    for line, comment in sorted(_comments(source).items()):
        match = PASSAGE.search(comment)
        if match is None:
            continue
        holding = [(lines, qualname) for lines, qualname in statements if lines[0] <= line <= lines[1]]
        if not holding:
            raise ValueError(f"{path}:{line}: a passage annotation outside any statement")
        lines, qualname = min(holding, key=lambda item: (item[0][1] - item[0][0], -item[0][0]))
        rules = tuple(part.strip() for part in match.group("ids").split(",") if part.strip())
        found.append(Passage(path, lines, qualname, match.group("when"), rules))
    return found


def _python_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root.parent).as_posix()


@cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


#: Modules whose raises are not sites: ``ints._fail`` raises the caller's factory (the caller is the site).
_SKIPPED: Final = frozenset({"reference/ints.py"})


def census(root: Path | None = None) -> tuple[RaiseSite, ...]:
    """Every raise site of the ``reference`` package under ``root`` (default: the installed one), sorted by
    path then line."""
    base = reference_root() if root is None else root
    all_factories = _all_factories(base)
    sites: list[RaiseSite] = []
    for path in _python_files(base):
        relative = _relative(base, path)
        source = path.read_text(encoding="utf-8")
        tree = _parse(path)
        visible = _imported_factories(tree, relative, all_factories)
        found = scan_source(relative, source, visible, tree)
        if relative in _SKIPPED:
            found = [site for site in found if site.error_class != GENERIC_CLASS and "error()" not in site.source]
        sites.extend(found)
    return tuple(sorted(sites, key=lambda site: (site.path, site.line, site.key)))


def passage_census(root: Path | None = None) -> tuple[Passage, ...]:
    """Every passage of the ``reference`` package under ``root``, sorted by path then line."""
    base = reference_root() if root is None else root
    passages: list[Passage] = []
    for path in _python_files(base):
        passages.extend(scan_passages(_relative(base, path), path.read_text(encoding="utf-8"), _parse(path)))
    return tuple(sorted(passages, key=lambda passage: (passage.path, passage.lines)))


@dataclass(frozen=True)
class SiteIndex:
    """Sites and passages by file and line, to find those a traceback frame stands on."""

    sites: tuple[RaiseSite, ...]
    passages: tuple[Passage, ...] = ()

    def __post_init__(self) -> None:
        by_line: dict[tuple[str, int], list[RaiseSite]] = {}
        for site in self.sites:
            for line in range(site.lines[0], site.lines[1] + 1):
                by_line.setdefault((site.path, line), []).append(site)
        passages: dict[tuple[str, int], list[Passage]] = {}
        for passage in self.passages:
            for line in range(passage.lines[0], passage.lines[1] + 1):
                passages.setdefault((passage.path, line), []).append(passage)
        object.__setattr__(self, "_by_line", by_line)
        object.__setattr__(self, "_passages", passages)

    def at(self, path: str, line: int) -> RaiseSite | None:
        """The site a frame at ``path:line`` stands on (the innermost of nested candidates)."""
        found: list[RaiseSite] = self._by_line.get((path, line), [])  # type: ignore[attr-defined]
        if not found:
            return None
        exact = [site for site in found if site.lines[0] == line]
        pool = exact or found
        return min(pool, key=lambda site: (site.lines[1] - site.lines[0], site.line))

    def by_key(self) -> dict[str, RaiseSite]:
        return {site.key: site for site in self.sites}

    def in_traceback(self, frames: Iterable[tuple[str, int]], root: Path | None = None) -> RaiseSite | None:
        """The innermost frame of ``frames`` (outermost first, absolute file names) that stands on a site."""
        chosen = None
        for relative, line in _relative_frames(frames, root):
            site = self.at(relative, line)
            if site is not None:
                chosen = site
        return chosen

    def passed(self, frames: Iterable[tuple[str, int]], root: Path | None = None) -> tuple[Passage, ...]:
        """The passages some frame of ``frames`` stands on, outermost first."""
        table: dict[tuple[str, int], list[Passage]] = self._passages  # type: ignore[attr-defined]
        return tuple(passage for frame in _relative_frames(frames, root) for passage in table.get(frame, ()))


def _relative_frames(frames: Iterable[tuple[str, int]], root: Path | None) -> Iterator[tuple[str, int]]:
    """The frames inside the scanned checkout, with repository-relative paths."""
    base = (reference_root() if root is None else root).parent
    for filename, line in frames:
        relative = _relative_path(filename, base)
        if relative is not None:
            yield relative, line


@cache
def _relative_path(filename: str, base: Path) -> str | None:
    """``filename`` relative to the resolved ``base``, or None outside it (a few files, met again and again)."""
    try:
        return Path(filename).resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return None


def frames_of(exc: BaseException) -> Iterator[tuple[str, int]]:
    """``(file, line)`` of each traceback entry of ``exc``, outermost first."""
    tb = exc.__traceback__
    while tb is not None:
        yield tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next


def sites_by_rule(sites: Sequence[RaiseSite]) -> dict[str, list[RaiseSite]]:
    out: dict[str, list[RaiseSite]] = {}
    for site in sites:
        for rule in site.rules:
            out.setdefault(rule, []).append(site)
    return out


__all__ += ["frames_of", "passage_census", "scan_passages", "sites_by_rule"]
