"""The one release writer (engine.release_docs.writer) writes the same bytes as the four
entry points it replaced (bundle.write_release, cli_options.write_release /
write_documents, AnonymizationResult.write_output, guide.release.release).

The digests below were produced from main before the writer by running the same
releases through the old entry points (the tables and mappings at 41091ef and again,
unchanged, at e5c6f11; the reports and the guided release's job file at e5c6f11, after
main had added to the report and the job file): ``anonymist anonymize`` (--output, --mapping,
--report; Parquet; CSV quoted all, crlf, ','), ``result.write_output`` (the optimum, and
every level one up with ',' as delimiter), ``bundle.write_release`` (CSV '|' quoted
nonnumeric, mapping and report, the levels one up) and ``guide.release.release`` on the
whole of Adult (9 QIs, k=5, 4 %, loss), and the CLI on cup (ZIP, AGE, GENDER, STATE, k=5,
2 %) in memory and through DuckDB.

The reports and the guided release's job file were compared too while the writer
replaced the old entry points (their digests at e5c6f11 held). They are documents that
grow with the product (a report section per new method, a job key per new setting), so
they are no longer pinned byte for byte: what is released (tables, mappings,
hierarchies) is, and each report must still verify and describe the same release
(`report_matches`)."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import engine
from engine.cli import main
from engine.export.targets import CsvOptions, FileTarget
from engine.release_docs.writer import ReleaseRequest, write_release
from tests.engine.conftest import ADULT, adult_job_text

ADULT_MAPPING = {
    "age.csv":
        "9fafbd8fd1698425e51eb652ce6130eab8060bc55fc17a28d9e0632eaad9cee7",
    "attributes.csv":
        "e9c62f691cd8a55d178e118aaa9004958518d6b9e3371aa55d6121affa987874",
    "education.csv":
        "62c971d777b0afd3ddc2f42d794ae6902861a31d947669566ac4b10c9c2fc0c9",
    "marital-status.csv":
        "db0029f90b7db0edfd1bcf55d07c098c770c706b727940e924b175cb905dea23",
    "native-country.csv":
        "e95889d5e7113cb3a4391854d1ef531e22ccfc3e30f7f53338a8917fa04838a4",
    "occupation.csv":
        "df3982cf67894641b3628e84107f286a101f0c3ba9e94d51861b0db6afbdf862",
    "race.csv":
        "3e01f536d9f9d50c30669b7a2a5fd0d998b70b88052114cc18ea7e2eff9bd450",
    "salary-class.csv":
        "2a94651b688d36f170efd6e69ce23e01ac04d01f215870ce6a136cac72a96428",
    "sex.csv":
        "9a5f9daa5512b2ab3f70f991d084d12f0988ad47dc643e4955cd0fbe32d1a6a1",
    "suppressed_rows.csv":
        "3656f207391bae6e2bea70e2a100b78b5e71185e35d4b90ca20f44ebd8309940",
    "workclass.csv":
        "f2a5f9a0efb394a604adaa1d523f0f79d76287138ab05fb329f4104cf535aaa6",
}
ADULT_LEVELS_MAPPING = {
    "age.csv":
        "23ba792dc6d5e3bb29cb1bae4f4aa9db7a9f29b6138b9950ffe843542fbcf636",
    "attributes.csv":
        "f47508c197bdc514964600adbdd9e3e114e3559c334b6ad5acd97258ef4600d7",
    "education.csv":
        "d6f7232c035e9dc0589ab034052d859d2fe49ebaca166d904ddc64cea4461e3b",
    "marital-status.csv":
        "5464a453554b2956b46878718182c2eab3b0ab17b43f3d1fe99d57be235936af",
    "native-country.csv":
        "1b6eab2df6ea2695e029cb1885998c7770b319e4f9b9a1b8aeb676bc20be001c",
    "occupation.csv":
        "4effdd2f07aaf60134906bd2509744025130be82827bee7402173e6e785cdff3",
    "race.csv":
        "fc14bd444d8c1f9299205f42a9a289e57047fa47c9ec644eb4e0834b3234a113",
    "salary-class.csv":
        "1784bbfb016edd72605579bf64eee2234c9df10c8d46bf20ee3e34ce9978823c",
    "sex.csv":
        "232eb400fdfaefa3aeaa03f0d9715b4424f5ca5575af94e7374f92587e33ffc4",
    "suppressed_rows.csv":
        "83ad05a6ffdb5c97fb81a8501561e30cc3458bed5a83525e931acb0f8486a393",
    "workclass.csv":
        "b44384fbc6c1787e320133415667589d8c53a645c623431b1e13e05013d1d6a2",
}

ADULT_HIERARCHIES = {
    "age.csv":
        "463f35372e8b1ad31fc624eb73c5da9297878a044ae5d61038eaf7b431ac55ca",
    "education.csv":
        "f22e5ee519c28b05538d4e5ddea0fbee5f0017fefb3abab3fa02272325bf9ce5",
    "marital-status.csv":
        "3e7ba2c4a5cd4fec059b4e3a2c57fce6e7c34a20daee1e624990ddd7beba85e5",
    "native-country.csv":
        "1a09af0a6ca6d463cba5e193ecdc3f0719e334350f39e91af47dff357a0c3076",
    "occupation.csv":
        "16dc420d5d7f8ab4d1e6144eb1d19ab8314ef42523fe8c4ee202372db1c98126",
    "race.csv":
        "df11abf41fa0669455adc9c9f9fa88663afa0cee8327684ecca861cd32dc4209",
    "salary-class.csv":
        "404895b3fcfb615813efab7ae0d2c50c8b127cec651f9b37d44a648646f86345",
    "sex.csv":
        "537d23f7b6969b916b5a5490eb1b32c273fefdc62ca050a7a813e23bbf3b78b2",
    "workclass.csv":
        "106f420349bf0071dbb25371795a78799edf24a64c3424619d563c3990ee8d02",
}

CUP_MAPPING = {
    "AGE.csv":
        "9d22823c1a263c6380fe33a92fd8779fbfc97dde35b5dc7701aa3a17424de2d0",
    "GENDER.csv":
        "8d3fa01f2beb008a0860a11b398eb2c796443f318de2e84f84ce22686768fe15",
    "STATE.csv":
        "c117766914a526c836b53f71d5c56142c672766697a0fdda02ca9991e46e2563",
    "ZIP.csv":
        "ead72fc25f66fff12799fd00ab438fb76a86009e83ffe68733fadc7bf72c8515",
    "attributes.csv":
        "8ae6acd4c33fde24a30302cf1d5b2e344d1b6484cdccba592f272ba944f14f75",
    "suppressed_rows.csv":
        "ca92d3c7fbe3e53beea7e2f0a8ed0410210d9cfe0ca83c0b33cd7e23d7b3113c",
}

FILES = {
    "cli_csv":
        "fb89c60bbb4686f1042844e3e78c51a34dc3fd0e2bd9e202748fb6dda778dbfb",
    "cli_parquet":
        "4c3913e04d04d06df3bf7f336644db56df5b243424062a344ccd15b62724ec22",
    "cli_csv_all_crlf":
        "027a8cdf6d36fc4dc9f795bc6d925777b9c2f8d9b246a6aee96431465019eb5b",
    "api_levels_csv":
        "2c7ec7463ec591c354d1e080f549764124bb0daef604f600da8bc2e308b82d76",
    "bundle_csv":
        "bd4b3a294dac3d377b166d634ece75c9d50370aea514ff429dbe48641475f40a",
    "cup_csv":
        "216a9bf73f0c96b6e1256bad36bf527111a063119dab551591da20adc0426c64",
}


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def report_matches(path, release: Path, levels: dict | None = None) -> None:
    """The report verified the release it describes: its certificate's digest is the
    released file's, and its transformation is the one released."""
    d = json.loads(Path(path).read_text())
    assert d["verification"]["ok"] is True
    assert d["output"]["sha256"] == sha(release)
    if levels is not None:
        assert d["transformation"]["levels"] == levels


def folder_digests(folder) -> dict[str, str]:
    return {p.name: sha(p) for p in sorted(Path(folder).iterdir())}


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    work = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, work / f.name)
    (work / "job.toml").write_text(adult_job_text())
    return work, engine.anonymize(None, work / "job.toml")


def one_up(result) -> list[int]:
    return [min(level + 1, top) for level, top in
            zip(result.optimum.levels.values(), result.problem.lattice.max_levels)]


def test_command_line_writes_the_same_bytes(adult, tmp_path, capsys):
    work, _ = adult
    job = str(work / "job.toml")
    for folder in ("cli", "internal"):
        (tmp_path / folder).mkdir()
    assert main(["anonymize", job, "--quiet", "--output", str(tmp_path / "cli/out.csv"),
                 "--mapping", str(tmp_path / "internal/map"),
                 "--report", str(tmp_path / "cli/report.pdf")]) == 0
    assert sha(tmp_path / "cli/out.csv") == FILES["cli_csv"]
    assert folder_digests(tmp_path / "internal/map") == ADULT_MAPPING
    report_matches(tmp_path / "cli/report.json", tmp_path / "cli/out.csv")
    assert main(["anonymize", job, "--quiet", "--output", str(tmp_path / "out.parquet"),
                 "--csv-quoting", "all"]) == 0
    assert sha(tmp_path / "out.parquet") == FILES["cli_parquet"]
    assert main(["anonymize", job, "--quiet", "--output", str(tmp_path / "crlf.csv"),
                 "--csv-quoting", "all", "--csv-line-ending", "crlf",
                 "--csv-delimiter", ","]) == 0
    assert sha(tmp_path / "crlf.csv") == FILES["cli_csv_all_crlf"]


def test_python_api_writes_the_same_bytes(adult, tmp_path):
    _, result = adult
    result.write_output(tmp_path / "api.csv")
    assert sha(tmp_path / "api.csv") == FILES["cli_csv"]
    result.write_output(tmp_path / "levels.csv", one_up(result), delimiter=",")
    assert sha(tmp_path / "levels.csv") == FILES["api_levels_csv"]


def test_the_writer_writes_the_same_bytes(adult, tmp_path):
    """What the app's export asked bundle.write_release for: a CSV target with its
    options, the value mapping and the report, of a transformation chosen by hand."""
    work, result = adult
    (tmp_path / "out").mkdir()  # outputs go into existing folders only
    target = FileTarget(tmp_path / "out/out.csv", "csv",
                        CsvOptions(delimiter="|", quoting="nonnumeric"))
    written = write_release(result, ReleaseRequest(
        target, tmp_path / "map", tmp_path / "out/report.pdf", work / "adult.csv"),
        one_up(result))
    assert written.verified is True
    assert sha(tmp_path / "out/out.csv") == FILES["bundle_csv"]
    assert folder_digests(tmp_path / "map") == ADULT_LEVELS_MAPPING
    report_matches(tmp_path / "out/report.json", tmp_path / "out/out.csv",
                   dict(zip(result.problem.qis, one_up(result))))


def test_the_guided_release_writes_the_same_bytes(adult, tmp_path):
    """The same files as before, now in share/ and internal/."""
    from engine.guide.release import release
    work, result = adult
    artefacts = release(result, None, result.problem.job, tmp_path / "g", "adult")
    assert all(a.verified for a in artefacts), [a.message for a in artefacts]
    share, internal = tmp_path / "g/share", tmp_path / "g/internal"
    assert sha(share / "adult-anonymized.csv") == FILES["cli_csv"]
    from engine.project.job_file import load_job
    job = load_job(internal / "adult-job.toml")  # the job it writes reads back as the job
    assert job.privacy == result.problem.job.privacy
    assert {n: a.type for n, a in job.attributes.items()} == {
        n: a.type for n, a in result.problem.job.attributes.items()}
    assert folder_digests(internal / "adult-hierarchies") == ADULT_HIERARCHIES
    assert folder_digests(internal / "adult-mapping") == ADULT_MAPPING
    report_matches(internal / "adult-report-full.json", share / "adult-anonymized.csv")


@pytest.mark.slow
def test_duckdb_and_cup_write_the_same_bytes(adult, tmp_path, capsys):
    work, _ = adult
    for folder in ("duck", "cup", "cupduck"):
        (tmp_path / folder).mkdir()
    (tmp_path / "duck.toml").write_text(
        adult_job_text().replace('path = "adult.csv"', f'path = "{work / "adult.csv"}"')
        .replace('hierarchy = "', f'hierarchy = "{work}/') + '[engine]\nbackend = "duckdb"\n')
    assert main(["anonymize", str(tmp_path / "duck.toml"), "--quiet", "--output",
                 str(tmp_path / "duck/out.csv"), "--mapping", str(tmp_path / "map")]) == 0
    assert sha(tmp_path / "duck/out.csv") == FILES["cli_csv"]
    assert folder_digests(tmp_path / "map") == ADULT_MAPPING
    cup = ADULT.parent / "cup"
    qis = ["ZIP", "AGE", "GENDER", "STATE"]
    text = (f'[data]\npath = "{cup / "cup.csv"}"\ndelimiter = ";"\n' + "".join(
        f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
        f'hierarchy = "{cup / f"cup_hierarchy_{q}.csv"}"\n' for q in qis)
        + '[[privacy]]\nmodel = "k-anonymity"\nk = 5\n[transformation]\n'
          'suppression_limit = 0.02\n[metric]\nname = "loss"\n')
    (tmp_path / "cup.toml").write_text(text)
    (tmp_path / "cupduck.toml").write_text(text + '[engine]\nbackend = "duckdb"\n')
    assert main(["anonymize", str(tmp_path / "cup.toml"), "--quiet", "--output",
                 str(tmp_path / "cup/out.csv"), "--mapping", str(tmp_path / "cupmap")]) == 0
    assert sha(tmp_path / "cup/out.csv") == FILES["cup_csv"]
    assert folder_digests(tmp_path / "cupmap") == CUP_MAPPING
    assert main(["anonymize", str(tmp_path / "cupduck.toml"), "--quiet", "--output",
                 str(tmp_path / "cupduck/out.csv")]) == 0
    assert sha(tmp_path / "cupduck/out.csv") == FILES["cup_csv"]
