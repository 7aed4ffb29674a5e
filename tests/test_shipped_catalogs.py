"""The catalogs in the repository are valid, match their JSON Schemas and cover the seeds."""

from __future__ import annotations

import json

import jsonschema
import yaml

from mlsys_kb import jsonschemas, validate
from mlsys_kb.schema import KINDS

from .conftest import ROOT


def test_shipped_catalogs_have_no_problems() -> None:
    catalog, problems = validate.load(ROOT)
    assert [str(p) for p in problems] == []
    assert len(catalog["decks"]) == 9
    assert len(catalog["issues"]) == 6


def test_committed_json_schemas_match_the_declarations() -> None:
    for path, text in jsonschemas.schema_texts().items():
        assert (ROOT / path).read_text(encoding="utf-8") == text, f"run `mlsys-kb schemas`: {path}"


def test_each_catalog_names_its_schema_and_satisfies_it() -> None:
    for kind in KINDS:
        text = (ROOT / "data" / f"{kind}.yaml").read_text(encoding="utf-8")
        assert text.startswith(f"# yaml-language-server: $schema=../schemas/{kind}.schema.json\n")
        schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text())
        entries = yaml.load(text, Loader=yaml.BaseLoader)  # every scalar as text
        for entry in entries:
            for name in ("year", "number"):
                if name in entry:
                    entry[name] = int(entry[name])
            for name, value in entry.get("compare", {}).items():
                if value in ("true", "false"):  # a yes/no comparison property
                    entry["compare"][name] = value == "true"
        jsonschema.validate(entries, schema)
