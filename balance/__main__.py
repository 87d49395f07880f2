"""``python -m balance ...`` is the ``balance`` command (for when the script is not on PATH)."""
import sys

from .cli import main

sys.exit(main())
