# shellcheck shell=bash
# emulator/emulators.sh — start the local emulators and stop exactly what was
# started. Sourced by scripts/dev and scripts/test; not run on its own.
#
# Every process is started in its own process group (setsid) and its PID is
# remembered; emulators_stop signals those groups and nothing else. Nothing
# here looks processes up by name, so a developer's other emulators survive.
#
# Ports: the defaults come from firebase.json; FIRESTORE_PORT and AUTH_PORT
# override them. FIRESTORE_SINGLE_PROJECT=false lets tests use a project per
# test without the emulator warning about each one. The project id is ROOMLEASE_PROJECT (default demo-roomlease:
# the "demo-" prefix tells Firebase tools that no real project is involved).

ROOMLEASE_ROOT=${ROOMLEASE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
ROOMLEASE_PROJECT=${ROOMLEASE_PROJECT:-demo-roomlease}
EMULATOR_PIDS=()
EMULATOR_LOG_DIR=${EMULATOR_LOG_DIR:-$(mktemp -d -t roomlease-emulators.XXXXXX)}

# firebase_json_port NAME prints the port firebase.json gives emulator NAME.
firebase_json_port() {
  node -e 'const c=require(process.argv[1]);process.stdout.write(String(c.emulators[process.argv[2]].port))' \
    "$ROOMLEASE_ROOT/firebase.json" "$1"
}

firestore_emulator_jar() {
  local sdk
  sdk=$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null) || return 1
  local jar="$sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
  [ -f "$jar" ] && printf '%s\n' "$jar"
}

# ensure_node_tools installs firebase-tools from the lockfile when missing.
ensure_node_tools() {
  if [ ! -x "$ROOMLEASE_ROOT/node_modules/.bin/firebase" ]; then
    echo "roomlease: installing Node tooling from package-lock.json (npm ci)..." >&2
    (cd "$ROOMLEASE_ROOT" && npm ci --no-audit --no-fund --loglevel=error) >&2
  fi
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# wait_http URL NEEDLE SECONDS PID: polls URL until its body contains NEEDLE,
# failing early if PID has died.
wait_http() {
  local url=$1 needle=$2 limit=$3 pid=$4 i
  for ((i = 0; i < limit * 4; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      return 1
    fi
    if curl -fsS --max-time 2 "$url" 2>/dev/null | grep -q "$needle"; then
      return 0
    fi
    sleep 0.25
  done
  return 1
}

# start_bg LOGNAME CMD...: starts CMD in a new process group, logs to a file.
start_bg() {
  local name=$1
  shift
  setsid "$@" >"$EMULATOR_LOG_DIR/$name.log" 2>&1 </dev/null &
  STARTED_PID=$!
  EMULATOR_PIDS+=("$STARTED_PID")
}

fail_start() {
  echo "roomlease: $1 did not start; its log ($EMULATOR_LOG_DIR/$2.log) ends with:" >&2
  tail -n 30 "$EMULATOR_LOG_DIR/$2.log" >&2
  return 1
}

# start_firestore_emulator: the gcloud jar run by java directly (so that our
# PID is the JVM's), or firebase-tools' emulator where the jar is absent.
start_firestore_emulator() {
  FIRESTORE_PORT=${FIRESTORE_PORT:-$(firebase_json_port firestore)}
  if port_in_use "$FIRESTORE_PORT"; then
    echo "roomlease: port $FIRESTORE_PORT is busy; set FIRESTORE_PORT to a free port" >&2
    return 1
  fi
  local jar
  if jar=$(firestore_emulator_jar); then
    start_bg firestore java -Duser.language=en -cp "$jar" \
      com.google.cloud.datastore.emulator.firestore.CloudFirestore start \
      --host=127.0.0.1 --port="$FIRESTORE_PORT" \
      --rules="$ROOMLEASE_ROOT/firestore/firestore.rules" \
      --project_id="$ROOMLEASE_PROJECT" --single_project_mode="${FIRESTORE_SINGLE_PROJECT:-true}"
  else
    ensure_node_tools
    write_firebase_config
    start_bg firestore "$ROOMLEASE_ROOT/node_modules/.bin/firebase" emulators:start \
      --only firestore --project "$ROOMLEASE_PROJECT" --config "$EMULATOR_LOG_DIR/firebase.json"
  fi
  wait_http "http://127.0.0.1:$FIRESTORE_PORT/" Ok 90 "$STARTED_PID" || fail_start "the Firestore emulator" firestore || return 1
  export FIRESTORE_EMULATOR_HOST="127.0.0.1:$FIRESTORE_PORT"
}

# write_firebase_config writes a copy of firebase.json carrying the chosen
# ports, so that firebase-tools listens where we said. Its hub and logging
# ports are taken from just above the Auth port: left at their defaults
# (4400, 4500), a second emulator suite (scripts/test beside scripts/dev)
# collides with the first and its Auth emulator dies after starting.
write_firebase_config() {
  node -e '
    const fs = require("fs"), path = require("path");
    const [src, dst, auth, fsPort, root] = process.argv.slice(1);
    const c = JSON.parse(fs.readFileSync(src, "utf8"));
    c.emulators.auth.port = Number(auth);
    c.emulators.firestore.port = Number(fsPort);
    c.emulators.hub = { host: "127.0.0.1", port: Number(auth) + 1 };
    c.emulators.logging = { host: "127.0.0.1", port: Number(auth) + 2 };
    c.firestore.rules = path.join(root, c.firestore.rules);
    c.firestore.indexes = path.join(root, c.firestore.indexes);
    fs.writeFileSync(dst, JSON.stringify(c, null, 2));
  ' "$ROOMLEASE_ROOT/firebase.json" "$EMULATOR_LOG_DIR/firebase.json" \
    "${AUTH_PORT:-$(firebase_json_port auth)}" "${FIRESTORE_PORT:-$(firebase_json_port firestore)}" "$ROOMLEASE_ROOT"
}

start_auth_emulator() {
  AUTH_PORT=${AUTH_PORT:-$(firebase_json_port auth)}
  if port_in_use "$AUTH_PORT"; then
    echo "roomlease: port $AUTH_PORT is busy; set AUTH_PORT to a free port" >&2
    return 1
  fi
  ensure_node_tools
  write_firebase_config
  # firebase-tools must not phone home: no update check, no usage reporting.
  NO_UPDATE_NOTIFIER=1 FIREBASE_CLI_DISABLE_UPDATE_CHECK=true \
    start_bg auth "$ROOMLEASE_ROOT/node_modules/.bin/firebase" emulators:start \
    --only auth --project "$ROOMLEASE_PROJECT" --config "$EMULATOR_LOG_DIR/firebase.json"
  wait_http "http://127.0.0.1:$AUTH_PORT/" authEmulator 120 "$STARTED_PID" || fail_start "the Auth emulator" auth || return 1
  export FIREBASE_AUTH_EMULATOR_HOST="127.0.0.1:$AUTH_PORT"
}

# pubsub_emulator_jar prints the path of gcloud's Pub/Sub emulator jar, or
# fails when the component is absent.
pubsub_emulator_jar() {
  local sdk jar
  sdk=$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null) || return 1
  for jar in "$sdk"/platform/pubsub-emulator/lib/*-all.jar; do
    [ -f "$jar" ] && printf '%s\n' "$jar" && return 0
  done
  return 1
}

# start_pubsub_emulator: gcloud's Pub/Sub emulator run by java directly, as
# the Firestore emulator is, on PUBSUB_PORT (default 8085). It answers "Ok"
# on / once it serves.
start_pubsub_emulator() {
  PUBSUB_PORT=${PUBSUB_PORT:-8085}
  if port_in_use "$PUBSUB_PORT"; then
    echo "roomlease: port $PUBSUB_PORT is busy; set PUBSUB_PORT to a free port" >&2
    return 1
  fi
  local jar
  jar=$(pubsub_emulator_jar) || {
    echo "roomlease: the Pub/Sub emulator is missing: install google-cloud-cli-pubsub-emulator (apt) or run gcloud components install pubsub-emulator" >&2
    return 1
  }
  start_bg pubsub java -jar "$jar" --host=127.0.0.1 --port="$PUBSUB_PORT"
  wait_http "http://127.0.0.1:$PUBSUB_PORT/" Ok 90 "$STARTED_PID" || fail_start "the Pub/Sub emulator" pubsub || return 1
  export PUBSUB_EMULATOR_HOST="127.0.0.1:$PUBSUB_PORT"
}

# emulators_stop signals the process groups we started, waits a little, then
# kills whatever is left of them. Safe to call twice, and when some of them
# have already died: a failed kill must not end the loop (callers run with
# set -e, and an emulator that crashed would otherwise leave the ones
# started after it running).
emulators_stop() {
  local pid
  for pid in "${EMULATOR_PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${EMULATOR_PIDS[@]}"; do
    for _ in $(seq 1 40); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  EMULATOR_PIDS=()
}
