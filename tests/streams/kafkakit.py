"""A real single-node Apache Kafka broker (KRaft, combined broker+controller) on loopback for the
streaming tests: jars from scripts/kafka-broker.sh (Maven Central, checksummed), Java from the machine."""
import os
import socket
import subprocess
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def broker_lib():
    out = subprocess.run([os.path.join(ROOT, "scripts", "kafka-broker.sh"), "fetch"], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


LOG4J = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN"><Appenders><File name="f" fileName="{log}"><PatternLayout pattern="%d %p %c: %m%n"/></File></Appenders>
<Loggers><Root level="WARN"><AppenderRef ref="f"/></Root></Loggers></Configuration>
"""


class Broker:
    def __init__(self, workdir, partitions=3):
        self.dir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.port, self.controller = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.lib = broker_lib()
        self.props = os.path.join(workdir, "server.properties")
        with open(self.props, "w") as f:
            f.write("\n".join([
                "process.roles=broker,controller", "node.id=1",
                f"controller.quorum.voters=1@127.0.0.1:{self.controller}",
                f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller}",
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                f"log.dirs={workdir}/data", f"num.partitions={partitions}", "auto.create.topics.enable=true",
                "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1", "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1", "group.initial.rebalance.delay.ms=0",
                "offsets.topic.num.partitions=1", ""]))
        with open(os.path.join(workdir, "log4j2.xml"), "w") as f:
            f.write(LOG4J.format(log=os.path.join(workdir, "broker.log")))
        self.proc = None

    def java(self, main, *args, **kw):
        cmd = ["java", "-Xmx512m", "-XX:+UseSerialGC", f"-Dlog4j2.configurationFile={self.dir}/log4j2.xml",
               "-cp", f"{self.lib}/*", main, *args]
        return cmd

    def start(self, timeout=90):
        subprocess.run(self.java("kafka.tools.StorageTool", "format", "-t", uuid.uuid4().hex[:22], "-c", self.props),
                       check=True, capture_output=True)
        self.out = open(os.path.join(self.dir, "stdout.log"), "w")
        self.proc = subprocess.Popen(self.java("kafka.Kafka", self.props), stdout=self.out, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("kafka broker exited: " + open(os.path.join(self.dir, "stdout.log")).read()[-2000:])
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("kafka broker did not listen in time")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def write_project(d, broker, topics, group="floe", max_batch=100000):
    """A Kafka-only floe project in `d`: `topics` is a list of dicts of [[kafka.topics]] keys whose
    values are TOML text (quoted strings, inline tables) as they go into floe.toml."""
    d.mkdir(parents=True, exist_ok=True)
    entries = "".join("\n[[kafka.topics]]\n" + "".join(f"{k} = {v}\n" for k, v in t.items()) for t in topics)
    (d / "floe.toml").write_text(f"""[project]
name = "streams"
[source]
database = "unused"
user = "floe_reader"
[kafka]
brokers = "{broker.bootstrap}"
group = "{group}"
max-batch = {max_batch}
{entries}""")
    return d
