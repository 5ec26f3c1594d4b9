"""PAL500 (tpu-launch-auto-partitioned) against what JAX did: every program in
``tests/data/sharding/cases`` was lowered for TPU on the CPU with 8 host devices under jax 0.9.2,
0.10.2, 0.11.2 and 0.12.0.1 (``run_cases.py`` wrote ``labels.json``). A finding must sit on the
``# FAIL`` line of a case that raised this kind's error in every release; the cases that lowered or
raised another error get none. The cases the rule knows it misses are listed, each with why."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_lsp.releases import analysis_release
from pallas_lsp.rules import analyse

CODE = "PAL500"
MESSAGE = "Mosaic kernels cannot be automatically partitioned. Please wrap the call in a shard_map."
DATA = Path(__file__).resolve().parents[1] / "data" / "sharding"
LABELS = json.loads((DATA / "labels.json").read_text())["cases"]

# Cases that raise this kind's error where the rule stays quiet, and why.
KNOWN_MISSES = {
    "cases/device_put_auto_mesh.py": "the jit is given *inputs(): the arguments are not followed",
    "cases/device_put_replicated.py": "the jit is given *inputs(): the arguments are not followed",
    "cases/set_mesh_context.py": "Explicit mesh and *inputs(): a sharded type would raise another error",
    "cases/sharding_constraint_inside.py": "with_sharding_constraint inside the jit is not read",
    "cases/partial_manual_shard_map.py": "a shard_map manual over some axes only is not told apart",
    "cases/mesh_of_all_devices.py": "the mesh's size is the host's device count, not in the code",
}


def findings(path: Path, release: str = "0.10.2", backends=("tpu",), text: str | None = None):
    text = path.read_text() if text is None else text
    got = analyse(text, str(path), backends=backends, release=analysis_release(release))
    return [f for f in got.findings if f.code == CODE]


def raises_this(key: str) -> bool:
    return all(r["outcome"] == "raises" and r["error_class"] == "NotImplementedError" and r["message"] == MESSAGE
               for r in LABELS[key]["by_release"].values())


def test_labels_cover_every_case_in_every_release():
    on_disk = {f"cases/{p.name}" for p in (DATA / "cases").glob("*.py")}
    assert set(LABELS) == on_disk
    for key, entry in LABELS.items():
        assert set(entry["by_release"]) == {"0.9.2", "0.10.2", "0.11.2", "0.12.0.1"}, key
        assert bool(entry["fail_lines"]) == raises_this(key), key  # (the FAIL marks agree with JAX)


@pytest.mark.parametrize("key", sorted(LABELS))
@pytest.mark.parametrize("release", ["0.10.2", "0.12.0.1"])
def test_case_against_its_label(key, release):
    got = findings(DATA / key, release)
    if raises_this(key) and key not in KNOWN_MISSES:
        assert got, f"{key}: JAX raised {MESSAGE!r}, the rule is quiet"
        assert {f.span.line for f in got} <= set(LABELS[key]["fail_lines"]), [f.span.line for f in got]
        assert MESSAGE in got[0].message
    else:
        assert got == [], f"{key}: {LABELS[key]['by_release'][release]} but {[f.message for f in got]}"


def test_known_misses_are_real_raises():
    assert all(raises_this(key) for key in KNOWN_MISSES)


def test_quiet_unless_compiled_for_tpu():
    # Without its lower(..., lowering_platforms=("tpu",)), the case runs where the backends say.
    path = DATA / "cases" / "in_shardings_partitioned.py"
    text = path.read_text().split("def lower")[0]
    assert findings(path, text=text)  # (the twin below differs only in the backend)
    assert findings(path, backends=("gpu",), text=text) == []


def test_related_locations_name_the_sharding_and_the_mesh():
    path = DATA / "cases" / "out_shardings_only.py"
    (finding,) = findings(path)
    words = [r.message for r in finding.related]
    assert any("out_shardings=NamedSharding(MESH" in w and "8 devices" in w for w in words), words
    assert any(w == "the mesh: 8 devices" for w in words), words
