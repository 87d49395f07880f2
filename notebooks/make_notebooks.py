"""Write the example notebooks (outputs cleared) from the cells below.

Run ``python notebooks/make_notebooks.py`` after editing; the notebooks are plain data, the
test suite executes them (tests/test_notebooks.py).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
%matplotlib inline
import balance as bl
from balance.report import data
rules = bl.load_rules()
rules"""

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {}

NOTEBOOKS["01_tuning_critical_injuries.ipynb"] = [
    ("md", """\
# 01 · Tuning the critical-injury table

A creature at negative HP is dying; when it is stabilised or healed it rolls
`1d100 + (wounds + 1) × (seconds + negative HP)` on the critical-injury table, and a total of
176 or more kills it (core rules, dying and critical injuries). This notebook looks at what the bundled table does, then
tries a variant with the death threshold at 180."""),
    ("code", SETUP),
    ("md", "The table, with the English and French names and each injury's test modifier:"),
    ("code", "bl.injuries.injury_table(rules=rules)"),
    ("md", "**How likely is my character to die if stabilised after 40 s at -6 HP with one "
           "wound?** One line, exact:"),
    ("code", "bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1)"),
    ("md", "The whole picture: death against seconds at negative HP, one curve per wound count "
           "and negative-HP value; the vertical line is the automatic death at 175 s."),
    ("code", """\
surface = data.death_surface(negative_hp=[1, 5, 10], wounds=[0, 1, 2, 3], rules=rules)
bl.plots.death_curves(surface);"""),
    ("md", "What survivors carry: the outcome by severity band (the injury's test modifier), "
           "then the whole table as a heatmap."),
    ("code", """\
bl.plots.injury_bands(surface, negative_hp=5, wounds=1)
bl.plots.injury_heatmap(surface, negative_hp=5, wounds=0, lang="fr");"""),
    ("md", """\
## A variant: death threshold 180

In a notebook a variant is one call, `rules.updated({...})`; the same change as a file is
`balance/rules/variants/death_threshold_180.toml`. Both give the same rules (same fingerprint),
and only the threshold moves."""),
    ("code", """\
variant = rules.updated({"injuries": {"death_threshold": 180}})
from_file = bl.load_rules("death_threshold_180")
assert variant.fingerprint == from_file.fingerprint
variant.fingerprint, bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1, rules=variant)"""),
    ("md", "The two rule sets overlaid (solid: bundled, dashed: threshold 180):"),
    ("code", """\
bundled = data.death_surface(negative_hp=[5], wounds=[0, 1, 2], rules=rules)
moved = data.death_surface(negative_hp=[5], wounds=[0, 1, 2], rules=variant)
bl.plots.compare_death_curves(bundled, moved, names=("176", "180"));"""),
    ("md", "Where the threshold matters, in numbers (percentage points of death removed):"),
    ("code", """\
import numpy as np, pandas as pd
seconds = np.arange(0, rules["injuries"]["automatic_death_seconds"], 10)
frame = pd.DataFrame({
    wounds: 100 * (bl.injuries.death_probability(seconds, 5, wounds, rules=rules)
                   - bl.injuries.death_probability(seconds, 5, wounds, rules=variant))
    for wounds in range(4)}, index=pd.Index(seconds, name="seconds"))
frame.columns.name = "wounds"
frame.round(1).T"""),
    ("md", """\
## Does it matter in play? The rescue simulation

A healer arriving after `10 + 1d20` seconds to a character at `-1d6` HP: death with its 95 %
interval under both rule sets (Monte Carlo, fixed seed, so the notebook gives the same numbers
every run)."""),
    ("code", """\
runs = {name: bl.rescue.simulate(arrival="10+1d20", negative_hp="1d6", wounds=[0, 1, 2, 3],
                                 trials=200_000, seed=1, rules=r, progress=False)
        for name, r in {"176": rules, "180": variant}.items()}
pd.concat({name: sim.extra["death"].query("death == 'total'").set_index("wounds")
           [["probability", "ci_low", "ci_high", "exact"]]
           for name, sim in runs.items()}, axis=1).round(4)"""),
    ("md", "And death against the rescue time, with its band, for the variant:"),
    ("code", """\
wall = variant["injuries"]["automatic_death_seconds"]
curve = bl.rescue.curve(times=range(0, wall + 1, 5), negative_hp="1d6", wounds=[0, 1, 2, 3],
                        trials=200_000, seed=1, rules=variant, progress=False)
bl.plots.rescue_curves(curve, rules=variant);"""),
    ("md", """\
## Tuning live: the injury explorer

`bl.explore.injuries()` puts the state (seconds at negative HP, negative HP, wounds), the death
threshold, the automatic-death time and the whole injury table (each row's bounds and test
modifier, under "injury table") on sliders and a grid. Every change rebuilds the variant with
`rules.updated(...)` and redraws the death curves and the severity bands exactly; a variant the
loader refuses is shown as its one-line error and the explorer keeps the last valid one. Drag a
slider in JupyterLab and the curves follow."""),
    ("code", """\
explorer = bl.explore.injuries(rules=rules)
explorer"""),
    ("md", """\
The same edits from code (what a designer does in the grid): "The end is near" (-15) starts at
146 instead of 151, taking rows from "Bleeding". Edited alone, Bleeding's new end leaves a gap
and is refused; with the next row's start the table tiles 1..175 again."""),
    ("code", """\
explorer.negative_hp.value, explorer.wounds.value, explorer.seconds.value = 5, 1, 20
explorer.cells[-2]["high"].value = 145     # Bleeding: 141..145 -> refused (146..150 in no row)
print(explorer.error)
explorer.cells[-1]["low"].value = 146      # The end is near: 146..175 -> valid
print(explorer.error, explorer.rules["injuries"]["table"][-1])
explorer.figure"""),
    ("md", "What moved, by severity band, at 20 s and -5 HP with one wound (exact):"),
    ("code", """\
harsher = explorer.rules
pd.concat({name: data.severity_bands(data.death_surface(seconds=[20], negative_hp=[5],
                                                        wounds=[1], rules=r))
           .set_index("band")["probability"]
           for name, r in {"bundled": rules, "edited": harsher}.items()}, axis=1)"""),
    ("md", """\
`explorer.save(path)` writes only what differs from the bundled rules (`overwrite=True`
replaces an earlier file); the file loads back to the same rules."""),
    ("code", """\
path = explorer.save("harsher_injuries.toml", overwrite=True)
print(path.read_text()[:300])
assert bl.load_rules(path) == harsher"""),
    ("md", "To share the variant with co-authors, run `balance rules check harsher_injuries.toml` "
           "then `balance report --rules harsher_injuries.toml`."),
]

NOTEBOOKS["02_choosing_a_negotiation_rule.ipynb"] = [
    ("md", """\
# 02 · Choosing a negotiation rule

The seeds hold two price-negotiation rules: the core rules' **Psychology** Test with an ask of
X % (core rules, price negotiation) and the GM guide's **Charisma** check (GM guide, Charisma negotiation). Which one should a
table use? This notebook compares what each gives a player."""),
    ("code", SETUP),
    ("md", "**What should I ask for with Psychology 12?** The outcome of one ask, and the best "
           "ask:"),
    ("code", """\
print(bl.negotiation.ask_outcomes(psychology=12, ask=20))
bl.negotiation.best_ask(psychology=12)"""),
    ("md", "Expected price change against the ask, for several Psychology values; the star "
           "is the best ask. Asking too much backfires: past X/2 the S.P. needed grow faster "
           "than the payoff."),
    ("code", """\
table = data.negotiation_table([6, 10, 14, 18])
bl.plots.negotiation_curves(table);"""),
    ("md", "The Charisma rule of the GM guide: buying a 200 NX item at difficulty 14 with "
           "CHA +2."),
    ("code", "bl.economy.charisma_negotiation(200, charisma=2, difficulty=14)"),
    ("md", """\
## Side by side

Each rule on a common axis: the chance that its check succeeds. Psychology pays little until
the character is good at it (the best ask grows with skill); Charisma pays a flat 25 % on any
success, so even a weak character saves more on average."""),
    ("code", """\
both = data.negotiation_rules_table(price=200, difficulty=14)
bl.plots.negotiation_rules(both);"""),
    ("code", "both.pivot_table(index='check_chance', columns='rule', values='expected_change').round(2).head(12)"),
    ("md", "The same comparison in French, for co-authors:"),
    ("code", "bl.plots.negotiation_rules(both, lang='fr');"),
    ("md", """\
## Checking by simulation

The exact answer has a Monte Carlo twin; at a fixed seed its 95 % interval holds the exact
value."""),
    ("code", """\
sim = bl.negotiation.simulate(psychology=12, ask=16, trials=200_000, seed=1, progress=False)
sim.table, sim.extra["expected_change"]"""),
    ("md", """\
## Tuning the Psychology rule

Make partial successes harder: S.P. >= X/3 instead of X/4 (`partial_divisor = 3`), and see
how the best ask moves."""),
    ("code", """\
import pandas as pd
variant = rules.updated({"negotiation": {"partial_divisor": 3}})
pd.DataFrame({
    "best ask (bundled)": [bl.negotiation.best_ask(p, rules=rules) for p in range(6, 21, 2)],
    "best ask (X/3)": [bl.negotiation.best_ask(p, rules=variant) for p in range(6, 21, 2)],
}, index=pd.Index(range(6, 21, 2), name="psychology"))"""),
    ("md", "The regression tools compare whole rule sets, e.g. `balance diff bundled "
           "charisma_negotiation` or `balance diff bundled my_variant.toml` (see the how-to guide 'Compare variants' in the docs)."),
]

NOTEBOOKS["03_calibrating_encounters.ipynb"] = [
    ("md", """\
# 03 · Calibrating encounters

The GM guide rates an encounter by its **calibration**: the sum of the creatures' adversity
ratios minus the number of PCs, read as a challenge level (GM guide, encounters). Does it predict how
hard the fight is? We simulate fights of the default party (GM guide, creature sheets and fights) and compare."""),
    ("code", SETUP),
    ("md", "The guide's example: a dragon (3/1) and two baby dragons (1/2) against 4 PCs."),
    ("code", "bl.encounters.calibration(['3/1', '1/2', '1/2'], pcs=4)"),
    ("md", "The bestiary at level 5 and the default party:"),
    ("code", "bl.creatures.bestiary(5)"),
    ("md", "One encounter, simulated: rates with their 95 % intervals."),
    ("code", """\
sim = bl.fights.simulate(["Wolf", "Wolf", "Wolf", "Wolf"], level=5, trials=5_000, seed=1)
sim.table[["metric", "estimate", "ci_low", "ci_high"]]"""),
    ("md", """\
## Exploring an encounter live

`bl.explore.encounter()` picks creatures (how many of each) and the party level; each change
runs a few hundred fights at once, and the full count (here 3,000) once the controls stop
moving, with the same seed. Rates are drawn with their 95 % intervals."""),
    ("code", """\
explorer = bl.explore.encounter(["Wolf", "Wolf", "Wolf", "Wolf"], level=5, trials=3_000, seed=1)
explorer"""),
    ("md", "From code: replace two wolves by an ogre, then run the full count at once "
           "(`settle()`, what the explorer does when the slider is released)."),
    ("code", """\
explorer.counts["Wolf"].value = 2
explorer.counts["Ogre"].value = 1
explorer.settle()
print(explorer.readout.value.replace("<b>", "").replace("</b>", ""))
explorer.figure"""),
    ("md", """\
## Calibration against simulated difficulty

Families of encounters built from the bestiary, each at calibrations -3..+3, simulated at
level 5. If calibration predicted difficulty, every family would fall at the same place."""),
    ("code", """\
check = bl.fights.calibration_check(levels=(5,), trials=1_000, seed=1)
ax = bl.plots.calibration_rates(check)
bl.plots.calibration_rates(check, metric="knockout_rate");"""),
    ("code", "check.summary"),
    ("md", "Where the families disagree at the same calibration:"),
    ("code", """\
table = check.table
spread = table.groupby("calibration")["party_win_rate"].agg(["min", "max"])
spread.assign(range=spread["max"] - spread["min"]).round(3)"""),
    ("md", """\
## A variant: the public site's boss ratios

The GM guide's site lists bosses one step higher; the bundled variant `boss_ratios_site`
applies it. Calibrations of encounters with bosses move; the fights do not."""),
    ("code", """\
site = bl.load_rules("boss_ratios_site")
dragon = bl.creatures.creature("Dragon", 5)
dragon_site = bl.creatures.creature("Dragon", 5, rules=site)
dragon.adversity_ratio, dragon_site.adversity_ratio"""),
]

NOTEBOOKS["04_percentile_skills_and_weapons.ipynb"] = [
    ("md", """\
# 04 · Comparing percentile skills and weapons

The percentile rules (a Mythras digest): a d100 roll under the skill, with tiers
(fumble, failure, success, critical), difficulty grades, opposed rolls and duels."""),
    ("code", SETUP),
    ("md", "**What does a 65 % skill give?** Exact tiers, then the same at a Hard grade:"),
    ("code", """\
import pandas as pd
pd.DataFrame({"Standard": bl.percentile.tiers(65), "Hard": bl.percentile.tiers(65, "Hard")})"""),
    ("md", "Success against skill for every grade, and the tiers at one grade:"),
    ("code", """\
tiers = bl.percentile.tier_table(range(1, 201))
bl.plots.grade_curves(tiers)
bl.plots.tier_curves(tiers, grade="Standard", lang="fr");"""),
    ("md", "Opposed rolls: the chance that the first side wins, over both skills."),
    ("code", """\
opposed = data.opposed_table(range(10, 101, 10))
bl.plots.opposed_heatmap(opposed);"""),
    ("md", """\
## Duels

Two identical fighters but for their Combat Style, simulated (95 % bands). How much is a 10 %
edge worth?"""),
    ("code", """\
duels = bl.percentile.duel_table(range(40, 91, 10), trials=2_000, seed=1)
bl.plots.duel_gap(duels);"""),
    ("md", "Weapons against each other at Combat Style 60 (figures assumed, as in Mythras "
           "core): the chance the row weapon wins."),
    ("code", """\
matchups = bl.percentile.weapon_matchups(skill=60, trials=1_000, seed=1)
matchups.pivot_table(index="first_weapon", columns="second_weapon", values="first_wins").round(2)"""),
    ("md", "Derived attributes of rolled humans, exact:"),
    ("code", """\
for attribute in ("action_points", "damage_modifier", "initiative_bonus"):
    bl.plots.attribute_distribution(bl.percentile.human_distribution(attribute))"""),
]


NOTEBOOKS["05_tuning_to_a_target.ipynb"] = [
    ("md", """\
# 05 · Tuning to a target

Designers start from what they want: *stabilising after 40 s at -6 HP with one wound should
kill 10 % of the time*. `bl.tune` answers that backwards question: which rule value gives the
target, what the metric does around it, and a variant file holding only that change. Then:
several targets at once, which values matter most, and adversity ratios refitted to simulated
fights (core rules, critical injuries; GM guide, adversity ratio and calibration)."""),
    ("code", SETUP),
    ("md", "**The target in one line.** The metric is any function of the rules (here the "
           "exact death probability); the value varied is a rules key, searched within its "
           "`[limits]`. Thresholds inside the injury table break a rule: they are skipped, "
           "never evaluated."),
    ("code", """\
metric = lambda rules: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
                                                     rules=rules)
res = bl.tune.solve(metric, target=0.10, vary="injuries.death_threshold")
res"""),
    ("md", "The values tried on the way (bisection, since the metric is monotone):"),
    ("code", """\
near = res.curve[res.curve["value"] <= 200]
ax = near.plot(x="value", y="metric", marker="o", legend=False)
ax.axhline(0.10, color="black", ls="--")
ax.set(xlabel="injuries.death_threshold", ylabel="P(death) at 40 s, -6 HP, 1 wound");"""),
    ("md", "**The variant file**: only what changed. `load_rules` reads it back."),
    ("code", """\
path = res.rules.save("tuned.toml", overwrite=True)
print(path.read_text())
bl.load_rules("tuned.toml") == res.rules"""),
    ("md", "A catalogue metric by name works the same; a Monte Carlo one runs every candidate "
           "from the same seed and answers with the values whose 95 % interval holds the target:"),
    ("code", """\
mc = bl.tune.solve("mc.death@60s,10hp,1w", target=0.5, vary="injuries.death_threshold",
                   trials=20_000, seed=0)
mc.value, mc.interval, mc.ci"""),
    ("md", "**Several targets, several values**: least squares (integer keys rounded, then a "
           "local search), with residuals per target."),
    ("code", """\
fit = bl.tune.fit({"death.p@40s,6hp,1w": 0.10, "death.p@90s,10hp,0w": 0.30},
                  vary=["injuries.death_threshold", "injuries.die"])
fit.values, fit.residuals"""),
    ("md", "**Which values matter?** One at a time, each key 5 % down and up (a tornado chart):"),
    ("code", """\
sens = bl.tune.sensitivity(metric, ["injuries.death_threshold", "injuries.die",
                                    "injuries.automatic_death_seconds"])
bl.plots.tornado(sens)
sens.table[["key", "low", "high", "metric_low", "metric_high", "elasticity"]]"""),
    ("md", "**The variant's report**, against the bundled rules: what it changes first."),
    ("code", """\
report = bl.report.build_report("tuned.toml", out="tuned_report", topics=["changes", "death"],
                                trials=2_000, progress=False, force=True)
print((report / "report.md").read_text()[:1200])"""),
    ("md", """\
## Recalibrating encounters

The guide's calibration orders fights within a kind of encounter but not across kinds
(notebook 03). `bl.encounters.recalibrate` fits one ratio per creature so that one curve of
calibration predicts the party's win rate, and checks it on families the fit never saw. (Small
settings here; the defaults run levels 3, 5 and 8 with 2,000 fights per encounter.)"""),
    ("code", """\
rec = bl.encounters.recalibrate(levels=(5,), trials=400, seed=0)
rec.ratios[["creature", "guide_ratio", "proposed_ratio"]]"""),
    ("code", "rec.check"),
    ("code", """\
held = rec.table[rec.table["split"] == "held-out"]
ax = held.plot.scatter(x="predicted_before", y="party_win_rate", label="guide's ratios")
held.plot.scatter(x="predicted_after", y="party_win_rate", color="C1", label="proposed", ax=ax)
ax.plot([0, 1], [0, 1], color="black", lw=1)
ax.set(xlabel="predicted party win rate", title="held-out encounters, level 5")
rec.save("ratios.toml", overwrite=True);"""),
]


def build(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook(cells=[new_markdown_cell(src, id=f"cell-{i:02d}") if kind == "md"
                             else new_code_cell(src, id=f"cell-{i:02d}")
                             for i, (kind, src) in enumerate(cells)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def main() -> None:
    for name, cells in NOTEBOOKS.items():
        nb = build(name, cells)
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    main()
