"""JSON Schema (2020-12) documents for every wire form, loaded through one registry.

Each document's ``$id`` is ``urn:vnext-conformance:schema:<relative path>`` so
documents ``$ref`` each other by that URN (for example
``urn:vnext-conformance:schema:common.json#/$defs/identity``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

__all__ = ["SCHEMA_URN_PREFIX", "load", "names", "registry", "validate", "validator"]

SCHEMA_URN_PREFIX = "urn:vnext-conformance:schema:"


def _walk() -> list[tuple[str, Any]]:
    root = resources.files(__name__)
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", root)]
    while stack:
        prefix, node = stack.pop()
        for child in node.iterdir():
            name = f"{prefix}{child.name}"
            if child.is_dir():
                stack.append((name + "/", child))
            elif child.name.endswith(".json"):
                found.append((name, child))
    return sorted(found, key=lambda item: item[0])


@cache
def _documents() -> dict[str, dict[str, Any]]:
    docs: dict[str, dict[str, Any]] = {}
    for name, path in _walk():
        doc = json.loads(path.read_text(encoding="utf-8"))
        expected = SCHEMA_URN_PREFIX + name
        if doc.get("$id") != expected:
            raise ValueError(f"schema {name} must declare $id {expected!r}")
        docs[name] = doc
    return docs


def names() -> list[str]:
    """Relative paths of every schema document, sorted."""
    return sorted(_documents())


def load(name: str) -> dict[str, Any]:
    """The schema document at ``name`` (for example ``error.json``)."""
    return _documents()[name]


@cache
def registry() -> Registry:
    """One registry holding every schema document, keyed by its ``$id``."""
    resources_ = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012)) for doc in _documents().values()
    ]
    return Registry().with_resources(resources_)


@cache
def validator(name: str) -> Draft202012Validator:
    """A validator for the document ``name`` (or ``name#/pointer`` into it), resolving ``$ref`` via ``registry()``."""
    document, _, pointer = name.partition("#")
    schema = load(document)
    Draft202012Validator.check_schema(schema)
    if pointer:
        schema = {"$ref": f"{SCHEMA_URN_PREFIX}{document}#{pointer}"}
    return Draft202012Validator(schema, registry=registry())


def validate(name: str, instance: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``instance`` does not match ``name``."""
    validator(name).validate(instance)
