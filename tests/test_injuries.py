"""Critical injuries (RULES.md §1.2) against brute force over the 100 faces and the worked examples."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import balance as bl

# The document's table, transcribed independently of the rules file: (low, high, modifier, en, fr)
DOC_TABLE = [
    (1, 10, 0, "Dazed", "Étourdi"), (11, 20, 0, "Feeble", "Fragile"),
    (21, 30, 0, "Exhausted", "Épuisé"), (31, 40, 0, "Tired", "Fatigué"),
    (41, 50, 0, "Broken", "Brisé"), (51, 60, -5, "Weak", "Faible"),
    (61, 70, -5, "Latterity", "Latence"), (71, 73, -5, "Strength disability", "Handicap de Force"),
    (74, 76, -5, "Agility disability", "Handicap d'Agilité"),
    (77, 80, -5, "Physical vulnerability", "Vulnérabilité physique"),
    (81, 83, -5, "Intelligence disability", "Handicap d'Intelligence"),
    (84, 86, -5, "Sagacity disability", "Handicap de Sagacité"),
    (87, 90, -5, "Psychic vulnerability", "Vulnérabilité psychique"),
    (91, 93, -5, "Physical wound", "Blessure physique"),
    (94, 95, -5, "Physical weakness", "Faiblesse physique"),
    (96, 98, -5, "Psychic wound", "Blessure psychique"),
    (99, 100, -5, "Psychic weakness", "Faiblesse psychique"),
    (101, 110, -10, "Paralyzed", "Paralysé"), (111, 116, -10, "Confused", "Confus"),
    (117, 117, -10, "Amputated (Left Leg)", "Jambe gauche amputée"),
    (118, 118, -10, "Amputated (Right Leg)", "Jambe droite amputée"),
    (119, 119, -10, "Amputated (Left Arm)", "Bras gauche amputé"),
    (120, 120, -10, "Amputated (Right Arm)", "Bras droit amputé"),
    (121, 125, -10, "Deaf", "Sourd"), (126, 130, -10, "Mute", "Muet"),
    (131, 135, -10, "Blind", "Aveugle"), (136, 140, -10, "Coma", "Coma"),
    (141, 150, -10, "Bleeding", "Saignement"), (151, 175, -15, "The end is near", "La fin est proche"),
]


def brute_force(seconds, npv, wounds, threshold=176, auto=175):
    """Outcome distribution by rolling each of the 100 faces by hand."""
    out = {row[3]: 0.0 for row in DOC_TABLE} | {"Death": 0.0}
    if seconds >= auto:
        out["Death"] = 1.0
        return out
    for face in range(1, 101):
        total = face + (wounds + 1) * (seconds + npv)
        if total >= threshold:
            out["Death"] += 0.01
            continue
        for low, high, _, en, _ in DOC_TABLE:
            if low <= total <= high or (en == "The end is near" and total >= low):
                out[en] += 0.01
                break
    return out


def test_table_matches_the_document_in_both_languages():
    table = bl.injuries.injury_table()
    assert list(table.itertuples(index=False, name=None)) == DOC_TABLE


def test_worked_examples():
    assert bl.injuries.roll_modifier(seconds=5, negative_hp=3, wounds=0) == 8          # ex. 1
    assert bl.injuries.injury_for_total(45) == "Broken"
    assert bl.injuries.roll_modifier(seconds=40, negative_hp=6, wounds=1) == 92        # ex. 2
    assert bl.injuries.injury_for_total(150) == "Bleeding"
    assert bl.injuries.death_probability(seconds=175, negative_hp=1, wounds=0) == 1    # ex. 3
    assert bl.injuries.dying_outcome(175, 1)["outcome"] == "automatic death"
    assert bl.injuries.injury_for_total(119) == "Amputated (Left Arm)"                 # ex. 4
    assert bl.injuries.find_injury("Amputated (Left Arm)")["modifier"] == -10
    assert bl.injuries.find_injury("Bras gauche amputé")["en"] == "Amputated (Left Arm)"
    assert bl.injuries.find_injury("weak")["modifier"] == -5                            # ex. 5
    assert bl.injuries.injury_for_total(176) == "Death"


def test_issue_examples():
    assert bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1) == pytest.approx(0.17)
    dist = bl.injuries.injury_distribution(seconds=5, negative_hp=3, wounds=0)
    assert list(dist.columns) == ["injury", "injury_fr", "modifier", "probability"]
    assert list(dist["injury"]) == [r[3] for r in DOC_TABLE] + ["Death"]
    assert dist["injury_fr"].iloc[-1] == "Mort"
    assert dist["probability"].sum() == pytest.approx(1)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 200), st.integers(1, 80), st.integers(0, 4))
def test_distribution_matches_brute_force(seconds, npv, wounds):
    exact = brute_force(seconds, npv, wounds)
    dist = bl.injuries.injury_distribution(seconds, npv, wounds).set_index("injury")["probability"]
    assert dict(dist) == pytest.approx(exact, abs=1e-12)
    assert bl.injuries.death_probability(seconds, npv, wounds) == pytest.approx(exact["Death"])


def test_closed_form_of_rules_md():
    d, npv, n = np.meshgrid(np.arange(0, 176), np.arange(1, 51), np.arange(0, 5), indexing="ij")
    k = (n + 1) * (d + npv)
    want = np.where(d >= 175, 1.0, np.clip((k - 75) / 100, 0, 1))
    assert np.allclose(bl.injuries.death_probability(d, npv, n), want)


def test_surface_is_one_call_and_agrees_with_single_calls():
    surface = bl.injuries.injury_surface(np.arange(176), np.arange(1, 51), np.arange(5))
    assert len(surface) == 5 * 176 * 50 * 30
    sums = surface.groupby(["wounds", "seconds", "negative_hp"])["probability"].sum()
    assert np.allclose(sums, 1)
    one = surface.query("wounds == 1 and seconds == 40 and negative_hp == 6")
    assert one["probability"].to_numpy() == pytest.approx(
        bl.injuries.injury_distribution(40, 6, 1)["probability"].to_numpy())
    array = bl.injuries.injury_surface([0, 10], [1, 2, 3], [0], tidy=False)
    assert array.shape == (1, 2, 3, 30)


def test_threshold_variant_moves_only_the_threshold():
    variant = bl.load_rules().updated({"injuries": {"death_threshold": 180}})
    exact = brute_force(40, 6, 1, threshold=180)
    got = bl.injuries.injury_distribution(40, 6, 1, rules=variant).set_index("injury")["probability"]
    assert dict(got) == pytest.approx(exact)
    assert bl.injuries.death_probability(40, 6, 1, rules=variant) == pytest.approx(0.13)


def test_hp_loss_variant_grows_negative_hp():
    variant = bl.load_rules().updated({"injuries": {"hp_loss_per_second": 1}})
    # npv grows to 6 + 40 after 40 s: k = 2 * (40 + 46) = 172
    assert bl.injuries.roll_modifier(40, 6, 1, rules=variant) == 172


def test_dying_outcomes():
    assert bl.injuries.dying_outcome(5, 3, 0, roll=37)["injury"] == "Broken"
    assert bl.injuries.dying_outcome(5, 3, 0, roll=37)["hp"] == 0            # stabilised: 0 HP
    assert bl.injuries.dying_outcome(40, 6, 1, roll=58, heal=10)["hp"] == 10  # healed to h, not h - npv
    assert bl.injuries.dying_outcome(40, 6, 1, roll=84)["outcome"] == "death"
    assert bl.injuries.dying_outcome(40, 6, 1, roll=83)["outcome"] == "injury"


@pytest.mark.parametrize("kwargs, name", [
    (dict(seconds=-1, negative_hp=3), "seconds"), (dict(seconds=5, negative_hp=0), "negative_hp"),
    (dict(seconds=5, negative_hp=-2), "negative_hp"), (dict(seconds=5, negative_hp=3, wounds=-1), "wounds"),
    (dict(seconds="5", negative_hp=3), "seconds"), (dict(seconds=5.5, negative_hp=3), "seconds"),
])
def test_bad_input_names_the_argument(kwargs, name):
    with pytest.raises(ValueError) as info:
        bl.injuries.death_probability(**kwargs)
    assert str(info.value).startswith(name)


def test_unknown_injury_name():
    with pytest.raises(ValueError, match="unknown injury 'Weakk'.*did you mean 'Weak'"):
        bl.injuries.find_injury("Weakk")
