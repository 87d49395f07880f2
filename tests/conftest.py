"""Shared pytest configuration."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "notebooks: executes the example notebooks with nbclient (runs by default; "
                   "deselect with -m 'not notebooks')")
