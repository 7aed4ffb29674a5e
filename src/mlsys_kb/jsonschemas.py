"""JSON Schemas for editors, generated from schema.py and committed under ``schemas/``.

Each catalog's first line points at its schema, so editors with the YAML language
server complete and check fields as a contributor types:

    # yaml-language-server: $schema=../schemas/papers.schema.json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .schema import (
    COMPARE_KIND_HELP,
    COMPARE_KINDS,
    COMPARE_TEXT_MAX,
    KINDS,
    PROPERTY_PATTERN,
    Field,
    Kind,
    Type,
)

SCHEMA_DIR = "schemas"
_ID = r"^[a-z0-9]+(-[a-z0-9]+)*$"


_PROPERTY_NAME = {"pattern": f"^{PROPERTY_PATTERN}$"}
_LINE = {"type": "string", "minLength": 1, "pattern": r"^[^\n]*\S[^\n]*$"}


def _compared_values() -> dict[str, Any]:
    """A paper's `compare`: which names and values are allowed depends on its topics, which
    `mlsys-kb validate` checks; the schema knows the shape of each value."""
    return {
        "type": "object",
        "propertyNames": _PROPERTY_NAME,
        "additionalProperties": {
            "anyOf": [
                {**_LINE, "maxLength": COMPARE_TEXT_MAX, "description": "One value or a text"},
                {"type": "boolean", "description": "A yes/no property"},
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": _ID},
                    "minItems": 1,
                    "uniqueItems": True,
                    "description": "A set of values",
                },
            ]
        },
    }


def _comparison() -> dict[str, Any]:
    kinds = "; ".join(f"{kind}: {text}" for kind, text in COMPARE_KIND_HELP.items())
    declaration = {
        "type": "object",
        "properties": {
            "label": {**_LINE, "description": "Column heading."},
            "kind": {"enum": list(COMPARE_KINDS), "description": f"What a cell holds ({kinds})."},
            "description": {**_LINE, "description": "What the column means, under the table."},
            "values": {
                "type": "object",
                "description": "The vocabulary of a one or set property: value id -> label.",
                "propertyNames": {"pattern": _ID},
                "additionalProperties": _LINE,
                "minProperties": 1,
            },
        },
        "required": ["label", "kind"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "topics": {
                "type": "array",
                "items": {"type": "string", "pattern": _ID},
                "minItems": 1,
                "uniqueItems": True,
                "description": "The topic and subtopics whose papers are rows "
                "(default: this topic and all its subtopics).",
            },
            "properties": {
                "type": "object",
                "description": "The columns: property name -> declaration, in column order.",
                "propertyNames": _PROPERTY_NAME,
                "additionalProperties": declaration,
                "minProperties": 1,
            },
        },
        "required": ["properties"],
        "additionalProperties": False,
    }


def _property(spec: Field) -> dict[str, Any]:
    prop: dict[str, Any] = {"description": spec.description}
    if spec.type is Type.COMPARE:
        prop.update(_compared_values())
    elif spec.type is Type.COMPARISON:
        prop.update(_comparison())
    elif spec.type is Type.INT:
        prop["type"] = "integer"
        if spec.name == "year":
            prop["minimum"] = 1950
    elif spec.type is Type.DATE:
        prop.update(type="string", format="date", pattern=r"^\d{4}-\d{2}-\d{2}$")
    elif spec.type is Type.ID:
        prop.update(type="string", pattern=_ID)
    elif spec.type is Type.URL:
        prop.update(type="string", pattern=r"^(https?://[^\s]+|[^\s:/][^\s:]*(/[^\s]*)?)$")
    elif spec.type in (Type.STRS, Type.IDS):
        item: dict[str, Any] = {"type": "string", "minLength": 1}
        if spec.type is Type.IDS:
            item["pattern"] = _ID
        prop.update(type="array", items=item, uniqueItems=True)
    else:
        prop.update(type="string", minLength=1)
    if spec.choices:
        prop["enum"] = list(spec.choices)
    if spec.pattern:
        prop["pattern"] = f"^(?:{spec.pattern})$"
    return prop


def schema_for(kind: Kind) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "object",
        "properties": {spec.name: _property(spec) for spec in kind.fields},
        "required": [spec.name for spec in kind.fields if spec.required],
        "additionalProperties": False,
    }
    if kind.one_of:
        entry["anyOf"] = [{"required": [name]} for name in kind.one_of]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{kind.name}.schema.json",
        "title": f"MLSys knowledge base: {kind.name}",
        "description": kind.description,
        "type": "array",
        "items": entry,
    }


def schema_texts() -> dict[str, str]:
    return {
        f"{SCHEMA_DIR}/{name}.schema.json": json.dumps(schema_for(kind), indent=2) + "\n"
        for name, kind in KINDS.items()
    }


def write(root: Path) -> list[str]:
    """Write the schemas that differ from the declarations; return their paths."""
    changed = []
    for path, text in schema_texts().items():
        file = root / path
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed
