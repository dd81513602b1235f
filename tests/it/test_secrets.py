"""A planted password must appear in no file of the project, no log line, no output."""
from pathlib import Path

from conftest import OUTPUTS, floe

PLANTED = "Planted-Secret-9f3e1c77"


def scan_tree(root: Path, needle: bytes):
    hits = []
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            try:
                if needle in p.read_bytes():
                    hits.append(str(p))
            except PermissionError:
                hits.append(f"unreadable: {p}")
    return hits


def test_planted_password_never_leaks(project):
    env = {"FLOE_SOURCE_PASSWORD": PLANTED}
    start = len(OUTPUTS.texts)
    try:
        floe("stack", "up", "--database", "shop", "--reader", "floe_reader", cwd=project, env=env, check=0)
        port = __import__("json").loads(floe("stack", "status", "--json", cwd=project).out)["port"]
        floe("init", "--source", f"127.0.0.1:{port}/shop", "--source-user", "floe_reader",
             str(project), env=env, check=0)
        floe("-C", str(project), "-v", "-v", "doctor", env=env, check=0)
        floe("-C", str(project), "--log-json", "doctor", "--json", env=env, check=0)
        floe("-C", str(project), "-v", "-v", "plan", "--json", env=env, check=0)
        floe("-C", str(project), "-v", "generate", env=env, check=0)  # pipeline/ is scanned below
        # a failing connection quotes libpq's message: still no password
        floe("init", "--source", "127.0.0.1:1/shop", str(project / "other"), env=env, check=0)
        floe("-C", str(project / "other"), "-v", "doctor", env=env, check=1)
        # a wrong user: authentication fails, the message must not echo the password
        bad = project / "floe.toml"
        text = bad.read_text()
        bad.write_text(text.replace('user = "floe_reader"', 'user = "nobody"'))
        floe("-C", str(project), "doctor", env=env, check=1)
        bad.write_text(text)
    finally:
        floe("stack", "down", cwd=project)
    outputs = OUTPUTS.texts[start:]
    assert len(outputs) >= 7
    assert not [o for o in outputs if PLANTED in o]
    assert scan_tree(project, PLANTED.encode()) == []
