"""A private source database per test module: created through the admin connection, read by a
role of its own through TCP with a password, exactly as floe reads a real source."""
import json
import os
import secrets
import subprocess
import time
from pathlib import Path

import psycopg

from conftest import FLOE, floe

# A trigger function that proves `updated_at` a watermark: attach it with
# CREATE TRIGGER touch BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION touch().
TOUCH = '''
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := clock_timestamp();
    RETURN NEW;
END $$;
'''


class Source:
    def __init__(self, stack, name, role):
        self.stack = stack
        self.name = name
        self.role = role
        self.password = f"pw-{name}-" + secrets.token_hex(8)
        self.admin_dsn = stack["admin"].replace("dbname=shop", f"dbname={name}")

    @classmethod
    def readable(cls, stack, name, role, sql, schemas=("public",), options=""):
        """A fresh database made by `sql`, its role allowed to read `schemas`; `options` go to
        CREATE DATABASE (e.g. an encoding)."""
        s = cls(stack, name, role)
        s.create(sql, options)
        s.grant_read(*schemas)
        return s

    def create(self, sql, options=""):
        with psycopg.connect(self.stack["admin"], autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.name}" {options}')
            if conn.execute("select 1 from pg_roles where rolname = %s", (self.role,)).fetchone():
                conn.execute(f'DROP OWNED BY "{self.role}"')
                conn.execute(f'DROP ROLE "{self.role}"')
            conn.execute(f'CREATE ROLE "{self.role}" LOGIN PASSWORD \'{self.password}\'')
        self.admin(sql)

    @property
    def target(self):
        """This database as `floe shop --target` takes it (the stack's socket)."""
        return f"{self.stack['socket_dir']}:{self.stack['port']}/{self.name}"

    def shop(self, scale="0.01", seed="7", sql=""):
        """A fresh database made by `sql`, then filled by `floe shop generate` (not yet readable:
        grant_read after)."""
        self.create(sql)
        floe("shop", "generate", "--scale", scale, "--seed", seed, "--target", self.target, check=0)
        return self

    def grant_read(self, *schemas):
        """USAGE on `schemas` and SELECT on every table in them, for this source's role."""
        names = ", ".join('"' + s.replace('"', '""') + '"' for s in schemas)
        self.admin(f"GRANT USAGE ON SCHEMA {names} TO {self.role}")
        self.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA {names} TO {self.role}")

    def generated(self, directory: Path, schemas=("public",)):
        """A project on this source in `directory`, initialised, its pipeline generated."""
        self.project(directory, schemas=schemas)
        self.floe(directory, "init", check=0)
        self.floe(directory, "generate", check=0)
        return directory

    def admin(self, sql, params=None):
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            return conn.execute(sql, params)

    def reader(self):
        return psycopg.connect(host="127.0.0.1", port=self.stack["port"], dbname=self.name,
                               user=self.role, password=self.password, autocommit=True)

    def project(self, directory: Path, schemas=("public",), extra=""):
        toml = (f'[project]\nname = "{self.name}"\n\n[source]\nhost = "127.0.0.1"\n'
                f'port = {self.stack["port"]}\ndatabase = "{self.name}"\nuser = "{self.role}"\n'
                f'schemas = {json.dumps(list(schemas), ensure_ascii=False)}\n{extra}')
        (directory / "floe.toml").write_text(toml)
        return directory

    def floe(self, directory, *args, check=None, env=None):
        full = {"FLOE_SOURCE_PASSWORD": self.password}
        full.update(env or {})
        return floe("-C", str(directory), *args, env=full, check=check)

    def start_load(self, directory, table, bronze):
        """`floe run --table table` in the background, returned once it holds the table's load lock."""
        env = dict(os.environ, FLOE_SOURCE_PASSWORD=self.password)
        proc = subprocess.Popen([FLOE, "-C", str(directory), "run", "--table", table], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lock = directory / ".floe" / "locks" / f"{bronze}.lock"
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None and not (lock.exists() and lock.read_text()):
            time.sleep(0.01)
        return proc

    def plan(self, directory, *args):
        r = self.floe(directory, "plan", "--json", *args, check=0)
        return {(t["schema"], t["table"]): t for t in json.loads(r.out)["tables"]}

    def run_extraction(self, sql, session):
        """Run a generated extraction query as the reader, under the lock's session settings."""
        with self.reader() as conn:
            for name, value in session.items():
                conn.execute("select set_config(%s, %s, false)", (name, value))
            cur = conn.execute(sql)
            return [d.name for d in cur.description], cur.fetchall()
