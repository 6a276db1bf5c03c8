#!/usr/bin/env bash
# The app's Android-free core on the JVM: compiles src/main/java/.../core with the JUnit tests and
# the end-to-end harness (src/test/java), then
#
#   android-agent/android/jvm.sh test        runs every JUnit test; the last line is the totals as JSON
#   android-agent/android/jvm.sh classpath   prints the classpath of the harness (e2e/test/android-app.test.ts)
#
# org.json comes from Debian's libandroid-json-java (Android has it built in), SQLite through
# Debian's xerial JDBC driver, so the outbox's SQL runs on a real SQLite here too.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="$HERE/build/jvm"
"$ROOT/scripts/ensure-android-tools.sh"

CP="/usr/share/java/com.android.json.jar:/usr/share/java/junit4.jar:/usr/share/java/hamcrest.jar:/usr/share/java/xerial-sqlite-jdbc.jar"
sources=()
while IFS= read -r f; do sources+=("$f"); done < <(find "$HERE/src/main/java/org/smsgw/agent/core" "$HERE/src/test/java" -name '*.java' | sort)
stamp="$OUT/sources.sha256"
digest="$(cat "${sources[@]}" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
  rm -rf "$OUT/classes"
  mkdir -p "$OUT/classes"
  # --release 8: the core must stay Java 8 (dx reads nothing newer) on the JVM as in the APK.
  javac --release 8 -Xlint:-options -encoding UTF-8 -cp "$CP" -d "$OUT/classes" "${sources[@]}" >&2
  echo "$digest" >"$stamp"
fi
RUN_CP="$OUT/classes:$CP"
# The JNI part of the SQLite driver is Debian's libxerial-sqlite-jdbc-jni.
JNI_DIR="$(dirname "$(dpkg -L libxerial-sqlite-jdbc-jni | grep '/libsqlitejdbc.so$' | head -n1)")"
JAVA_OPTS=("-Dorg.sqlite.lib.path=$JNI_DIR" "-Dorg.sqlite.lib.name=libsqlitejdbc.so")

case "${1:-test}" in
  test) exec java "${JAVA_OPTS[@]}" -cp "$RUN_CP" org.smsgw.agent.core.JvmTests "$OUT/classes" ;;
  classpath) echo "$RUN_CP" ;;
  java-opts) echo "${JAVA_OPTS[*]}" ;;
  *) echo "usage: $0 test|classpath|java-opts" >&2; exit 2 ;;
esac
