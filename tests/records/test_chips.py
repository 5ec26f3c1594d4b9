"""A record's ``chips`` (the TPU generations whose real chip showed its error, with the jax
releases run there): loading, refusing bad entries one at a time, the schema, and what a finding
of such a kind claims for the chosen generation (chips.ChipClaims)."""
import json

import pytest

from pallas_lsp.analysis.findings import Finding, Severity
from pallas_lsp.analysis.module import Span
from pallas_lsp.chips import ChipClaims, GenerationChoice, generation_problem
from pallas_lsp.records import TPU_GENERATIONS, ChipSighting, builtin_records, parse_records_text
from pallas_lsp.records.reference import record_schema


def _record(**extra):
    return {"id": "team-chip", "slug": "team-chip", "errorMessage": "Mosaic said no",
            "messagePattern": "Mosaic said no", "errorClass": "MosaicError", **extra}


def test_chips_load_with_their_generations_and_releases():
    rec = _record(chips=[{"generation": "v5e", "releases": ["0.10.2"]},
                         {"generation": "v6e", "releases": ["0.10.2", "0.12.0.1"]}])
    records, problems = parse_records_text(json.dumps(rec), "team.json")
    assert problems == []
    assert records[0].chips == (ChipSighting("v5e", ("0.10.2",)), ChipSighting("v6e", ("0.10.2", "0.12.0.1")))
    assert records[0].chips[1].described() == "TPU v6e, jax 0.10.2, 0.12.0.1"


def test_a_record_without_chips_claims_no_chip():
    records, problems = parse_records_text(json.dumps(_record()), "team.json")
    assert problems == [] and records[0].chips == ()


@pytest.mark.parametrize("entry, where, says", [
    ({"generation": "v5", "releases": ["0.10.2"]}, "chips[0].generation", "one of v4, v5e, v5p, v6e, v7x"),
    ({"generation": "V5E", "releases": ["0.10.2"]}, "chips[0].generation", "not 'V5E'"),
    ({"releases": ["0.10.2"]}, "chips[0].generation", "TPU generation"),
    ({"generation": "v5e", "releases": []}, "chips[0].releases", "non-empty list"),
    ({"generation": "v5e", "releases": ["latest"]}, "chips[0].releases", "jax versions"),
    ({"generation": "v5e"}, "chips[0].releases", "jax versions"),
    ("v5e", "chips[0]", "must be an object"),
])
def test_a_bad_chip_entry_loses_only_itself(entry, where, says):
    rec = _record(chips=[entry, {"generation": "v4", "releases": ["0.9.2"]}])
    records, problems = parse_records_text(json.dumps(rec), "team.json")
    assert [r.slug for r in records] == ["team-chip"]  # (the record still loads and explains)
    assert records[0].chips == (ChipSighting("v4", ("0.9.2",)),)
    assert len(problems) == 1 and problems[0].where.endswith(where) and says in problems[0].message


def test_a_generation_listed_twice_is_refused_the_second_time():
    rec = _record(chips=[{"generation": "v5e", "releases": ["0.10.2"]},
                         {"generation": "v5e", "releases": ["0.12.0.1"]}])
    records, problems = parse_records_text(json.dumps(rec), "team.json")
    assert records[0].chips == (ChipSighting("v5e", ("0.10.2",)),)
    assert len(problems) == 1 and "listed twice" in problems[0].message


def test_chips_that_are_not_a_list_refuse_the_record_as_other_fields_do():
    records, problems = parse_records_text(json.dumps(_record(chips={"generation": "v5e"})), "team.json")
    assert records == [] and problems[0].where.endswith(".chips")


def test_the_schema_knows_the_generations():
    chips = record_schema()["$defs"]["record"]["properties"]["chips"]["anyOf"][0]
    assert chips["items"]["properties"]["generation"]["enum"] == list(TPU_GENERATIONS)
    assert chips["items"]["required"] == ["generation", "releases"]


def test_every_shipped_chip_claim_is_a_v5e_chip_run_with_jax_0_10_2():
    """What was verified: the chip corpus ran on a TPU v5e with jax 0.10.2 (docs/chips.md); a
    shipped record claiming another chip or release would claim what nobody ran."""
    claimed = [r for r in builtin_records()[0] if r.chips]
    for rec in claimed:
        assert rec.chips == (ChipSighting("v5e", ("0.10.2",)),), rec.slug


def _finding(record, message="Core-parallel dimension 0 exceeds the cores"):
    return Finding("PAL999", "team-rule", record, Severity.ERROR, message, Span(3, 4, 3, 9))


CLAIMS = ChipClaims({"team-chip": (ChipSighting("v5e", ("0.10.2",)),),
                     "two-chips": (ChipSighting("v5e", ("0.10.2",)), ChipSighting("v4", ("0.9.2",)))})


def test_no_generation_chosen_says_where_the_kind_was_seen():
    got = CLAIMS.claimed([_finding("team-chip"), _finding("two-chips", "m")], None)
    assert got[0].message == "Core-parallel dimension 0 exceeds the cores (seen on TPU v5e, jax 0.10.2)"
    assert got[1].message == "m (seen on TPU v5e, jax 0.10.2; TPU v4, jax 0.9.2)"
    assert got[0].span == Span(3, 4, 3, 9) and got[0].code == "PAL999"


def test_a_generation_the_chip_showed_keeps_the_finding_as_it_is():
    f = _finding("team-chip")
    assert CLAIMS.claimed([f], "v5e") == [f]
    assert CLAIMS.claimed([_finding("two-chips")], "v4")[0].message == _finding("two-chips").message


def test_nothing_is_claimed_for_a_generation_nobody_ran():
    assert CLAIMS.claimed([_finding("team-chip")], "v6e") == []
    assert CLAIMS.claimed([_finding("two-chips")], "v7x") == []


def test_kinds_without_chips_pass_whatever_the_generation():
    plain, bare = _finding("get-global-interpret"), _finding(None)
    for generation in (None, "v5e", "v7x"):
        assert CLAIMS.claimed([plain, bare], generation) == [plain, bare]


def test_claims_are_built_from_the_records_that_carry_chips():
    records, _ = parse_records_text(json.dumps([_record(chips=[{"generation": "v5p", "releases": ["0.10.2"]}]),
                                                {**_record(), "id": "x", "slug": "plain"}]), "team.json")
    assert ChipClaims.of(records).seen_on == {"team-chip": (ChipSighting("v5p", ("0.10.2",)),)}


def test_generation_values():
    assert generation_problem("v5e", "here") is None
    assert "here: `tpu-generation` must be one of v4, v5e, v5p, v6e, v7x, not 'v5'" == generation_problem("v5", "here")
    assert generation_problem(5, "here") is not None
    assert GenerationChoice("v5e", "--tpu-generation").as_json() == {"generation": "v5e",
                                                                      "source": "--tpu-generation"}
    assert GenerationChoice().as_json() == {"generation": None, "source": None}
