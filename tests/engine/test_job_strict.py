"""Job files are read strictly from the parameter declarations (engine.schema): every
refusal names the file, the table, the key and the value; nothing is rounded, guessed
or weakened."""
from __future__ import annotations

import pytest

from engine.errors import AnonymistError
from engine.privacy import KAnonymity, TCloseness
from engine.project.job_file import load_job

K = '[[privacy]]\nmodel = "k-anonymity"\n'
T = '[[privacy]]\nmodel = "t-closeness"\nattribute = "disease"\n'
ID = '[attributes.name]\ntype = "identifying"\n'
HMAC = ID + 'pseudonymize = "hmac-sha256"\nkey_env = "KEY"\n'
MASK = ID + 'pseudonymize = "mask"\n'
MICRO = '[attributes.age]\ntype = "quasi-identifying"\ntransformation = "microaggregation"\n'
NAME = '[attributes."name"]'


@pytest.mark.parametrize("text, table, key, value, rule", [
    # integers are integers: never truncated, never a boolean, never infinite
    (K + "k = 2.5\n", "[[privacy]] #1 (k-anonymity)", "k", "2.5", "whole number"),
    (K + "k = true\n", "[[privacy]] #1 (k-anonymity)", "k", "true", "whole number"),
    (K + "k = inf\n", "[[privacy]] #1 (k-anonymity)", "k", "inf", "whole number"),
    (K + "k = nan\n", "[[privacy]] #1 (k-anonymity)", "k", "nan", "whole number"),
    (K + 'k = "5"\n', "[[privacy]] #1 (k-anonymity)", "k", "'5'", "whole number"),
    (K + "k = 0\n", "[[privacy]] #1 (k-anonymity)", "k", "0", "at least 1"),
    ('[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "d"\nl = 2.9\n',
     "(distinct-l-diversity)", "l", "2.9", "whole number"),
    # floats are finite and in range; probabilities are probabilities
    (T + "t = inf\n", "(t-closeness)", "t", "inf", "between 0 and 1"),
    (T + "t = 1.5\n", "(t-closeness)", "t", "1.5", "between 0 and 1"),
    (T + "t = false\n", "(t-closeness)", "t", "false", "a number"),
    ('[[privacy]]\nmodel = "average-risk"\nthreshold = 0\n', "(average-risk)", "threshold",
     "0", "greater than 0 and at most 1"),
    ('[[privacy]]\nmodel = "differential-privacy"\nepsilon = 2\ndelta = 1\n',
     "(differential-privacy)", "delta", "1", "less than 1"),
    ('[transformation]\nsuppression_limit = nan\n', "[transformation]", "suppression_limit",
     "nan", "between 0 and 1"),
    ('[metric]\ngs_factor = -0.1\n', "[metric]", "gs_factor", "-0.1", "between 0 and 1"),
    # booleans are booleans
    ('[[privacy]]\nmodel = "beta-likeness"\nattribute = "d"\nbeta = 1\nenhanced = "False"\n',
     "(beta-likeness)", "enhanced", "'False'", "true or false"),
    ('[[privacy]]\nmodel = "profitability"\nallow_attack = 0\n', "(profitability)",
     "allow_attack", "0", "true or false"),
    ('[transformation]\npractical_monotonicity = "yes"\n', "[transformation]",
     "practical_monotonicity", "'yes'", "true or false"),
    # strings are strings; choices are checked (with the closest one)
    (T + "t = 0.2\ndistance = \"hierarchcal\"\n", "(t-closeness)", "distance",
     "'hierarchcal'", "did you mean 'hierarchical'"),
    ('[[privacy]]\nmodel = "k-map"\nk = 5\nestimator = "shannon"\n', "(k-map)", "estimator",
     "'shannon'", "one of 'none', 'poisson'"),
    ('[data]\ndelimiter = 59\n', "[data]", "delimiter", "59", "text"),
    ('[attributes.age]\ntype = "quasi"\n', '[attributes."age"]', "type", "'quasi'",
     "one of 'identifying'"),
    ('[population]\nregion = "Mars"\n', "[population]", "region", "'Mars'", "one of 'USA'"),
    ('[transformation]\nalgorithm = "optimall"\n', "[transformation]", "algorithm",
     "'optimall'", "did you mean 'optimal'"),
    ('[metric]\nname = "loss"\naggregate = "mean"\n', "[metric]", "aggregate", "'mean'",
     "one of 'sum'"),
    # pseudonyms (engine.pseudonyms.PseudonymSpec's declarations)
    (HMAC + "length = 2.5\n", NAME, "length", "2.5", "whole number between 8 and 64"),
    (HMAC + "length = true\n", NAME, "length", "true", "whole number"),
    (HMAC + "length = 65\n", NAME, "length", "65", "between 8 and 64"),
    (MASK + "keep = -1\n", NAME, "keep", "-1", "at least 0"),
    (MASK + "keep = 1.5\n", NAME, "keep", "1.5", "whole number"),
    (MASK + 'mask_char = "**"\n', NAME, "mask_char", "'**'", "one character"),
    (MASK + "mask_char = 1\n", NAME, "mask_char", "1", "text"),
    (ID + 'pseudonymize = "hmac-sha265"\nkey_env = "K"\n', NAME, "pseudonymize",
     "'hmac-sha265'", "did you mean 'hmac-sha256'"),
    (ID + "pseudonymize = true\n", NAME, "pseudonymize", "true", "one of 'hmac-sha256'"),
    (ID + 'pseudonymize = "hmac-sha256"\nkey_env = 5\n', NAME, "key_env", "5", "text"),
    (ID + 'pseudonymize = "hmac-sha256"\nkey_file = ""\n', NAME, "key_file", "''", "empty"),
    (HMAC + "keep = 2\n", NAME, "keep", "hmac-sha256", "do(es) not apply"),
    (MASK + "length = 20\n", NAME, "length", "mask", "do(es) not apply"),
    (ID + "length = 20\n", NAME, "length", "pseudonymize", "need(s) pseudonymize"),
    ('[attributes.name]\ntype = "quasi-identifying"\npseudonymize = "mask"\n', NAME,
     "pseudonymize", "quasi-identifying", "identifying attributes only"),
    # transformation methods (AttributeConfig's and local recoding's declarations)
    (MICRO + 'function = "meen"\n', '[attributes."age"]', "function", "'meen'",
     "one of 'arithmetic-mean'"),
    (MICRO + 'function = "median"\nignore_missing = 1\n', '[attributes."age"]',
     "ignore_missing", "1", "true or false"),
    (MICRO + 'function = "median"\nclustering = "mdv"\n', '[attributes."age"]',
     "clustering", "'mdv'", "did you mean 'mdav'"),
    ('[attributes.age]\ntype = "quasi-identifying"\nfunction = "median"\n',
     '[attributes."age"]', "function", "microaggregation", "only applies"),
    ('[attributes.age]\ntransformation = "top-bottom-coding"\ntop = "90"\n',
     '[attributes."age"]', "top", "'90'", "a number"),
    ('[transformation]\nlocal_recoding = { iterations = 2.5 }\n',
     "[transformation] local_recoding", "iterations", "2.5", "whole number"),
    ('[transformation]\nlocal_recoding = { gs_factor = 2 }\n',
     "[transformation] local_recoding", "gs_factor", "2", "between 0 and 1"),
    # a file that is not what it must be
    ('format_version = "2"\n', "format_version", "format_version", "'2'", "whole number"),
    ('format_version = 2\n', "format_version", "format_version", "2", "newer"),
    ('attributes = "x"\n', "[attributes]", "attributes", "'x'", "must be a table"),
    ('privacy = "x"\n', "[[privacy]]", "privacy", "'x'", "[[privacy]] tables"),
    ('privacy = [1]\n', "[[privacy]] #1", "privacy", "1", "must be a table"),
    ('[[privacy]]\nmodel = "k-anonimity"\nk = 5\n', "[[privacy]] #1", "model", "'k-anonimity'",
     "did you mean 'k-anonymity'"),
    ('[metric]\nname = "los"\n', "[metric]", "name", "'los'", "did you mean 'loss'"),
    ('[subset]\nquery = "age > 3"\nseed = 1\n', "[subset]", "seed", "sample",
     "is for a random sample"),
    ('[subset]\nsample = 1.5\nseed = 1\n', "[subset]", "sample", "1.5", "at most 1"),
    ('[subset]\nquery = "age > 3"\nrows = "r.txt"\n', "[subset]", "rows", "query",
     "one way only"),
    ('[population]\nsize = 10\nregion = "USA"\n', "[population]", "size", "region",
     "not both"),
    ('[population]\nsize = 0\n', "[population]", "size", "0", "at least 1"),
    ('[population]\nsize = 3e5\nregion = 1\n', "[population]", "region", "1", "one of"),
    ('[data]\nencoding = "utf-99"\n', "[data]", "encoding", "'utf-99'", "not an encoding"),
    # rules across parameters
    ('[[privacy]]\nmodel = "delta-presence"\ndelta_min = 0.6\ndelta_max = 0.5\n',
     "(delta-presence)", "delta_min", "0.6", "must not exceed delta_max"),
    ('[[privacy]]\nmodel = "differential-privacy"\nepsilon = 1\ndelta = 1e-6\n'
     'search_budget = 1\n', "(differential-privacy)", "search_budget", "1",
     "less than epsilon"),
    # required parameters
    ('[[privacy]]\nmodel = "entropy-l-diversity"\nl = 2\n', "(entropy-l-diversity)",
     "attribute", "missing", "Sensitive attribute"),
    ('[metric]\nname = "classification"\n', "[metric] (classification)", "response",
     "missing", "Response attribute"),
])
def test_refusals_name_file_table_key_value(tmp_path, text, table, key, value, rule):
    path = tmp_path / "strict.toml"
    path.write_text(text)
    with pytest.raises(AnonymistError) as e:
        load_job(path)
    message = str(e.value)
    for part in ("strict.toml", table, key, value, rule):
        assert part in message, (part, message)
    assert "Traceback" not in message


@pytest.mark.parametrize("table, text, key, near", [
    ("[[privacy]] #1 (t-closeness)", T + 't = 0.2\ndistanse = "hierarchical"\n', "distanse",
     "distance"),
    ("[data]", '[data]\ndelimeter = ","\n', "delimeter", "delimiter"),
    ('[attributes."age"]', '[attributes.age]\nwieght = 1\n', "wieght", "weight"),
    ("[transformation]", '[transformation]\nsupression_limit = 0.1\n', "supression_limit",
     "suppression_limit"),
    ("[transformation.genetic]", '[transformation.genetic]\nelite_fractoin = 0.1\n',
     "elite_fractoin", "elite_fraction"),
    ("[metric] (loss)", '[metric]\nname = "loss"\ngs_factr = 0.1\n', "gs_factr", "gs_factor"),
    ("[subset]", '[subset]\nquerry = "age > 3"\n', "querry", "query"),
    ("[population]", '[population]\nregoin = "USA"\n', "regoin", "region"),
    ("the job", '[privacy_models]\nk = 2\n', "privacy_models", "privacy"),
    (NAME, ID + 'pseudonymise = "mask"\n', "pseudonymise", "pseudonymize"),
    (NAME, MASK + 'mask_chr = "#"\n', "mask_chr", "mask_char"),
    ('[attributes."age"]', MICRO + 'function = "median"\nclusterin = "mdav"\n', "clusterin",
     "clustering"),
    ("[transformation] local_recoding", '[transformation]\nlocal_recoding = { iteration = 5 }\n',
     "iteration", "iterations"),
])
def test_unknown_keys_are_refused_everywhere(tmp_path, table, text, key, near):
    path = tmp_path / "keys.toml"
    path.write_text(text)
    with pytest.raises(AnonymistError) as e:
        load_job(path)
    message = str(e.value)
    assert "keys.toml" in message and table in message
    assert "unknown" in message and f"'{key}'" in message
    assert f"did you mean '{near}'?" in message
    assert "known" in message  # the list of known keys follows


def test_a_job_file_that_is_not_utf8_gives_a_message(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes('[data]\npath = "d\xe9j\xe0.csv"\n'.encode("latin-1"))
    with pytest.raises(AnonymistError, match=r"latin\.toml is not UTF-8 text .* line 2"):
        load_job(path)


def test_python_construction_is_checked_from_the_same_declarations():
    with pytest.raises(AnonymistError, match=r"\(k-anonymity\) k = 2.5 must be a whole number"):
        KAnonymity(2.5)
    with pytest.raises(AnonymistError, match=r"t = 2 must be a number between 0 and 1"):
        TCloseness("disease", 2)
    assert KAnonymity(k=5.0).k == 5 and isinstance(KAnonymity(k=5.0).k, int)
    assert TCloseness("disease", 0.2).distance == "equal"  # the declared default


def test_a_specification_does_not_change():
    model = KAnonymity(5)
    with pytest.raises(AttributeError, match="replace"):
        model.k = 2
    assert model.replace(k=3).k == 3 and model.k == 5
