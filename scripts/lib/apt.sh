# Sourced by the setup scripts: installs the Debian packages named, as root or with sudo,
# without questions. Callers decide what is missing; this only installs.
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@" </dev/null
}
