"""`floe stack`: a private cluster under the project, as an unprivileged user."""
import json
import os

from conftest import floe


def test_status_reports_a_running_cluster(stack):
    info = json.loads(floe("stack", "status", "--json", cwd=stack["dir"], check=0).out)
    assert info["running"] and info["port"] == stack["port"]
    assert info["socket_dir"] == str(stack["dir"] / ".floe" / "pg" / "run")
    if os.geteuid() == 0:
        assert info["os_user"] == "postgres"


def test_up_is_idempotent_and_prints_how_to_connect(stack):
    r = floe("stack", "up", cwd=stack["dir"], check=0)
    assert f"127.0.0.1:{stack['port']}" in r.out and "psql -h" in r.out, r


def test_down_and_up_keeps_the_port_and_data(project):
    r = floe("stack", "up", "--database", "keep", cwd=project, check=0)
    port = json.loads(floe("stack", "status", "--json", cwd=project).out)["port"]
    try:
        assert floe("stack", "down", cwd=project, check=0)
        st = floe("stack", "status", cwd=project)
        assert st.rc == 1 and "stopped" in st.out, st
        floe("stack", "up", cwd=project, check=0)
        info = json.loads(floe("stack", "status", "--json", cwd=project).out)
        assert info["running"] and info["port"] == port
        import psycopg
        with psycopg.connect(f"host={info['socket_dir']} port={port} user=postgres dbname=keep"):
            pass
    finally:
        floe("stack", "down", cwd=project)
    assert floe("stack", "destroy", cwd=project).rc == 0
    assert not (project / ".floe" / "pg").exists()


def test_reader_needs_a_password(project):
    env = {"FLOE_SOURCE_PASSWORD": ""}
    r = floe("stack", "up", "--reader", "r", cwd=project, env=env)
    try:
        assert r.rc == 2 and "FLOE_SOURCE_PASSWORD" in r.err, r
    finally:
        floe("stack", "down", cwd=project)


def test_unknown_action(project):
    r = floe("stack", "sideways", cwd=project, check=2)
    assert "up, down, status or destroy" in r.err


def held_port():
    """A listening socket on a kernel-chosen loopback port: (socket, port)."""
    import socket
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


def test_a_named_port_in_use_is_refused_not_swapped(project):
    sock, port = held_port()
    try:
        r = floe("stack", "up", "--port", str(port), cwd=project)
        assert r.rc == 2 and f"port {port} on 127.0.0.1 is in use" in r.err and "--port" in r.err, r
        st = json.loads(floe("stack", "status", "--json", cwd=project).out)
        assert not st["running"], st
    finally:
        sock.close()
        floe("stack", "down", cwd=project)


def test_a_kept_port_in_use_moves_and_says_so(project):
    floe("stack", "up", cwd=project, check=0)
    try:
        kept = json.loads(floe("stack", "status", "--json", cwd=project).out)["port"]
        floe("stack", "down", cwd=project, check=0)
        import socket
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", kept))
        sock.listen()
        try:
            r = floe("stack", "up", cwd=project, check=0)
            now = json.loads(floe("stack", "status", "--json", cwd=project).out)["port"]
            assert now != kept and f"port {kept}" in r.err and f"now listens on {now}" in r.err, r
            assert f"127.0.0.1:{now}" in r.out, r
        finally:
            sock.close()
    finally:
        floe("stack", "down", cwd=project)
