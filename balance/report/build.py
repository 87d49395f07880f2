"""``balance report``: compute a bundle, render it, write ``index.html``, ``report.md`` and the
figures into one folder, atomically (built in a temporary folder beside the target, then
swapped in; a failed run leaves the previous report, or nothing, in place). The folder must be
absent, empty or an earlier report (:mod:`balance.report.folder`), checked before any work."""
from __future__ import annotations

import re
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

from ..rules import Rules, resolve
from .bundle import DEFAULT_SEED, DEFAULT_TRIALS, Bundle, compute_bundle
from .folder import check_report_folder, write_report_folder
from .html import render_html
from ..labels import check_lang, count, decimal, sources, text
from .markdown import render_markdown
from .sections import render_sections
from .topics import available_topics

__all__ = ["build_report", "write_report", "report_name", "report_meta", "compute_parallel"]

#: the sections' relative cost (compute and draw), largest first into the worker processes
COST = {"variants": 8, "changes": 4, "encounters": 3, "campaign": 3, "percentile": 2,
        "duels": 2, "injuries": 1, "treatment": 1, "rescue": 1}


#: the folder name of a rules file whose stem leaves nothing usable (``..toml``, ``...toml``)
FALLBACK_NAME = "variant"


def report_name(rules_file: str | Path | None) -> str:
    """``reports/<name>``: the rules file's stem, or ``"default"`` for the bundled rules.

    The stem is made a plain folder name: characters other than letters, digits and
    ``_ - + .`` become ``_``, leading and trailing dots and spaces go (so ``..toml`` or
    ``...toml`` can never name ``reports/`` or its parent), at most 100 characters;
    :data:`FALLBACK_NAME` when nothing is left.
    """
    if not rules_file:
        return "default"
    name = re.sub(r"[^\w.+-]", "_", Path(rules_file).stem)[:100].strip(". ")
    return name or FALLBACK_NAME


def write_report(out: str | Path, files: Mapping[str, bytes | str], *, force: bool = False,
                 what: str | None = "out") -> Path:
    """Write the report's ``files`` (relative path -> content) and its marker into the folder
    ``out`` (absent, empty or an earlier report; with ``force`` among other files, replacing
    only the report's own), atomically: a failed run leaves the previous report, or nothing,
    in place (:func:`balance.report.folder.write_report_folder`)."""
    return write_report_folder(out, files, force=force, what=what)


def report_meta(bundle: Bundle, lang: str, *, elapsed: float | None = None
                ) -> dict[str, object]:
    """The header rows of a report: title, rules, fingerprint, sources, settings, date."""
    s = bundle.settings
    meta: dict[str, object] = {
        "title": text("report_title", lang),
        text("fingerprint", lang): bundle.rules.fingerprint,
        text("sources", lang): sources(bundle.rules.sources, lang),
        "Monte Carlo": text("mc_settings", lang, trials=count(s.trials, lang), seed=s.seed,
                            workers=s.workers),
        text("generated", lang): datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if elapsed is not None:
        meta[text("build_time", lang)] = f"{decimal(elapsed, 1, lang)} s"
    meta["missing"] = list(bundle.missing)
    return meta


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _topic_job(key: str, rules: Rules, settings, lang: str):
    """Compute and draw one section in a worker process: (key, results, section, seconds)."""
    import dataclasses

    from .sections import render_topic
    from .topics import Context, topic_module

    start = time.perf_counter()
    results = topic_module(key).compute(rules, dataclasses.replace(settings, workers=1))
    seconds = time.perf_counter() - start
    section = render_topic(key, results, Context(rules=rules, settings=settings, lang=lang))
    return key, results, section, seconds


def compute_parallel(rules: Rules | str | Path | None, lang: str = "en", *,
                     trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED, workers: int = 2,
                     topics=None, baseline=None, on_step=None) -> tuple[Bundle, dict]:
    """Compute and draw every section in ``workers`` forked processes, the costliest first.

    Each section runs its Monte Carlo parts in its own process from the report's seed, so the
    numbers are those of :func:`compute_bundle` (the engine's results do not depend on the
    number of processes). Returns the bundle (results in report order) and the sections by key.
    """
    import dataclasses
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from .bundle import empty_bundle

    bundle, modules = empty_bundle(rules, trials=trials, seed=seed, workers=workers,
                                   topics=topics, baseline=baseline)
    keys = [m.KEY for m in modules]
    # the comparison with the baseline (a snapshot holds functions: it does not cross
    # processes) runs here while the workers draw the rest, which never read the baseline
    here = [k for k in keys if k == "changes"]
    order = sorted((k for k in keys if k not in here), key=lambda k: -COST.get(k, 0))
    plain = dataclasses.replace(bundle.settings, baseline=None)
    found, rendered = {}, {}
    with ProcessPoolExecutor(max_workers=max(1, min(workers, len(order))),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        jobs = [pool.submit(_topic_job, k, bundle.rules, plain, lang) for k in order]
        done = [_topic_job(k, bundle.rules, bundle.settings, lang) for k in here]
        for key, results, section, seconds in done:
            found[key], rendered[key] = results, section
            bundle.seconds[key] = seconds
            if on_step is not None:
                on_step(key)
                on_step(key)
        for job in as_completed(jobs):
            key, results, section, seconds = job.result()
            found[key], rendered[key] = results, section
            bundle.seconds[key] = seconds
            if on_step is not None:
                on_step(key)
                on_step(key)
    bundle.results = {k: found[k] for k in keys}
    return bundle, rendered


def build_report(rules: Rules | str | Path | None = None, *, out: str | Path | None = None,
                 lang: str = "en", trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                 workers: int = 1, progress: bool | None = None, topics=None,
                 force: bool = False, what: str | None = "out", baseline=None) -> Path:
    """Build the balance report of ``rules`` into ``out`` (default ``reports/<name>``).

    Parameters
    ----------
    rules : Rules, path or None
        A variant file (its stem names the report) or a Rules object; None: bundled rules.
    lang : {"en", "fr"}
    trials, seed : int
        For every Monte Carlo figure.
    workers : int
        Processes: with more than one, the sections are computed and drawn side by side, each
        in one process (the same numbers as with one: each section runs from the report's
        seed).
    progress : bool, optional
        A tqdm bar; None shows it only in an interactive terminal.
    topics : list of str, optional
        Only these sections (see :data:`balance.report.topics.TOPICS`).
    force : bool
        Write into a folder holding other files, replacing only the report's own files.
    what : str
        How error messages name ``out`` and ``force`` (default ``"out"``) (the command line passes ``"--out"``,
        so its messages say ``--out DIR`` and ``--force``).
    baseline : Rules, path, Snapshot or None
        What a variant is compared with (default: the bundled rules): rules, a rules file or a
        regression snapshot (``.json``). The report then opens with what changed.

    Raises
    ------
    ValueError
        Before any work, when ``out`` is not absent, empty or an earlier report (and not
        ``force``), or is not a folder at all (:func:`balance.report.folder.check_report_folder`).

    Returns
    -------
    Path
        The report folder, holding ``index.html``, ``report.md`` and ``figures/``.
    """
    from tqdm.auto import tqdm

    lang = check_lang(lang)
    name = report_name(rules if isinstance(rules, (str, Path)) else None)
    rules = resolve(rules)
    out = Path("reports") / name if out is None else Path(out)
    check_report_folder(out, force=force, what=what)
    start = time.perf_counter()
    modules, _ = available_topics(topics)
    disable = None if progress is None else not progress
    keys = [m.KEY for m in modules]
    plan = [f"computing {k}" for k in keys] + [f"drawing {k}" for k in keys] + ["writing"]
    with tqdm(total=len(plan), desc="balance report", unit="step", disable=disable,
              leave=False) as bar:
        bar.set_postfix_str(plan[0])

        def step(key: str) -> None:
            bar.update()
            bar.set_postfix_str(plan[min(bar.n, len(plan) - 1)])

        if workers > 1 and len(modules) > 1 and _can_fork():
            bundle, rendered = compute_parallel(rules, lang, trials=trials, seed=seed,
                                                workers=workers, topics=topics,
                                                baseline=baseline, on_step=step)
            sections = render_sections(bundle, lang, rendered=rendered)
        else:
            bundle = compute_bundle(rules, trials=trials, seed=seed, workers=workers,
                                    topics=topics, on_step=step, baseline=baseline)
            sections = render_sections(bundle, lang, on_step=step)
        meta = report_meta(bundle, lang, elapsed=time.perf_counter() - start)
        page = render_html(sections, meta, lang)
        markdown, figures = render_markdown(sections, meta, lang)
        path = write_report(out, {"index.html": page, "report.md": markdown, **figures},
                            force=force, what=what)
        bar.update()
    return path
