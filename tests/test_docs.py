"""The documentation stays true to the code: the parameter reference is generated from
the declarations and names every key the job-file reader accepts; the README stays a
short front door whose links lead somewhere. (`mkdocs build --strict`, run by
packaging/run-tests.sh, checks the site's own links.)"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference():
    spec = importlib.util.spec_from_file_location("gen_reference",
                                                  ROOT / "docs" / "gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def section(page: str, heading: str) -> str:
    """The text under one heading, up to the next heading."""
    rest = page[page.index(heading) + len(heading):]
    end = re.search(r"^#+ ", rest, re.M)
    return rest[:end.start()] if end else rest


def keys_of(text: str) -> set[str]:
    """The keys listed in the first column of a section's tables."""
    return set(re.findall(r"^\| `([^`]+)` \|", text, re.M))


def test_every_privacy_model_and_its_parameters_are_listed(reference):
    from engine.privacy import MODELS
    page = reference.page()
    for name, cls in MODELS.items():
        text = section(page, f"### `{name}`")
        assert keys_of(text) == {p.name for p in cls.params}, name
        for p in cls.params:
            row = next(r for r in text.splitlines() if r.startswith(f"| `{p.name}` |"))
            assert ("**required**" in row) == p.required, row


def test_every_metric_and_its_parameters_are_listed(reference):
    from engine.metrics import METRICS
    page = reference.page()
    for name, cls in METRICS.items():
        assert keys_of(section(page, f"### `{name}`")) == {p.name for p in cls.params}, name


def test_every_job_table_lists_exactly_its_declared_keys(reference):
    from engine.config import AttributeConfig, DataConfig, EngineConfig, TransformationConfig
    from engine.privacy.population import POPULATION_PARAMS
    from engine.pseudonyms import PARAMS
    from engine.schema import dataclass_params
    from engine.search.genetic_settings import GENETIC_KEYS
    from engine.subset import SUBSET_PARAMS
    from engine.transform.job_keys import LOCAL_RECODING_PARAMS
    page = reference.page()
    tables = {
        "## Data: `[data]`": dataclass_params(DataConfig),
        "## Attributes: `[attributes.\"name\"]`": dataclass_params(AttributeConfig),
        "## Pseudonyms": PARAMS.values(),
        "## Transformation and search: `[transformation]`":
            dataclass_params(TransformationConfig),
        "## Local recoding": LOCAL_RECODING_PARAMS,
        "## Research subset: `[subset]`": SUBSET_PARAMS,
        "## Population: `[population]`": POPULATION_PARAMS,
        "## Backend: `[engine]`": dataclass_params(EngineConfig),
    }
    for heading, params in tables.items():
        assert keys_of(section(page, heading)) == {p.name for p in params}, heading
    assert keys_of(section(page, "## Genetic searches")) == set(GENETIC_KEYS)


def test_a_declared_default_and_range_appear_as_declared(reference):
    from engine.config import TransformationConfig
    from engine.schema import dataclass_params
    limit = next(p for p in dataclass_params(TransformationConfig)
                 if p.name == "suppression_limit")
    row = next(r for r in reference.page().splitlines()
               if r.startswith("| `suppression_limit` |"))
    assert limit.expectation() in row and f"`{limit.default}`" in row


def test_readme_is_a_short_front_door_whose_links_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links
    missing = [link for link in links
               if "://" not in link and not (ROOT / link).exists()]
    assert not missing, missing
    # no machine loads, commit hashes or per-test timings in the front door
    assert not re.search(r"\bload (average )?(of )?\d", text), "machine loads"
    assert not re.search(r"`[0-9a-f]{7,40}`", text), "commit hashes"


def test_every_page_is_in_the_navigation():
    """A page under docs/ that mkdocs.yml's nav does not name is built but cannot be
    found from the site's menus."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    assert pages
    assert [p for p in pages if f" {p}" not in nav] == []
