# shellcheck shell=bash
# scripts/lib/prereqs.sh — make sure the tools roomlease's scripts need are
# present, installing what can be installed (as root, with apt-get and npm).

need_cmd() { command -v "$1" >/dev/null 2>&1; }

apt_install() {
  if [ "$(id -u)" != 0 ] || ! need_cmd apt-get; then
    echo "roomlease: please install: $*" >&2
    return 1
  fi
  if [ -z "${ROOMLEASE_APT_UPDATED:-}" ]; then
    apt-get update -qq >&2
    ROOMLEASE_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

ensure_prereqs() {
  need_cmd go || { echo "roomlease: Go 1.26 or newer is required (https://go.dev/dl/)" >&2; return 1; }
  need_cmd curl || apt_install curl ca-certificates
  need_cmd node || apt_install nodejs npm
  need_cmd npm || apt_install npm
  # The Firestore emulator is a Java program (Java 17 or newer).
  need_cmd java || apt_install openjdk-17-jre-headless
  ensure_node_tools
}
