#!/usr/bin/env bash
# Makes sure a Rust toolchain that builds edition 2024 (1.85 or newer) is on
# PATH, installing one from the package registries this machine can reach.
set -euo pipefail
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
have_rust() {
    command -v cargo >/dev/null 2>&1 || return 1
    local v; v=$(rustc --version | awk '{print $2}')
    [ "$(printf '%s\n1.85.0\n' "$v" | sort -V | head -n1)" = "1.85.0" ]
}
if ! have_rust; then
    echo "prism: no Rust 1.85+ toolchain found; installing Debian's rustc and cargo" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq cargo rustc >/dev/null
    have_rust || { echo "prism: Debian's Rust is older than 1.85; install Rust 1.85+ with rustup and rerun" >&2; exit 1; }
fi
