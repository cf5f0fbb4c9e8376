#!/usr/bin/env bash
# Makes sure a Rust toolchain that builds Prism (1.88 or newer: let-chains)
# is on PATH: the one rust-toolchain.toml pins where rustup has it, else
# the installed stable (said, not hidden), else Debian's rustc and cargo.
set -euo pipefail
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
if command -v rustup >/dev/null 2>&1; then
    pinned=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
    if ! rustup toolchain list | grep -q "^$pinned"; then
        if ! rustup toolchain install "$pinned" --profile minimal -c rustfmt -c clippy >/dev/null 2>&1; then
            echo "prism: Rust $pinned (rust-toolchain.toml) is not installed and cannot be fetched; using the installed stable" >&2
            export RUSTUP_TOOLCHAIN=stable
        fi
    fi
fi
have_rust() {
    command -v cargo >/dev/null 2>&1 || return 1
    local v; v=$(rustc --version | awk '{print $2}')
    [ "$(printf '%s\n1.88.0\n' "$v" | sort -V | head -n1)" = "1.88.0" ]
}
if ! have_rust; then
    echo "prism: no Rust 1.88+ toolchain found; installing Debian's rustc and cargo" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq cargo rustc >/dev/null
    have_rust || { echo "prism: Debian's Rust is older than 1.88; install Rust 1.88+ with rustup and rerun" >&2; exit 1; }
fi
