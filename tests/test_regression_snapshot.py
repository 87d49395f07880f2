"""Snapshots: round trip, atomic writes, refusal to overwrite, and unusable files rejected."""
import json
import os

import pytest

import balance as bl
from balance.regression import SnapshotError, snapshot

CHEAP = ["death.*", "mc.*", "negotiation.*"]


@pytest.fixture(scope="module")
def snap():
    return snapshot.take(trials=2000, seed=7, only=CHEAP)


def test_round_trip_keeps_every_field(snap, tmp_path):
    path = snapshot.write(snap, tmp_path / "base.json")
    back = snapshot.read(path)
    for name, meas in snap.measurements.items():
        assert back.measurements[name].to_json() == json.loads(json.dumps(meas.to_json()))
    assert [m.name for m in back.metrics] == [m.name for m in snap.metrics]
    assert back.catalogue_id == snap.catalogue_id
    assert (back.fingerprint, back.trials, back.seed, back.only) == \
        (bl.load_rules().fingerprint, 2000, 7, tuple(CHEAP))
    doc = json.loads(path.read_text())
    assert doc["schema_version"] == snapshot.SCHEMA_VERSION
    assert doc["balance_version"] == bl.__version__
    mc = doc["metrics"]["mc.death@60s,10hp,1w"]
    assert mc["trials"] == 2000 and len(mc["counts"]) == 1 and len(mc["interval"]) == 2
    assert doc["curves"]["death_probability"]["wounds"]["1"][40] == pytest.approx(
        bl.injuries.death_probability(40, 5, 1))


def test_refuses_to_overwrite_unless_forced(snap, tmp_path):
    path = tmp_path / "base.json"
    path.write_text("precious")
    with pytest.raises(SnapshotError, match="already exists; use --force"):
        snapshot.write(snap, path)
    assert path.read_text() == "precious"
    snapshot.write(snap, path, force=True)
    assert snapshot.read(path).seed == 7
    assert sorted(os.listdir(tmp_path)) == ["base.json"]      # no temporary file left


def test_write_is_atomic_when_interrupted(snap, tmp_path, monkeypatch):
    path = tmp_path / "base.json"
    path.write_text("old baseline")

    def broken(fd):
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="disk full"):
        snapshot.write(snap, path, force=True)
    assert path.read_text() == "old baseline"
    assert sorted(os.listdir(tmp_path)) == ["base.json"]


def test_write_into_missing_directory(snap, tmp_path):
    with pytest.raises(SnapshotError, match="does not exist"):
        snapshot.write(snap, tmp_path / "nope" / "base.json")


@pytest.fixture
def saved(snap, tmp_path):
    return snapshot.write(snap, tmp_path / "base.json")


def _edit(path, change):
    """Edit a snapshot file, dropping its sha256 (as a file from before digests), so the
    check under test is the one that catches the edit."""
    doc = json.loads(path.read_text())
    doc.pop("sha256")
    change(doc)
    path.write_text(json.dumps(doc))


def test_truncated_and_corrupted_files(saved):
    text = saved.read_text()
    saved.write_text(text[: len(text) // 2])
    with pytest.raises(SnapshotError, match="corrupted or truncated snapshot"):
        snapshot.read(saved)
    saved.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SnapshotError, match="not UTF-8"):
        snapshot.read(saved)
    saved.write_text("[1, 2, 3]")
    with pytest.raises(SnapshotError, match="not a balance regression snapshot"):
        snapshot.read(saved)


def test_missing_file(tmp_path):
    with pytest.raises(SnapshotError, match="no such snapshot file"):
        snapshot.read(tmp_path / "absent.json")


def test_wrong_schema_version(saved):
    _edit(saved, lambda d: d.update(schema_version=99))
    with pytest.raises(SnapshotError, match="schema version 99.*reads version 2"):
        snapshot.read(saved)


def test_damaged_entries(saved):
    _edit(saved, lambda d: d["metrics"]["mc.death@60s,10hp,1w"].pop("counts"))
    with pytest.raises(SnapshotError, match="metric 'mc.death@60s,10hp,1w': counts is missing"):
        snapshot.read(saved)


def test_edited_metric_list_is_caught_by_catalogue_id(saved):
    _edit(saved, lambda d: d["metrics"].pop("death.mean_surface"))
    with pytest.raises(SnapshotError, match="catalogue_id does not match"):
        snapshot.read(saved)


def test_other_catalogue_is_rejected_by_check(snap, tmp_path):
    # a consistent snapshot of a smaller catalogue (as an older balance would write)
    smaller = snapshot.take(trials=2000, seed=7, only=["death.p@*"])
    path = tmp_path / "old.json"
    snapshot.write(smaller, path)
    _edit(path, lambda d: d.update(only=["death.*"]))  # today's "death.*" has 2 more metrics
    with pytest.raises(SnapshotError, match="different metric catalogues.*only in"):
        bl.regression.check(path)


def test_infinite_values_survive_the_round_trip(tmp_path):
    """A variant where full treatment can never succeed: the expected cure time is inf."""
    hopeless = bl.load_rules().updated({"treatment": {"full": {"bonus": -20}}})
    snap = snapshot.take(hopeless, trials=500, only=["treatment.*"])
    back = snapshot.read(snapshot.write(snap, tmp_path / "inf.json"))
    assert back.measurements["treatment.days_to_cure@C12,Bleeding"].value == float("inf")
    same = bl.regression.compare_snapshots(back, snap).set_index("metric")
    assert (same["change"] == 0).all() and not same["moved"].any()
    moved = bl.regression.compare(None, back, only=["treatment.*"]).set_index("metric")
    assert moved.loc["treatment.days_to_cure@C12,Bleeding", "moved"]


def test_a_folder_given_as_a_snapshot_is_named_a_folder(tmp_path):
    with pytest.raises(SnapshotError, match=r"^.*: a folder, not a snapshot file \(balance "
                                            r"snapshot --out FILE.json writes one\)$"):
        snapshot.read(tmp_path)
