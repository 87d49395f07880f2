"""Plots of ``balance`` results (matplotlib). Every function takes results (tidy frames or
:class:`balance.results.Simulation`), an optional ``ax`` and ``lang="en"|"fr"``, and returns the
axes. Plots never simulate: they draw what they are given.

>>> import balance as bl
>>> ax = bl.plots.negotiation_curves(bl.report.data.negotiation_table([12]), lang="fr")
>>> ax.get_xlabel()
'Demande X (%)'
"""
from __future__ import annotations

from ._style import PALETTE
from .core import (compare_death_curves, d20_success, death_curves, injury_bands, injury_heatmap, mc_check,
                   negotiation_curves, negotiation_rules, sp_distribution, treatment_curves)
from .encounters import calibration_rates
from .intervals import interval_curves
from .percentile import (attribute_distribution, duel_gap, grade_curves, opposed_heatmap,
                         tier_curves)
from .processes import campaign_deaths, knockout_risk, rescue_curves, wound_burden
from .recovery import reaction_grid, rest_regeneration
from .tuning import tornado

__all__ = ["PALETTE", "death_curves", "compare_death_curves", "injury_bands", "injury_heatmap", "d20_success",
           "sp_distribution", "treatment_curves", "negotiation_curves", "negotiation_rules",
           "mc_check",
           "interval_curves", "rescue_curves", "campaign_deaths", "wound_burden",
           "knockout_risk", "tier_curves", "grade_curves", "opposed_heatmap", "duel_gap",
           "attribute_distribution", "calibration_rates", "rest_regeneration", "reaction_grid",
           "tornado", "save"]


def save(ax, path, **options) -> None:
    """Save the figure of ``ax`` (PNG or SVG by the file's suffix), atomically.

    ``path`` must be absent or a regular file: a folder, FIFO or device is refused with a
    one-line ``ValueError`` (:func:`balance._atomic.check_output_file`).
    """
    import io
    import os
    from pathlib import Path

    from .._atomic import check_output_file, write_file
    from ._style import printable
    if not isinstance(path, (str, os.PathLike)):  # a file object: matplotlib writes it
        printable(ax.figure)
        ax.figure.savefig(path, dpi=options.pop("dpi", 110), **options)
        return
    path = check_output_file("path", path)
    printable(ax.figure)
    buffer = io.BytesIO()
    fmt = options.pop("format", None) or Path(path).suffix[1:].lower() or None
    ax.figure.savefig(buffer, format=fmt, dpi=options.pop("dpi", 110), **options)
    write_file(path, buffer.getvalue(), what="path")
