# Sourced: Debian packages the tests use beyond the network tools. A C++
# compiler builds libFuzzer for the fuzz targets; DejaVu Sans labels the
# simulators' PNG charts; BIRD is the routing daemon of the end-to-end test
# that runs one inside a container; Prometheus scrapes a live node; tshark
# reads what `prism ctl capture` wrote; python3-venv holds the SDK and
# schemathesis (and Playwright, which drives Debian's headless Chromium
# and Firefox ESR in the portal's browser tests); runc, umoci, tini,
# busybox-static and containers-common's seccomp profile run and confine
# the processing nodes' containers; mmdebstrap builds their Debian base
# image and OpenSSH's client reaches it; curl moves images' blobs to and
# from the storage service. All in one apt-get,
# before anything else may run one.
need=()
[ "$(id -u)" -eq 0 ] && ! command -v bird >/dev/null 2>&1 && need+=(bird2)
[ "$(id -u)" -eq 0 ] && ! command -v prometheus >/dev/null 2>&1 && need+=(prometheus)
[ "$(id -u)" -eq 0 ] && ! command -v tshark >/dev/null 2>&1 && need+=(tshark)
[ "$(id -u)" -eq 0 ] && ! python3 -c "import ensurepip" >/dev/null 2>&1 && need+=(python3-venv)
[ "$(id -u)" -eq 0 ] && ! command -v chromium >/dev/null 2>&1 && need+=(chromium)
[ "$(id -u)" -eq 0 ] && ! command -v firefox-esr >/dev/null 2>&1 && need+=(firefox-esr)
[ "$(id -u)" -eq 0 ] && ! command -v pg_lsclusters >/dev/null 2>&1 && need+=(postgresql)
[ "$(id -u)" -eq 0 ] && ! command -v runc >/dev/null 2>&1 && need+=(runc)
[ "$(id -u)" -eq 0 ] && ! command -v umoci >/dev/null 2>&1 && need+=(umoci)
[ "$(id -u)" -eq 0 ] && [ ! -x /usr/bin/tini-static ] && need+=(tini)
[ "$(id -u)" -eq 0 ] && [ ! -x /bin/busybox ] && need+=(busybox-static)
[ "$(id -u)" -eq 0 ] && [ ! -f /usr/share/containers/seccomp.json ] && need+=(golang-github-containers-common)
[ "$(id -u)" -eq 0 ] && ! command -v mmdebstrap >/dev/null 2>&1 && need+=(mmdebstrap)
[ "$(id -u)" -eq 0 ] && ! command -v ssh-keygen >/dev/null 2>&1 && need+=(openssh-client)
[ "$(id -u)" -eq 0 ] && ! command -v curl >/dev/null 2>&1 && need+=(curl)
[ "$(id -u)" -eq 0 ] && ! command -v clang >/dev/null 2>&1 && need+=(clang)
[ "$(id -u)" -eq 0 ] && [ ! -f /usr/include/bpf/bpf_helpers.h ] && need+=(libbpf-dev)
command -v c++ >/dev/null 2>&1 || need+=(g++)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
    echo "prism: installing ${need[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
