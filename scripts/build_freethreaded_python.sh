#!/usr/bin/env bash
# Build (or reuse) a free-threaded CPython 3.13 ("python3.13t") and print its path.
#
# No free-threaded interpreter comes from the package index, so this builds one from Debian
# trixie's python3.13 source package, fetched through apt from the Debian mirror this machine's
# apt already uses. apt runs with a private configuration under the cache directory: the
# machine's own apt sources and state are left as they are, and no root is needed.
#
#   CVCCLOCK_FT_PYTHON   install prefix (default: ${XDG_CACHE_HOME:-$HOME/.cache}/cvcclock/python3.13t)
#   CVCCLOCK_DEBIAN_MIRROR   Debian mirror URL (default: the first Debian mirror in apt's sources)
#
# Idempotent: a finished build under the prefix is reused (about 5 minutes on 2 cores
# otherwise). Quiet: the one line it prints is the interpreter's path; on failure it prints the
# tail of the build log instead. Every step has a time limit.
set -euo pipefail
shopt -s inherit_errexit

prefix=${CVCCLOCK_FT_PYTHON:-${XDG_CACHE_HOME:-$HOME/.cache}/cvcclock/python3.13t}
python=$prefix/bin/python3.13t
stamp=$prefix/.cvcclock-build-complete

# True when $python is a finished free-threaded build.
is_built() {
    [[ -f $stamp && -x $python ]] \
        && "$python" -c 'import sys, sysconfig; sys.exit(not sysconfig.get_config_var("Py_GIL_DISABLED"))' \
            2>/dev/null
}

# The Debian mirror apt already uses: the first non-security URI of a deb source, in either the
# one-line (sources.list) or the deb822 (*.sources) format.
debian_mirror() {
    if [[ -n ${CVCCLOCK_DEBIAN_MIRROR:-} ]]; then echo "$CVCCLOCK_DEBIAN_MIRROR"; return; fi
    local found
    found=$(
        {
            cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
                | sed -E 's/\[[^]]*\]//' | awk '$1 == "deb" { print $2 }'
            cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
                | awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }'
        } | grep -E '/debian/?$' | grep -v security | head -n 1
    ) || true
    if [[ -z $found ]]; then
        echo "no Debian mirror in /etc/apt/sources.list*; set CVCCLOCK_DEBIAN_MIRROR" >&2
        return 1
    fi
    echo "$found"
}

# Download python3.13's source package from trixie into $1 and print the upstream tarball.
# apt checks each file against the hashes in the signed Sources index.
download_source() {
    local dir=$1 apt=$1/apt mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    mirror=$(debian_mirror)
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
    if [[ -f $keyring ]]; then
        echo "deb-src [signed-by=$keyring] $mirror trixie main" >"$apt/sources.list"
    else
        echo "deb-src $mirror trixie main" >"$apt/sources.list"
    fi
    local opts=(
        -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
        -o "APT::Sandbox::User=$(id -un)" -o "Acquire::Retries=2"
    )
    timeout 300 apt-get "${opts[@]}" -q update >&2
    (cd "$dir" && timeout 600 apt-get "${opts[@]}" -q source --download-only python3.13) >&2
    ls "$dir"/python3.13_*.orig.tar.* | head -n 1
}

# Configure, compile and install into a staging directory, then move into place, so the prefix
# only ever holds a finished build.
build() {
    local work=$1 tarball=$2 src
    mkdir -p "$work/src"
    tar -xf "$tarball" -C "$work/src" --strip-components=1
    src=$work/src
    (
        cd "$src"
        # No test modules: they are the bulk of the install and the project never imports them.
        timeout 300 ./configure --disable-gil --disable-test-modules --prefix="$prefix"
        timeout 1500 make -j"$(nproc)"
        timeout 600 make install DESTDIR="$work/stage"
    )
    rm -rf "$prefix"
    mkdir -p "$(dirname "$prefix")"
    mv "$work/stage$prefix" "$prefix"
    touch "$stamp"
    is_built
}

main() {
    if is_built; then echo "$python"; return; fi
    mkdir -p "$(dirname "$prefix")"
    # One build at a time per prefix: a second caller waits for the first, then reuses it.
    exec 9>"$prefix.lock"
    timeout 1800 flock 9 || { echo "timed out waiting for $prefix.lock" >&2; return 1; }
    if is_built; then echo "$python"; return; fi

    local work log tarball
    work=$(mktemp -d "$(dirname "$prefix")/build.XXXXXX")
    log=$work.log
    # Everything goes to the log; the caller sees the path on success or the log's end on failure.
    exec 3>&1 4>&2 >"$log" 2>&1
    trap "report \$? '$work' '$log'" EXIT
    tarball=$(download_source "$work")
    build "$work" "$tarball"
    echo "$python" >&3
}

report() {
    local status=$1 work=$2 log=$3
    rm -rf "$work"
    if ((status == 0)); then rm -f "$log"; return; fi
    { echo "building free-threaded CPython failed ($status); the end of $log:"; tail -n 40 "$log"; } >&4
}

main "$@"
