"""A script run in a fresh Python process (what a newly forked helper or a new session sees)."""
import subprocess
import sys


def run_python(script: str) -> list[str]:
    """The words ``script`` prints in a new interpreter (it must succeed within 5 minutes)."""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, check=True)
    return out.stdout.split()
