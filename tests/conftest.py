"""Shared pytest configuration and fixtures."""
import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "notebooks: executes the example notebooks with nbclient (runs by default; "
                   "deselect with -m 'not notebooks')")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> str:
    """A small snapshot (one cheap metric, 200 trials) for tests that need a valid baseline."""
    from cli_run import in_process
    from cli_table import ONE_METRIC

    path = tmp_path_factory.mktemp("baseline") / "base.json"
    code, _, err = in_process("snapshot", "--out", path, "--trials", "200", "--only", ONE_METRIC)
    assert code == 0, err
    return str(path)
