"""The raise-site census (conformance/reach/sites.py) and the rule annotations the sites carry.

Every contract-error raise site of ``reference/`` names, in a ``# rule:`` comment, the catalogue rules it
implements; every named id exists; every passage (``# rule when``) names rules of its site rule's kind; and
every rejection rule whose ``reference`` names a function of ``reference/`` is raised somewhere: at a site
or passage annotated with it, at a site inside one of its referenced functions, or the rule says why not
(``internal``, ``needs`` or ``gap``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from conformance.reach.sites import (
    Passage,
    RaiseSite,
    census,
    passage_census,
    scan_passages,
    scan_source,
    sites_by_rule,
)
from conformance.rules import catalogue

ROOT = Path(__file__).resolve().parents[1]


@cache
def _sites() -> tuple[RaiseSite, ...]:
    return census()


@cache
def _passages() -> tuple[Passage, ...]:
    return passage_census()


def test_every_passage_names_existing_rules_of_its_site_rules_kind() -> None:
    rules = catalogue().by_id
    named = sites_by_rule(_sites())
    wrong = []
    for passage in _passages():
        when = rules.get(passage.when)
        if when is None or passage.when not in named:
            wrong.append(f"{passage.location}: `when {passage.when}` is no rule a site implements")
            continue
        for rule in passage.rules:
            if rule not in rules or rules[rule].kind != when.kind:
                wrong.append(f"{passage.location}: {rule} is no rule of kind {when.kind}")
    assert _passages() and not wrong, wrong[:20]


def test_a_passage_is_read_on_the_statement_holding_it() -> None:
    source = (
        "def f(raw):\n"
        "    if raw:\n"
        "        decode(\n"
        "            raw,\n"
        "            type_name='A',  # rule when 01.3.6/decode_unknown_field: 02.1/a, 02.1/b\n"
        "        )\n"
        "    with g():  # rule when 01.5/x: 02.1/c\n"
        "        h()\n"
    )
    first, second = scan_passages("reference/x.py", source)
    assert (first.lines, first.qualname, first.when, first.rules) == (
        (3, 6),
        "f",
        "01.3.6/decode_unknown_field",
        ("02.1/a", "02.1/b"),
    )
    assert (second.lines, second.when, second.rules) == ((7, 7), "01.5/x", ("02.1/c",))
    assert scan_source("reference/x.py", source) == []


@cache
def _functions(path: str) -> frozenset[str]:
    """Qualified names of the functions and methods defined in ``path`` (classes are not functions)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(prefix + child.name)
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")

    walk(tree, "")
    return frozenset(names)


def _raising_functions(sites: tuple[RaiseSite, ...]) -> Mapping[str, frozenset[str]]:
    """path -> every qualname holding a site, with its enclosing functions."""
    out: dict[str, set[str]] = {}
    for site in sites:
        names = out.setdefault(site.path, set())
        qualname = site.qualname
        while qualname:
            names.add(qualname)
            qualname = qualname.rpartition(".")[0]
    return {path: frozenset(names) for path, names in out.items()}


def test_the_census_finds_sites_in_every_layer() -> None:
    layers = {site.path.split("/")[1] for site in _sites() if "/" in site.path.removeprefix("reference/")}
    assert {"catalog", "model", "plan", "policy", "resolution", "runtime", "weights"} <= layers


def test_every_site_names_at_least_one_rule() -> None:
    bare = [site.location for site in _sites() if not site.rules]
    assert not bare, f"{len(bare)} raise sites carry no `# rule:` annotation, e.g. {bare[:10]}"


def test_every_annotated_rule_exists() -> None:
    known = catalogue().by_id
    unknown = sorted({(site.location, rule) for site in _sites() for rule in site.rules if rule not in known})
    assert not unknown, unknown[:20]


def test_every_raising_rule_with_a_function_reference_has_a_site_or_a_reason() -> None:
    sites = _sites()
    annotated = {*sites_by_rule(sites), *(rule for passage in _passages() for rule in passage.rules)}
    raising = _raising_functions(sites)
    missing = []
    for rule in catalogue().rules:
        if rule.kind is None or rule.id in annotated or rule.internal or rule.needs or rule.gap:
            continue
        functions = []
        for location in rule.reference:
            path, _, name = location.partition(":")
            if path.startswith("reference/") and name and name in _functions(path):
                functions.append((path, name))
        if functions and not any(name in raising.get(path, ()) for path, name in functions):
            missing.append(f"{rule.id}: {', '.join(f'{p}:{n}' for p, n in functions)}")
    assert not missing, f"{len(missing)} rules are raised nowhere their reference says: {missing[:10]}"


def test_an_annotation_is_read_from_any_line_of_the_span() -> None:
    source = (
        "from reference.errors import InvalidExecutionPlan\n"
        "def f(x):\n"
        "    if x:\n"
        "        raise InvalidExecutionPlan(\n"
        "            reason='a'  # rule: 05.1/a, 05.1/b\n"
        "        )\n"
        "    raise InvalidExecutionPlan(reason='b')\n"
    )
    first, second = scan_source("reference/x.py", source)
    assert first.rules == ("05.1/a", "05.1/b")
    assert first.lines == (4, 6)
    assert second.rules == ()


def test_an_annotation_outside_the_span_is_not_read() -> None:
    source = (
        "from reference.errors import InvalidExecutionPlan\n"
        "def f():\n"
        "    # rule: 05.1/a\n"
        "    raise InvalidExecutionPlan(reason='b')\n"
    )
    (site,) = scan_source("reference/x.py", source)
    assert site.rules == ()
