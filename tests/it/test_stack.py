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
