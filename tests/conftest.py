"""Shared pytest configuration and fixtures."""
import gc

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "notebooks: executes the example notebooks with nbclient (runs by default; "
                   "deselect with -m 'not notebooks')")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collect without the cyclic garbage collector, then freeze what collection built.

    Collecting imports every test module and the whole package (doctests), rewriting the tests'
    asserts: millions of short-lived AST nodes, each batch of which made Python's full
    collections walk the ever larger heap of everything imported so far (some 4 s of a worker's
    ~15 s of collection). Freezing (``gc.freeze``) moves the modules, functions and test items
    collection built out of later full collections, which only they made expensive; what the
    tests themselves allocate is collected as usual."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> str:
    """A small snapshot (one cheap metric, 200 trials) for tests that need a valid baseline."""
    from cli_run import in_process
    from cli_table import ONE_METRIC

    path = tmp_path_factory.mktemp("baseline") / "base.json"
    code, _, err = in_process("snapshot", "--out", path, "--trials", "200", "--only", ONE_METRIC)
    assert code == 0, err
    return str(path)


def _once(root, name: str, make):
    """``make()`` computed once for the whole run: under pytest-xdist the first worker to ask
    computes it while holding a lock and pickles it into the run's shared temporary folder;
    the others wait for the lock and load it. Alone (-n 0), simply ``make()``."""
    import fcntl
    import pickle

    if root is None:
        return make()
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = root / f"{name}.pickle"
        if data.is_file():
            return pickle.loads(data.read_bytes())
        value = make()
        data.write_bytes(pickle.dumps(value))
        return value


class DefaultReport:
    """The bundled rules' report (every section, :data:`TRIALS` trials, seed :data:`SEED`),
    computed and drawn once for the whole run and shared by test_report, test_report_findings
    and test_report_browser: ``folder(lang)`` (index.html, report.md, figures/; English by
    :func:`balance.report.build_report` itself), ``bundle()``, ``sections(lang)``,
    ``html(lang)``, ``markdown(lang)``."""

    TRIALS, SEED = 2_000, 7

    def __init__(self, root, local):
        self.root, self.local, self.memo = root, local, {}

    def _get(self, name: str, make):
        if name not in self.memo:
            self.memo[name] = _once(self.root, name, make)
        return self.memo[name]

    def _built(self) -> dict:
        """``build_report`` of the English report, keeping what it computed and drew."""
        from unittest import mock

        import balance as bl
        from balance.report import build

        kept = {}

        def keep(name, real):
            def spy(*args, **kwargs):
                kept[name] = real(*args, **kwargs)
                return kept[name]
            return spy

        with mock.patch.object(build, "compute_bundle", keep("bundle", build.compute_bundle)), \
                mock.patch.object(build, "render_sections",
                                  keep("sections", build.render_sections)):
            folder = bl.report.build_report(out=(self.root or self.local) / "default-en",
                                            trials=self.TRIALS, seed=self.SEED, progress=False)
        return {"folder": folder, **kept}

    def bundle(self):
        return self._get("default-report", self._built)["bundle"]

    def sections(self, lang: str):
        if lang == "en":
            return self._get("default-report", self._built)["sections"]
        from balance.report.sections import render_sections

        return self._get(f"default-sections-{lang}", lambda: render_sections(self.bundle(), lang))

    def meta(self, lang: str) -> dict:
        from balance.report.build import report_meta

        return report_meta(self.bundle(), lang)

    def html(self, lang: str) -> str:
        from balance.report.html import render_html

        return render_html(self.sections(lang), self.meta(lang), lang)

    def markdown(self, lang: str) -> str:
        from balance.report.markdown import render_markdown

        return render_markdown(self.sections(lang), self.meta(lang), lang)[0]

    def folder(self, lang: str):
        """The report's folder, as ``balance report`` writes it."""
        if lang == "en":
            return self._get("default-report", self._built)["folder"]

        def write():
            from balance.report.build import write_report
            from balance.report.markdown import render_markdown

            markdown, figures = render_markdown(self.sections(lang), self.meta(lang), lang)
            return write_report((self.root or self.local) / f"default-{lang}",
                                {"index.html": self.html(lang), "report.md": markdown,
                                 **figures})
        return self._get(f"default-folder-{lang}", write)


@pytest.fixture(scope="session")
def default_report(tmp_path_factory) -> DefaultReport:
    """The bundled rules' report, computed once for the run (see :class:`DefaultReport`)."""
    import os

    import matplotlib

    matplotlib.use("Agg")
    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") \
        else None
    return DefaultReport(shared, tmp_path_factory.mktemp("default-report"))
