"""Fixtures of the streaming suite (`make streams`): one real Kafka broker for the session."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "it"))
import kafkakit  # noqa: E402


@pytest.fixture(scope="session")
def broker(tmp_path_factory):
    b = kafkakit.Broker(str(tmp_path_factory.mktemp("kafka")), partitions=3).start()
    yield b
    b.stop()


@pytest.fixture(scope="session")
def floe_bin():
    return os.environ.get("FLOE_BIN", str(Path(__file__).parents[2] / "build" / "floe"))


@pytest.fixture(scope="session")
def tools():
    return Path(os.environ.get("FLOE_TOOLS", str(Path(__file__).parents[2] / "build" / "tools")))
