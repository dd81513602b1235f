"""The soak tests use the integration suite's fixtures (a private PostgreSQL per session)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "it"))

from conftest import *  # noqa: E402,F401,F403  (fixtures: stack, …)
