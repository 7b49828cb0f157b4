# shellcheck shell=bash
# Helpers shared by scripts/test-all.sh and scripts/demo.sh (sourced, not run).

# The repository root (this file lives in scripts/).
ATOMGPU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ATOMGPU_ROOT

# apt_install PACKAGE...: installs Debian packages (apt-get update first, once per process).
# Runs as root directly, else through sudo when there is one.
apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: need root (or sudo) to apt-get install $*" >&2
            return 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: $* missing and no apt-get to install it with; install it by hand" >&2
        return 1
    fi
    if [ -z "${ATOMGPU_APT_UPDATED:-}" ]; then
        "${sudo[@]}" apt-get update -qq
        ATOMGPU_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
}

# ensure_command COMMAND PACKAGE: installs PACKAGE through apt when COMMAND is not on PATH.
ensure_command() {
    local cmd=$1 pkg=$2
    if ! command -v "$cmd" >/dev/null 2>&1; then
        echo "$cmd not found: installing $pkg with apt-get"
        apt_install "$pkg"
    fi
    command -v "$cmd" >/dev/null 2>&1 || { echo "error: $cmd still not found after installing $pkg" >&2; return 1; }
}

# The folder where `cargo build --release` puts libatomgpu.so / .a (CARGO_TARGET_DIR honoured).
ATOMGPU_TARGET_DIR=${CARGO_TARGET_DIR:-target}
case $ATOMGPU_TARGET_DIR in
    /*) ;;
    *) ATOMGPU_TARGET_DIR="$ATOMGPU_ROOT/$ATOMGPU_TARGET_DIR" ;;
esac
ATOMGPU_LIBDIR="$ATOMGPU_TARGET_DIR/release"
export ATOMGPU_LIBDIR
