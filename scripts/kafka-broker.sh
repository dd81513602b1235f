#!/usr/bin/env bash
# The jars of a single-node Apache Kafka broker (KRaft mode) for `make streams`.
#   scripts/kafka-broker.sh fetch   copy them from Maven Central into $FLOE_KAFKA_HOME/lib (default
#                                   .deps/kafka) with Maven, then check every jar against
#                                   scripts/kafka/jars.sha256; prints the lib directory
#   scripts/kafka-broker.sh pin     (maintainers) rewrite jars.sha256 from the jars fetched
# Java (17 or newer) and Maven come from the machine (Debian's openjdk-17-jre-headless, maven).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
home="${FLOE_KAFKA_HOME:-$root/.deps/kafka}"
lib="$home/lib"
sums="$here/kafka/jars.sha256"

fetch() {
	for tool in java mvn; do
		command -v "$tool" >/dev/null 2>&1 || {
			echo "kafka-broker: $tool is missing; install it with: apt-get install -y openjdk-17-jre-headless maven" >&2
			exit 2
		}
	done
	if [ ! -f "$lib/.complete" ]; then
		rm -rf "$lib"
		mkdir -p "$home"
		mvn -q -B -f "$here/kafka/pom.xml" -Dmaven.repo.local="$home/m2" \
			dependency:copy-dependencies -DoutputDirectory="$lib" >&2
		touch "$lib/.complete"
	fi
}

check() {
	(cd "$lib" && sha256sum --quiet -c "$sums") >&2 || {
		echo "kafka-broker: the jars in $lib do not match scripts/kafka/jars.sha256; remove $lib and fetch again" >&2
		exit 1
	}
	[ "$(ls "$lib"/*.jar | wc -l)" = "$(wc -l < "$sums")" ] || {
		echo "kafka-broker: $lib holds jars jars.sha256 does not list; remove $lib and fetch again" >&2
		exit 1
	}
}

case "${1:-}" in
fetch) fetch; check; echo "$lib" ;;
pin) fetch; (cd "$lib" && sha256sum -- *.jar) > "$sums"; echo "$sums" ;;
*) echo "usage: scripts/kafka-broker.sh fetch|pin" >&2; exit 2 ;;
esac
