"""The release report as a PDF (fpdf2), from `engine.release_docs.report.build_report`'s
dict and the data of the distribution charts (`engine.release_docs.report.distributions`,
drawn as vector graphics by `engine.release_docs.charts`); `write_report` writes the
PDF and the same content as JSON beside it."""
from __future__ import annotations

import json
from pathlib import Path

from engine.io_utils import atomic_write_bytes, atomic_write_text

GREEN, RED, GREY = (27, 122, 62), (178, 34, 34), (90, 90, 90)
#: (family, style, file) of the report's fonts, in `font_folder`
FONTS = (("DejaVu", "", "DejaVuSans.ttf"), ("DejaVu", "B", "DejaVuSans-Bold.ttf"),
         ("DejaVuMono", "", "DejaVuSansMono.ttf"))


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.2f} %"


def _num(x, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, list):
        return "[" + ", ".join(_num(v, digits) for v in x[:4]) + (", …]" if len(x) > 4 else "]")
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        shown = f"{x:.{digits}g}"
        return shown[1:] if shown.startswith("-") and float(shown) == 0 else shown  # not -0
    return str(x)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, dict):
        return "{" + _params(v, skip=()) + "}"
    return str(v)


def _params(d: dict, skip=("model", "name")) -> str:
    return ", ".join(f"{k} = {_value(v)}" for k, v in d.items() if k not in skip) or "–"


class _Doc:
    """A thin layer over FPDF: headings, key-value rows and tables in one style."""

    def __init__(self, title: str):
        from fpdf import FPDF
        fonts = font_folder()
        self.pdf = pdf = FPDF(format="A4", unit="mm")
        pdf.set_margins(18, 16, 18)
        pdf.set_auto_page_break(True, margin=16)
        for family, style, file in FONTS:
            pdf.add_font(family, style, str(fonts / file))
        pdf.set_title(title)
        pdf.set_creator("Anonymist")
        doc = self

        def footer():
            pdf.set_y(-12)
            doc.font(7, color=GREY)
            pdf.cell(0, 5, f"{title} · page {pdf.page_no()}/{{nb}}", align="C")
        pdf.footer = footer
        pdf.add_page()

    @property
    def width(self) -> float:
        return self.pdf.w - self.pdf.l_margin - self.pdf.r_margin

    def font(self, size: float, bold: bool = False, color=(0, 0, 0), mono: bool = False):
        self.pdf.set_font("DejaVuMono" if mono else "DejaVu", "B" if bold and not mono else "",
                          size)
        self.pdf.set_text_color(*color)

    def heading(self, text: str, size: float = 13):
        if self.pdf.get_y() > self.pdf.h - 50:
            self.pdf.add_page()
        self.pdf.ln(3)
        self.font(size, bold=True, color=(20, 45, 90))
        self.pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_draw_color(20, 45, 90)
        self.pdf.line(self.pdf.l_margin, self.pdf.get_y(), self.pdf.l_margin + self.width,
                      self.pdf.get_y())
        self.pdf.ln(2)

    def text(self, text: str, size: float = 9, color=(0, 0, 0), bold: bool = False):
        self.font(size, bold=bold, color=color)
        self.pdf.multi_cell(0, 4.6, text, new_x="LMARGIN", new_y="NEXT", align="L")

    def pairs(self, rows: list[tuple[str, str]], key_width: float = 52, mono_keys=()):
        """Key / value lines side by side. A pair that does not fit the page starts the
        next one whole (the key and its value stay together); the y position is taken
        on the page the pair is written on, never carried over a page break."""
        pdf = self.pdf
        for key, value in rows:
            mono = key in mono_keys
            self.font(9, bold=True)
            key_h = pdf.multi_cell(key_width, 5, key, dry_run=True, output="HEIGHT")
            self.font(8.5 if mono else 9, mono=mono)
            value_h = pdf.multi_cell(self.width - key_width, 5, value, dry_run=True,
                                     output="HEIGHT")
            height = max(key_h, value_h, 5)
            if pdf.get_y() + height > pdf.page_break_trigger \
                    and height < pdf.page_break_trigger - pdf.t_margin:
                pdf.add_page()
            y, page = pdf.get_y(), pdf.page
            self.font(9, bold=True)
            pdf.multi_cell(key_width, 5, key, new_x="RIGHT", new_y="TOP", align="L")
            self.font(8.5 if mono else 9, mono=mono)
            pdf.multi_cell(self.width - key_width, 5, value, new_x="LMARGIN", new_y="NEXT",
                           align="L")
            if pdf.page == page:
                pdf.set_y(max(pdf.get_y(), y + height))

    def table(self, header: list[str], rows: list[list[str]], widths=None, size: float = 8):
        self.font(size)
        with self.pdf.table(col_widths=widths, text_align="LEFT", line_height=4.6,
                            headings_style=_heading_style(), padding=1) as t:
            r = t.row()
            for h in header:
                r.cell(h)
            for row in rows:
                r = t.row()
                for v in row:
                    r.cell(str(v))
        self.pdf.ln(2)

    def verdict(self, ok: bool, text: str):
        color = GREEN if ok else RED
        self.pdf.set_fill_color(*color)
        self.font(11, bold=True, color=(255, 255, 255))
        self.pdf.multi_cell(0, 6, text, fill=True, align="C", new_x="LMARGIN", new_y="NEXT",
                            padding=2)
        self.pdf.set_fill_color(255, 255, 255)
        self.pdf.ln(2)

    def chart(self, attribute: str, data: dict):
        """One distribution chart (`engine.release_docs.charts`) on the page, or on a
        new page when it does not fit."""
        from engine.release_docs.charts import chart_height, draw_distribution
        if self.pdf.get_y() + chart_height(data["input"], data["output"]) > self.pdf.h - 18:
            self.pdf.add_page()
        y = self.pdf.get_y()
        height = draw_distribution(self, self.pdf.l_margin, y, self.width, attribute,
                                   data["input"], data["output"], data.get("input_numbers"))
        self.pdf.set_y(y + height + 4)

    def output(self) -> bytes:
        return bytes(self.pdf.output())


def font_folder() -> Path:
    """The folder of the `FONTS`: in the desktop bundle its own ``fonts`` folder
    (packaging/anonymist.spec copies them, matplotlib is left out), else the DejaVu
    files matplotlib ships (found without importing matplotlib)."""
    import sys
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        return Path(bundle) / "fonts"
    from importlib.util import find_spec
    spec = find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the release report needs matplotlib's DejaVu fonts: "
                          "pip install matplotlib")
    return Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf"


def _heading_style():
    from fpdf.fonts import FontFace
    return FontFace(emphasis="BOLD", fill_color=(225, 232, 242))


def _pseudonym_note(p: dict) -> str:
    if p.get("pseudonymize") == "mask":
        return f"masked: first {p.get('keep', 0)} characters kept"
    source = (f"key file {p['key_file']}" if p.get("key_file")
              else f"key in environment variable {p['key_env']}" if p.get("key_env")
              else "key kept internal")
    return f"pseudonyms: HMAC-SHA-256, {p.get('length', 16)} hex characters, {source}"


def _identifiers(attributes: list[dict]) -> str:
    removed = [a["name"] for a in attributes if a["type"] == "identifying" and "pseudonym" not in a]
    pseudo = [f"{a['name']} ({a['pseudonym']['pseudonymize']})" for a in attributes
              if "pseudonym" in a]
    parts = []
    if removed:
        parts.append("removed: " + ", ".join(removed))
    if pseudo:
        parts.append("pseudonymized: " + ", ".join(pseudo))
    return "; ".join(parts) or "none declared identifying"


def _in_values(found: dict | None) -> str:
    """What was done about identifiers inside released columns (engine/identifiers)."""
    if not found:
        return "not scanned"
    parts = [f"{c} scrubbed (" + (", ".join(f"{n:,} {k}" for k, n in kinds.items())
                                  or "nothing found") + ")"
             for c, kinds in found.get("scrubbed", {}).items()]
    parts += [f"{c} kept as it is: {reason}" for c, reason in found.get("kept", {}).items()]
    scanned = found.get("scanned", [])
    parts.append(f"{len(scanned)} column(s) scanned, none found" if scanned else
                 "no other column released as it is")
    return "; ".join(parts)


def _limits(conf: dict) -> list[str]:
    """What the report does not cover, in plain words, for the approval board."""
    kept = [a["name"] for a in conf["attributes"] if a["type"] in ("insensitive", "sensitive")]
    lines = ["Risk and verification concern linking through the quasi-identifiers listed in "
             "section 2. Attributes not declared quasi-identifying are released as they are"
             + (f" ({', '.join(kept)})" if kept else "")
             + " and are not assessed: if they could identify a person together with "
             "outside data, declare them quasi-identifying and release again."]
    if any("pseudonym" in a for a in conf["attributes"]):
        lines.append("Pseudonyms are not anonymization: a pseudonym still singles out a "
                     "person within the release and links their records across releases "
                     "made with the same key; whoever holds the key can re-identify.")
    lines.append("The risk figures assume an attacker who knows the quasi-identifiers of the "
                 "person sought; they do not measure attribute disclosure unless a model "
                 "such as l-diversity or t-closeness is listed.")
    return lines


def _survey_risk(doc, survey: dict) -> None:
    """The survey measures (engine/sdc) of section 6, with a sampling weight."""
    b, a = survey["before"], survey["after"]
    doc.pdf.ln(2)
    doc.text(f"Survey measures with the sampling weight '{survey['weight']}' (sdcMicro's "
             f"definitions; suppressed values match any value): individual risk "
             f"(Benedetti-Franconi, approx), {b['records_at_risk_rule']} at risk.")
    rows = [["expected re-identifications", f"{b['expected_reidentifications']:.2f}",
             f"{a['expected_reidentifications']:.2f}"],
            ["global risk", f"{b['global_risk_percent']:.3f} %",
             f"{a['global_risk_percent']:.3f} %"],
            ["highest individual risk", _pct(b["highest_individual_risk"]),
             _pct(a["highest_individual_risk"])],
            ["records at risk", f"{b['records_at_risk']:,}", f"{a['records_at_risk']:,}"],
            ["records violating 2-anonymity", f"{b['k_anonymity']['violating_2']:,}",
             f"{a['k_anonymity']['violating_2']:,}"]]
    if "household_risk" in b:
        rows.append(["household expected re-identifications",
                     f"{b['household_risk']['expected_reidentifications']:.2f}",
                     f"{a['household_risk']['expected_reidentifications']:.2f}"])
    if "records_with_msu" in b:
        rows.append(["records with an MSU (SUDA2)", f"{b['records_with_msu']:,}",
                     f"{a['records_with_msu']:,}"])
    doc.table(["", "input", "released"], rows, widths=(74, 50, 50))


#: the largest PRAM matrix printed (categories), and strata printed per attribute
_PRAM_CATEGORIES = 10
_PRAM_STRATA = 3


def _sdc_methods(doc, report: dict) -> None:
    """Cell suppression and the perturbative methods of section 4 (no seed printed)."""
    cells = report.get("cell_suppression")
    if cells:
        combos = (f" for every combination of {cells['combinations']} quasi-identifiers"
                  if cells.get("combinations") else "")
        doc.pdf.ln(2)
        doc.text(f"Cell suppression (sdcMicro's local suppression): instead of whole "
                 f"records, {cells['cells_suppressed']:,} cells of "
                 f"{cells['records_with_suppressed_cells']:,} records were suppressed; a "
                 f"suppressed cell matches any value, and every record matches at least "
                 f"{cells['k']} records{combos}. The class sizes of section 4 count "
                 f"these matches; the risk figures of section 6 count a suppressed cell as "
                 f"a value of its own, which overstates the risk of those records.")
        doc.table(["quasi-identifier", "cells suppressed"],
                  [[q, f"{n:,}"] for q, n in cells["cells_suppressed_per_attribute"].items()],
                  widths=(90, 50))
    pert = report.get("perturbation")
    if not pert:
        return
    doc.pdf.ln(2)
    doc.text("Perturbative methods on insensitive attributes (seeds are not printed):")
    rows = []
    for name, a in pert["attributes"].items():
        params = {k: v for k, v in a.items() if k in (
            "pd", "alpha", "invariant", "strata", "noise_method", "noise_percent", "delta",
            "swap_percent", "together_with", "predictors") and v not in (None, [], ())}
        changed = a.get("changed_records")
        rows.append([name, a["method"], _params(params, skip=()) or "defaults",
                     "–" if changed is None else f"{changed:,}"])
    doc.table(["attribute", "method", "parameters", "records changed"], rows,
              widths=(36, 30, 84, 24))
    for name, a in pert["attributes"].items():
        for entry in a.get("transition_matrices", [])[:_PRAM_STRATA]:
            cats = entry["categories"]
            if len(cats) > _PRAM_CATEGORIES:
                doc.text(f"PRAM '{name}': {len(cats)} categories; the matrix is in the "
                         f"JSON report.")
                continue
            where = ", ".join(f"{k} = {v}" for k, v in entry.get("stratum", {}).items())
            doc.text(f"PRAM transition matrix of '{name}'{' (' + where + ')' if where else ''}:"
                     f" row = original value, column = released value.", size=8)
            width = max(12.0, min(24.0, 150.0 / len(cats)))
            doc.table([""] + cats, [[c] + [f"{x:.3f}" for x in row]
                                    for c, row in zip(cats, entry["matrix"])],
                      widths=(30,) + (width,) * len(cats), size=7)
        if len(a.get("transition_matrices", [])) > _PRAM_STRATA:
            doc.text(f"(further strata of '{name}' in the JSON report)", size=8)
    util = pert.get("utility") or {}
    if util:
        doc.text(f"Utility of the numeric perturbed attributes: IL1s {_num(util['il1s'])} "
                 f"(sdcMicro's IL1: {_num(util['il1s_sdcmicro'])}), eigenvalue measure "
                 f"{'–' if util.get('eigen') is None else _num(util['eigen'])}.")
        doc.table(["attribute", "mean before", "mean after", "variance before",
                   "variance after", "IL1s"],
                  [[n, _num(u["mean_before"]), _num(u["mean_after"]),
                    _num(u["variance_before"]), _num(u["variance_after"]), _num(u["il1s"])]
                   for n, u in util["attributes"].items()],
                  widths=(34, 28, 28, 30, 30, 24))
        for c in util.get("correlations", []):
            doc.text(f"Correlation {c['attributes'][0]} / {c['attributes'][1]}: "
                     f"{c['before']:.4f} before, {c['after']:.4f} after.", size=8)


def render_pdf(report: dict, charts: dict[str, dict]) -> bytes:
    """The PDF of ``report`` (``build_report``'s dict) with a chart per quasi-identifier
    of ``charts`` (`engine.release_docs.report.distributions`'s data)."""
    doc = _Doc("Anonymist release report")
    inp, out, tr = report["input"], report["output"], report["transformation"]
    ver, conf, risk = report["verification"], report["configuration"], report["risk"]

    doc.font(18, bold=True, color=(20, 45, 90))
    doc.pdf.cell(0, 10, "Release report", new_x="LMARGIN", new_y="NEXT")
    doc.text(f"{report['software']} · created {report['created']}", color=GREY)
    if report.get("scope") == "public":
        doc.text("Public report: it names no original value. The distributions of the "
                 "input, the research subset's definition and the paths are in the full "
                 "report, kept internal.", color=GREY)
    doc.pdf.ln(3)
    doc.verdict(ver["ok"], "Independent verification PASSED\nthe released table meets every "
                "privacy model and the suppression limit" if ver["ok"] else
                "Independent verification FAILED\nsee the violations in section 7")
    after, before = risk["after"], risk["before"]
    doc.pairs([
        ("Input", f"{inp['file'] or '(table in memory)'} — {inp['rows']:,} records, "
                  f"{inp['columns']} columns"),
        ("Released", f"{out['rows']:,} records, {out['columns']} columns, "
                     f"{out['suppressed_records']:,} suppressed, "
                     + _persons_affected(out.get("person"))
                     + f"{out['equivalence_classes']:,} equivalence classes"),
        ("Identifiers", _identifiers(conf["attributes"])),
        ("In the values", _in_values(out.get("identifiers"))),
        ("Privacy models", "; ".join(f"{m.get('model')} ({_params(m)})"
                                     for m in conf["privacy_models"]) or "–"),
        ("Transformation", ", ".join(f"{q} {v}" for q, v in tr["levels"].items())),
        ("Optimality", ("proven optimum — " if tr["proven_optimal"] else "not proven optimal — ")
         + tr["how"]),
        ("Highest risk", f"prosecutor {_pct(before['prosecutor']['highest_risk'])} before, "
                         f"{_pct(after['prosecutor']['highest_risk'])} after"),
        ("Records at risk", f"{_pct(before['prosecutor']['records_at_risk'])} before, "
                            f"{_pct(after['prosecutor']['records_at_risk'])} after "
                            f"(risk above {_pct(risk['threshold'])})"),
    ])

    doc.heading("1  Input")
    doc.pairs([("File", inp["file"] or "(table given in memory)"),
               ("Records", f"{inp['rows']:,}"), ("Columns", ", ".join(inp["column_names"])),
               (f"SHA-256 ({inp['sha256_of']})", inp["sha256"])],
              mono_keys=(f"SHA-256 ({inp['sha256_of']})",))

    doc.heading("2  Configuration")
    rows = []
    for a in conf["attributes"]:
        extra = []
        if "levels" in a:
            extra.append(f"levels {a['levels'][0]}–{a['levels'][1]}")
        if "weight" in a:
            extra.append(f"weight {a['weight']}")
        if "pseudonym" in a:
            extra.append(_pseudonym_note(a["pseudonym"]))
        hierarchy = a.get("hierarchy", "–")
        if a.get("hierarchy_levels"):
            hierarchy += ": " + " → ".join(a["hierarchy_levels"])
        rows.append([a["name"], a["type"], hierarchy,
                     str(a.get("height", "–")), "; ".join(extra)])
    doc.table(["attribute", "type", "hierarchy", "height", "notes"], rows,
              widths=(34, 30, 50, 14, 46))
    doc.table(["privacy model", "parameters"],
              [[m.get("model", "?"), _params(m)] for m in conf["privacy_models"]],
              widths=(50, 124))
    metric = conf["metric"]
    doc.pairs([("Suppression limit", f"{100 * conf['suppression_limit']:g} % of records"),
               ("Metric", f"{metric['name']} ({_params(metric)})"),
               ("Search", _params(conf["search"], skip=()) or "defaults"),
               ("Research subset", _params(conf["subset"], skip=()) if conf.get("subset") else "none"),
               ("Population", _params(conf["population"], skip=()) if conf.get("population") else "none")])

    doc.heading("3  Released transformation")
    doc.table(["quasi-identifier", "level", "of height"],
              [[q, str(v), str(next((a.get("height", "–") for a in conf["attributes"]
                                     if a["name"] == q), "–"))]
               for q, v in tr["levels"].items()], widths=(80, 40, 54))
    doc.pairs([("Information loss", f"{_num(tr['information_loss'])} "
                                    f"({tr['information_loss_percent']:.2f} % of the range)"),
               ("Proven optimum", "yes" if tr["proven_optimal"] else "no"),
               ("How it was found", tr["how"]),
               ("Search", f"{tr['algorithm']}: {tr['transformations_checked']:,} of "
                          f"{tr['lattice_size']:,} transformations checked in "
                          f"{tr['elapsed_s']:.2f} s")])

    doc.heading("4  Output")
    doc.pairs([("Target", out["target"] or "(not written)"),
               ("Records", f"{out['rows']:,} ({out['suppressed_records']:,} suppressed: every "
                           f"quasi-identifier replaced by the suppression string)"),
               *([("Persons", f"counted by '{out['person']['column']}': "
                              f"{out['person']['persons']:,}, of whom "
                              f"{out['person']['suppressed_persons']:,} with a suppressed "
                              f"record; every class counts persons, not records")]
                 if out.get("person") else []),
               ("Columns", ", ".join(out["column_names"])),
               ("Equivalence classes", f"{out['equivalence_classes']:,} (smallest "
                                       f"{out['min_class_size']:,}, average "
                                       f"{out['average_class_size']:.1f} records)"),
               (f"SHA-256 ({out['sha256_of']})", out["sha256"])],
              mono_keys=(f"SHA-256 ({out['sha256_of']})",))

    if report.get("cell_suppression") or report.get("perturbation"):
        _sdc_methods(doc, report)  # sdcMicro's methods (docs/guide/survey-methods.md)

    doc.heading("5  Quality")
    qual = report["quality"]
    doc.text(f"The job's metric ({qual['metric']['name']}): {_num(qual['information_loss'])}, "
             f"{qual['information_loss_percent']:.2f} % between the lowest and the highest "
             f"possible loss. Per attribute, losses in [0, 1] (0 = all information kept; "
             f"suppressed records count as fully lost):")
    doc.pdf.ln(1)
    doc.table(["attribute", "generalization", "granularity", "entropy loss",
               "squared error", "missing"],
              [[a["attribute"], _num(a["generalization_intensity"], 3),
                _num(a["granularity"], 3), _num(a["non_uniform_entropy"], 3),
                _num(a["squared_error"], 3), _num(a["missing"], 3)]
               for a in qual["attributes"]], widths=(44, 28, 26, 26, 26, 24))

    doc.heading("6  Re-identification risk")
    doc.text(f"Risk of a record = 1 / size of its equivalence class on the quasi-identifiers "
             f"(suppressed records excluded). Records at risk: risk above "
             f"{_pct(risk['threshold'])} ({risk['threshold_source']}).")
    doc.pdf.ln(1)
    doc.table(["", "input", "released"], [
        ["prosecutor: records at risk", _pct(before["prosecutor"]["records_at_risk"]),
         _pct(after["prosecutor"]["records_at_risk"])],
        ["prosecutor: highest risk", _pct(before["prosecutor"]["highest_risk"]),
         _pct(after["prosecutor"]["highest_risk"])],
        ["prosecutor: success rate", _pct(before["prosecutor"]["success_rate"]),
         _pct(after["prosecutor"]["success_rate"])],
        ["journalist: records at risk", _pct(before["journalist"]["records_at_risk"]),
         _pct(after["journalist"]["records_at_risk"])],
        ["journalist: highest risk", _pct(before["journalist"]["highest_risk"]),
         _pct(after["journalist"]["highest_risk"])],
        ["journalist: success rate", _pct(before["journalist"]["success_rate"]),
         _pct(after["journalist"]["success_rate"])],
        ["marketer: success rate", _pct(before["marketer"]["success_rate"]),
         _pct(after["marketer"]["success_rate"])],
        ["sample uniques", _pct(before["sample_uniques"]), _pct(after["sample_uniques"])],
        ["equivalence classes", f"{before['classes']:,}", f"{after['classes']:,}"],
    ], widths=(74, 50, 50))

    if report.get("survey_risk"):
        _survey_risk(doc, report["survey_risk"])

    doc.heading("7  Independent verification")
    doc.text(f"The table checked, {ver['of']}, was re-grouped with plain pandas, sharing no "
             f"code with the search: each quasi-identifier's level was inferred from its labels, "
             f"equivalence classes recounted and every privacy model and the suppression "
             f"limit checked.")
    doc.pdf.ln(1)
    doc.pairs([("Verdict", "PASSED" if ver["ok"] else "FAILED"),
               ("Records", f"{ver['records']:,} ({ver['suppressed_records']:,} suppressed)"),
               ("Equivalence classes", f"{ver['classes']:,}, smallest {ver['min_class_size']:,}")])
    for v in ver["violations"]:
        doc.text("• " + v, color=RED)

    doc.heading("8  What this report does not cover")
    for line in _limits(conf):
        doc.text("• " + line)

    if charts:
        doc.heading("9  Distributions: input and released values")
        doc.text("Share of records per value (the most frequent values; the rest summed as "
                 "“other”). Suppressed records appear under the suppression string.")
        for attribute, data in charts.items():
            doc.chart(attribute, data)
    return doc.output()


def write_report(report: dict, charts: dict[str, dict], pdf_path: str | Path,
                 json_path: str | Path | None = None) -> tuple[Path, Path]:
    """Write the PDF and the same content as JSON (default: the PDF's path with .json)."""
    pdf_path = Path(pdf_path)
    json_path = Path(json_path) if json_path else pdf_path.with_suffix(".json")
    atomic_write_bytes(pdf_path, render_pdf(report, charts))
    atomic_write_text(json_path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return pdf_path, json_path


def export_report(result, pdf_path: str | Path, levels=None, json_path=None,
                  **build_kwargs) -> tuple[Path, Path, dict]:
    """Build the report of ``result`` (see ``build_report`` for ``build_kwargs``), count
    the charts' values and write the PDF and the JSON. Returns both paths and the report."""
    from engine.release_docs.report import build_report, distributions
    report = build_report(result, levels, **build_kwargs)
    pdf, js = write_report(report, distributions(result, levels), pdf_path, json_path)
    return pdf, js, report


def _persons_affected(person: dict | None) -> str:
    """'(12 of 1,500 persons affected), ' with ``[data] person``, else nothing."""
    if not person:
        return ""
    return (f"({person['suppressed_persons']:,} of {person['persons']:,} persons "
            f"affected), ")
