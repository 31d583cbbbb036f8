#!/usr/bin/env bash
# Provides a recent qemu-user (qemu-aarch64, qemu-riscv64) for the cross-target checks without touching
# the system's apt sources: reads Debian bookworm-backports' package index for qemu-user (whose binaries
# are static), downloads the .deb it names, verifies its SHA256 against the index, and unpacks the two
# emulators into a cache directory:
#   ${PACKETIZER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/packetizer}/qemu-<upstream version>/qemu-{aarch64,riscv64}
# with a file COMPLETE (the Debian package version) written last. CrossTarget (packetizer-testkit) prefers the newest
# complete one of these over the system's qemu. Why: QEMU 7.2 (Debian 12's qemu-user) aborts in its own
# RISC-V translator (decode_save_opc: Assertion 'ctx->insn_start != NULL') on the vector code of some
# kernels, which then have no verdict.
# Idempotent (a complete cache is used as is; PACKETIZER_QEMU_REFRESH=1 re-reads the index) and offline
# tolerant: any failure says why and exits 0; the tests then use the system qemu and skip loudly where it
# cannot run the code. PACKETIZER_DEBIAN_MIRROR overrides http://deb.debian.org/debian.
set -uo pipefail
mirror=${PACKETIZER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm-backports
cache=${PACKETIZER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/packetizer}
say() { echo "fetch-qemu: $*" >&2; }
give_up() { say "$* -- the cross tests use the system's qemu (if any) and skip loudly where QEMU 7.2 cannot run the code"; exit 0; }

if [ "${PACKETIZER_QEMU_REFRESH:-0}" != 1 ]; then
  for d in "$cache"/qemu-*/; do
    [ -f "$d/COMPLETE" ] && [ -x "$d/qemu-aarch64" ] && [ -x "$d/qemu-riscv64" ] && exit 0
  done
fi
[ "$(uname -m)" = x86_64 ] || give_up "only x86-64 hosts get the backports qemu (this is $(uname -m))"
for tool in dpkg-deb sha256sum; do command -v "$tool" >/dev/null 2>&1 || give_up "no $tool"; done
if command -v curl >/dev/null 2>&1; then fetch() { curl -fsSL --connect-timeout 20 --max-time 900 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then fetch() { wget -q -T 20 -O "$2" "$1"; }
else give_up "neither curl nor wget"; fi
unxz() {
  if command -v xz >/dev/null 2>&1; then xz -dc "$1"
  else python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$1"; fi
}

mkdir -p "$cache" || give_up "cannot create $cache"
tmp=$(mktemp -d "$cache/.fetch-XXXXXX") || give_up "cannot create a temporary directory in $cache"
trap 'rm -rf "$tmp"' EXIT
index=$mirror/dists/$suite/main/binary-amd64/Packages.xz
fetch "$index" "$tmp/Packages.xz" || give_up "cannot download $index (offline?)"
stanza=$(unxz "$tmp/Packages.xz" | awk '/^Package: /{p=($2=="qemu-user")} p' ) || give_up "cannot read $index"
version=$(printf '%s\n' "$stanza" | awk '/^Version: /{print $2; exit}')
filename=$(printf '%s\n' "$stanza" | awk '/^Filename: /{print $2; exit}')
sha=$(printf '%s\n' "$stanza" | awk '/^SHA256: /{print $2; exit}')
[ -n "$version" ] && [ -n "$filename" ] && [ -n "$sha" ] || give_up "no qemu-user in $index"
upstream=${version#*:}
upstream=${upstream%%[+~-]*}
dir=$cache/qemu-$upstream
if [ "$(cat "$dir/COMPLETE" 2>/dev/null)" = "$version" ] && [ -x "$dir/qemu-aarch64" ] && [ -x "$dir/qemu-riscv64" ]; then exit 0; fi
say "downloading qemu-user $version ($mirror/$filename)"
fetch "$mirror/$filename" "$tmp/qemu-user.deb" || give_up "cannot download $mirror/$filename"
got=$(sha256sum "$tmp/qemu-user.deb" | awk '{print $1}')
[ "$got" = "$sha" ] || give_up "$filename: SHA256 $got, the index says $sha; not used"
mkdir -p "$tmp/x" && dpkg-deb --fsys-tarfile "$tmp/qemu-user.deb" \
    | tar -x -C "$tmp/x" ./usr/bin/qemu-aarch64 ./usr/bin/qemu-riscv64 || give_up "cannot unpack $filename"
"$tmp/x/usr/bin/qemu-riscv64" --version >/dev/null 2>&1 || give_up "the unpacked qemu-riscv64 does not run here"
rm -rf "$dir" && mkdir -p "$dir" && mv "$tmp/x/usr/bin/qemu-aarch64" "$tmp/x/usr/bin/qemu-riscv64" "$dir/" \
  && echo "$version" > "$dir/COMPLETE" || give_up "cannot install into $dir"
say "qemu-user $version in $dir ($("$dir/qemu-aarch64" --version | head -1))"
exit 0
