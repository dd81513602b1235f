"""The soak tests use the integration suite's fixtures (a private PostgreSQL per session): tests/it's
conftest is loaded as `it_conftest` and its fixtures and helpers are made this conftest's."""
import importlib.util
import sys
from pathlib import Path

IT = Path(__file__).resolve().parent.parent / "it"
sys.path.insert(0, str(IT))
_spec = importlib.util.spec_from_file_location("it_conftest", IT / "conftest.py")
_it = importlib.util.module_from_spec(_spec)
sys.modules["it_conftest"] = _it
_spec.loader.exec_module(_it)
globals().update({k: v for k, v in vars(_it).items() if not k.startswith("__")})
