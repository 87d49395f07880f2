"""The metric catalogue: exact metrics against brute-force enumeration, Monte Carlo ones against
exact answers (5 standard errors, fixed seeds)."""
import math

import numpy as np
import pytest

import balance as bl
from balance.regression import measure, metric
from balance.regression.registry import catalogue

D100 = np.arange(1, 101)
D20 = np.arange(1, 21)


def p_death(seconds, hp, wounds, threshold=176, auto=175):
    """P(death) by enumerating the d100 faces (RULES.md 1.2)."""
    if seconds >= auto:
        return 1.0
    return float(np.mean(D100 + (wounds + 1) * (seconds + hp) >= threshold))


def value(name, rules=None, **kw):
    return measure(rules, metrics=[metric(name)], **kw)[name]


def test_catalogue_names_are_unique_and_well_formed():
    ms = catalogue()
    names = [m.name for m in ms]
    assert len(names) == len(set(names)) and len(names) >= 40
    assert {m.kind for m in ms} == {"exact", "mc"}
    assert all(m.unit and m.description and m.tolerance == 0 for m in ms)
    assert "mc.rescue_death@2d20s,1d10hp,2w" in names


@pytest.mark.parametrize("threshold", [176, 180])
def test_death_points_match_enumeration(threshold):
    rules = bl.load_rules().updated({"injuries": {"death_threshold": threshold}})
    got = measure(rules, metrics=catalogue(only=["death.p@*"]))
    for name, meas in got.items():
        s, hp, w = (int(x[:-len(u)]) for x, u in zip(name.split("@")[1].split(","),
                                                      ("s", "hp", "w")))
        assert meas.value == pytest.approx(p_death(s, hp, w, threshold), abs=1e-12), name


def test_worked_example_point():
    assert value("death.p@40s,6hp,1w").value == pytest.approx(0.17)   # issue 2's example


def test_mean_surface_and_coinflip_by_enumeration():
    s, hp, w = np.meshgrid(np.arange(175), np.arange(1, 21), np.arange(4), indexing="ij")
    k = (w + 1) * (s + hp)
    mean = np.mean(D100[None, None, None, :] + k[..., None] >= 176)
    assert value("death.mean_surface").value == pytest.approx(mean, abs=1e-12)
    first = next(t for t in range(176) if p_death(t, 5, 0) >= 0.5)
    assert value("death.coinflip_seconds@5hp,0w").value == first == 120


def test_d20_success_by_enumeration():
    assert value("d20.success@C8").value == pytest.approx(np.mean(D20 <= 8))


def _psychology_price(psychology=12, price=200):
    best, best_ask = -1.0, None
    for ask in range(1, 60):
        changes = []
        for face in D20:
            sp = psychology - face
            if sp < 0 or 4 * sp < ask:
                changes.append(0)
            elif 2 * sp < ask:
                changes.append(sp)
            else:
                changes.append(ask)
        e = float(np.mean(changes))
        if e > best + 1e-12:
            best, best_ask = e, ask
    return best_ask, price * (1 - best / 100)


def test_negotiation_price_follows_the_rule_key():
    ask, price = _psychology_price()
    assert value("negotiation.best_ask@psy12").value == ask
    assert value("negotiation.price@200NX").value == pytest.approx(price)
    # Charisma (RULES.md 2.6), CHA +2 vs 14 on 200 NX: natural 1 -> 200, natural 20 -> 100,
    # 12..19 succeed -> 150, 2..11 fail -> 200
    expected = (200 + 10 * 200 + 8 * 150 + 100) / 20
    charisma = bl.load_rules("charisma_negotiation")
    assert value("negotiation.price@200NX", charisma).value == pytest.approx(expected) == 175
    assert value("economy.charisma_price@200NX,CHA+2,DC14").value == pytest.approx(expected)
    with pytest.raises(ValueError, match="negotiation.rule"):
        value("negotiation.price@200NX", bl.load_rules().updated({"negotiation": {"rule": "dice"}}))


def test_boss_ratios_guide_and_site_variant():
    guide = [value(f"encounters.boss_ratio.{s}").value for s in ("small", "medium", "large", "huge")]
    site = [value(f"encounters.boss_ratio.{s}", bl.load_rules("boss_ratios_site")).value
            for s in ("small", "medium", "large", "huge")]
    assert guide == [1, 2, 3, 4]                         # the guide's own examples (RULES.md 2.4)
    assert site == [g + 1 for g in guide]                # one ladder step higher


def test_mc_death_point_agrees_with_exact():
    m = value("mc.death@60s,10hp,1w", trials=200_000, seed=11)
    p = p_death(60, 10, 1)
    assert m.trials == 200_000 and m.counts[0] == round(m.value * m.trials)
    assert abs(m.value - p) < 5 * math.sqrt(p * (1 - p) / m.trials)
    assert m.interval[0] < m.value < m.interval[1]


def _rescue_exact(threshold=176):
    s = (D20[:, None] + D20[None, :]).ravel()            # 2d20, 400 equally likely pairs
    hp = np.arange(1, 11)                                # 1d10
    k = 3 * (s[:, None] + hp[None, :])                   # 2 wounds
    return float(np.mean(D100[None, None, :] + k[..., None] >= threshold))


def test_mc_rescue_death_agrees_with_enumeration_and_severity_sums():
    m = value("mc.rescue_death@2d20s,1d10hp,2w", trials=200_000, seed=3)
    p = _rescue_exact()
    assert abs(m.value - p) < 5 * math.sqrt(p * (1 - p) / m.trials)
    bands = value("mc.rescue_severity@2d20s,1d10hp,2w", trials=50_000, seed=3)
    assert sum(bands.counts) == 50_000 and bands.labels[-1] == "death"


def test_process_metrics_agree_with_enumeration():
    # rescue: arrival 10 + 2d20, +1 s to charge a 1 A.P. Support action, at -1d6 HP
    s = 10 + (D20[:, None] + D20[None, :]).ravel() + 1
    hp = np.arange(1, 7)
    for w in (1, 2):
        k = (w + 1) * (s[:, None] + hp[None, :])
        p = float(np.mean(D100[None, None, :] + k[..., None] >= 176))
        m = value(f"rescue.death@10+2d20s,1d6hp,{w}w", trials=100_000, seed=5)
        assert abs(m.value - p) < 5 * math.sqrt(p * (1 - p) / m.trials), w


def test_measurements_depend_on_the_seed_only():
    names = ["mc.*", "rescue.*", "duel.*"]
    one = measure(None, metrics=catalogue(only=names), trials=3000, seed=9)
    two = measure(None, metrics=catalogue(only=names), trials=3000, seed=9)
    three = measure(None, metrics=catalogue(only=names), trials=3000, seed=10)
    assert one == two
    assert any(one[n].counts != three[n].counts for n in one)


def test_metric_streams_are_independent_of_catalogue_order():
    alone = measure(None, metrics=catalogue(only=["mc.death@*"]), trials=2000, seed=4)
    together = measure(None, metrics=catalogue(only=["mc.*"]), trials=2000, seed=4)
    name = "mc.death@60s,10hp,1w"
    assert alone[name] == together[name]


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="metric must be a catalogue name.*did you mean"):
        metric("death.p@40s,6hp,1")
    with pytest.raises(ValueError, match="only: no metric matches"):
        catalogue(only=["nothing.*"])
    with pytest.raises(ValueError, match="tolerance: no metric matches"):
        catalogue(tolerances={"deth.*": 0.1})
    with pytest.raises(ValueError, match="trials"):
        measure(None, trials=0)


def test_delayed_rescue_sampler_handles_automatic_death():
    """Rescue after 165+1d20 s at -1d4 HP, no wound: 175 s and later is death without a roll."""
    from functools import partial

    from balance import montecarlo
    from balance.regression.core_metrics import delayed_rescue_sampler
    rules = bl.load_rules()
    res = montecarlo.run(partial(delayed_rescue_sampler, arrival="165+1d20", negative_hp="1d4",
                                 wounds=0, rules=rules), 100_000, seed=8)
    s = 165 + D20[:, None]
    hp = np.arange(1, 5)[None, :]
    death = np.where(s >= 175, 1.0, ((D100[None, None, :] + (s + hp)[..., None]) >= 176).mean(-1))
    p = float(death.mean())
    got = res.totals["rows"][-1] / res.trials
    assert res.totals["rows"].sum() == res.trials
    assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / res.trials)


def test_recovery_metrics_by_hand():
    # light treatment of Weak (-5), Cunning 12 +2: C' = 9 -> 9/20 (core rules example 5)
    assert value("treatment.chance@C12,Weak,light").value == pytest.approx(9 / 20)
    # full treatment of Bleeding (-10): p = 2/20; attempt k succeeds after (k-1) days + 1 h
    p = 2 / 20
    minutes = sum(p * (1 - p) ** (k - 1) * ((k - 1) * 1440 + 60) for k in range(1, 2000))
    assert value("treatment.days_to_cure@C12,Bleeding").value == pytest.approx(minutes / 1440)
    assert value("rest.regeneration@adequate,8h").value == 8 * 15
    assert value("rest.days@300HP,poor").value == math.ceil(math.ceil(300 / 10) / 12)
    # a trigger every second, cooldown 8: answered at 0, 8, ..., 56
    assert value("time.reactions@60s").value == len(range(0, 60, 8))
