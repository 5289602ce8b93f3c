"""ARX projects (.deid) built for the tests in ARX's layout (its WorkerSave, vocabulary
2.0): project.xml, data/input.csv, input/config.xml, input/definition.xml,
input/hierarchies/<attribute>.csv, and Java-serialized .dat entries that are never to
be read (here bytes that are no valid serialization at all)."""
from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

#: a Java serialization stream header followed by junk: reading it would fail loudly
NOT_TO_BE_READ = b"\xac\xed\x00\x05" + b"\xff" * 64


@dataclass
class Attribute:
    name: str
    type: str = "INSENSITIVE_ATTRIBUTE"
    datatype: str = "String"
    format: str | None = None
    hierarchy: str | None = None  # the CSV text
    min: str = "All"
    max: str = "All"
    microaggregation: str | None = None


@dataclass
class ArxProject:
    data: str  # the CSV text of data/input.csv
    attributes: list[Attribute]
    criteria: list[str]
    separator: str = ";"
    suppression_limit: float = 0.0
    practical_monotonicity: bool = False
    metric: str = "Loss (0.5/0.5/0.5)"
    weights: dict[str, float] = field(default_factory=dict)
    suppressed_types: tuple[str, ...] = ("QUASI_IDENTIFYING_ATTRIBUTE",)
    suppression_string: str | None = None  # older ARX wrote it in config.xml
    subset: str | None = None  # data/input_subset.csv (older ARX)
    extra_xml_entries: dict[str, bytes] = field(default_factory=dict)


def _el(tag: str, value) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"\t<{tag}>{escape(str(value))}</{tag}>\n"


def write_deid(path: Path, p: ArxProject) -> Path:
    project = ("<project>\n" + _el("name", "Test project") + _el("separator", p.separator)
               + _el("escape", '"') + _el("quote", '"') + _el("linebreak", "UNIX")
               + _el("description", "") + _el("locale", "EN") + _el("historySize", 200)
               + "</project>\n")
    definition = "<definition>\n"
    for a in p.attributes:
        definition += "\t<assigment>\n" + _el("name", a.name) + _el("type", a.type) \
            + _el("datatype", a.datatype)
        if a.format:
            definition += _el("format", a.format)
        if a.hierarchy is not None:
            definition += _el("ref", f"hierarchies/{a.name}.csv") + _el("min", a.min) \
                + _el("max", a.max)
        if a.microaggregation:
            definition += _el("microaggregationFunction", a.microaggregation) \
                + _el("microaggregationIgnoreMissingData", True)
        definition += "\t</assigment>\n"
    definition += "</definition>\n"
    config = ("<config>\n" + _el("suppressTuplesInNonAnonymousOutput", True)
              + "\t<suppressedAttributeTypes>\n"
              + "".join("\t" + _el("type", t) for t in p.suppressed_types)
              + "\t</suppressedAttributeTypes>\n"
              + _el("practicalMonotonicity", p.practical_monotonicity)
              + _el("relativeMaxOutliers", p.suppression_limit) + _el("metric", p.metric)
              + "\t<attributeWeights>\n"
              + "".join(f"\t\t<attributeWeight>\n\t{_el('attribute', n)}\t{_el('weight', w)}"
                        f"\t\t</attributeWeight>\n" for n, w in p.weights.items())
              + "\t</attributeWeights>\n\t<criteria>\n"
              + "".join("\t" + _el("criterion", c) for c in p.criteria)
              + "\t</criteria>\n")
    if p.suppression_string is not None:
        config += _el("suppressionString", p.suppression_string)
    config += "</config>\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("metadata.xml", "<metadata>\n" + _el("version", "3.9.1")
                   + _el("vocabulary", "2.0") + "</metadata>\n")
        z.writestr("project.dat", NOT_TO_BE_READ)
        z.writestr("project.xml", p.extra_xml_entries.get("project.xml", project))
        z.writestr("data/input.csv", p.data)
        if p.subset is not None:
            z.writestr("data/input_subset.csv", p.subset)
        z.writestr("input/config.dat", NOT_TO_BE_READ)
        z.writestr("input/config.xml", config)
        z.writestr("input/definition.xml", definition)
        for a in p.attributes:
            if a.hierarchy is not None:
                z.writestr(f"input/hierarchies/{a.name}.csv", a.hierarchy)
        for name, raw in p.extra_xml_entries.items():
            if name != "project.xml":
                z.writestr(name, raw)
    return path
