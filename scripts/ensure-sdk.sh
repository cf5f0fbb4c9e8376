# Sourced: checks that the Python SDK (sdk/python) is what the controller's
# OpenAPI document generates, installs it with schemathesis into a virtual
# environment under target/ (with boto3, the storage service's S3 client
# in its tests; nbclient, ipykernel and matplotlib for the notebook in
# examples/), and exports PRISM_SDK_PYTHON and
# PRISM_SCHEMATHESIS for the controller's tests; with Playwright (its
# Python package only: it drives the system's Chromium, nothing is
# downloaded at run time) PRISM_PORTAL_PYTHON, PRISM_CHROMIUM and
# PRISM_FIREFOX for the portal's browser tests. Playwright is pinned: 1.57
# drives Debian's Firefox ESR 153 over WebDriver BiDi (1.65 sends it a
# command it does not know) as well as Chromium. Needs python3 with venv
# (Debian's python3-venv, installed here as root) and PyPI.
if [ "$(id -u)" -eq 0 ] && ! python3 -c "import ensurepip" >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
if python3 -c "import ensurepip" >/dev/null 2>&1; then
    ./sdk/generate --check
    venv=target/sdk-venv
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
    "$venv/bin/pip" show schemathesis >/dev/null 2>&1 || "$venv/bin/pip" install -q "schemathesis==4.32.5"
    "$venv/bin/pip" show playwright 2>/dev/null | grep -q "^Version: 1.57.0$" || "$venv/bin/pip" install -q "playwright==1.57.0"
    # The storage service's tests speak S3 with boto3, as a researcher would.
    "$venv/bin/pip" show boto3 2>/dev/null | grep -q "^Version: 1.43.11$" || "$venv/bin/pip" install -q "boto3==1.43.11"
    # The researcher's notebook (examples/experiment.ipynb) runs with
    # nbclient in an ipykernel of this environment, and plots.
    "$venv/bin/pip" show nbclient 2>/dev/null | grep -q "^Version: 0.10.2$" || "$venv/bin/pip" install -q "nbclient==0.10.2"
    "$venv/bin/pip" show ipykernel 2>/dev/null | grep -q "^Version: 6.30.1$" || "$venv/bin/pip" install -q "ipykernel==6.30.1"
    "$venv/bin/pip" show matplotlib 2>/dev/null | grep -q "^Version: 3.10.8$" || "$venv/bin/pip" install -q "matplotlib==3.10.8"
    # Installed from a copy: pip leaves build files beside the sources.
    sdk_copy=$(mktemp -d)
    cp -r sdk/python/. "$sdk_copy"
    "$venv/bin/pip" install -q "$sdk_copy"
    "$venv/bin/pip" install -q --force-reinstall --no-deps "$sdk_copy"
    rm -rf "$sdk_copy"
    export PRISM_SDK_PYTHON="$PWD/$venv/bin/python"
    export PRISM_SCHEMATHESIS="$PWD/$venv/bin/schemathesis"
    export PRISM_PORTAL_PYTHON="$PWD/$venv/bin/python"
    if command -v chromium >/dev/null 2>&1; then export PRISM_CHROMIUM="$(command -v chromium)"; fi
    if command -v firefox-esr >/dev/null 2>&1; then export PRISM_FIREFOX="$(command -v firefox-esr)"; fi
    # As root (CI) the SDK and fuzzing tests must run, not skip.
    if [ "$(id -u)" -eq 0 ]; then export PRISM_REQUIRE_SDK=1; fi
else
    echo "prism: no python3 venv; the SDK and API fuzzing tests will skip" >&2
fi
