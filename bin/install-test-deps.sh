#!/usr/bin/env bash
# Installs the Debian packages some tests need, when they are missing (idempotent; called by bin/test).
# gcc: the GCC-compiled C callers (CCallerAbiTest, GccOmpSimdCallerTest, FmodGccCallerTest).
# libsleef-dev: SLEEF, the vector lgamma/tgamma the packetizer calls where glibc's libmvec has none
# (VectorMathDifferentialTest, FmodGccCallerTest link -lsleef).
# qemu-user, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, gcc-riscv64-linux-gnu, libc6-dev-riscv64-cross:
# the cross-target checks under emulation (CrossTargetKernelTest, CrossCheckOracleTest, docs/cross-targets.md).
# Tests skip loudly when a package cannot be installed (no root, no apt-get).
# bin/fetch-qemu.sh adds QEMU 10 (Debian bookworm-backports' static qemu-user, unpacked into a cache
# directory, the apt sources untouched), which the cross tests prefer over the system's QEMU 7.2.
set -uo pipefail
"$(dirname "$0")/fetch-qemu.sh"
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
[ -e /usr/lib/x86_64-linux-gnu/libsleef.so ] || ldconfig -p 2>/dev/null | grep -q 'libsleef\.so ' || missing+=(libsleef-dev)
command -v qemu-aarch64 >/dev/null 2>&1 && command -v qemu-riscv64 >/dev/null 2>&1 || missing+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
[ -d /usr/aarch64-linux-gnu/lib ] && [ -e /usr/aarch64-linux-gnu/lib/libc.so ] || missing+=(libc6-dev-arm64-cross)
command -v riscv64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-riscv64-linux-gnu)
[ -d /usr/riscv64-linux-gnu/lib ] && [ -e /usr/riscv64-linux-gnu/lib/libc.so ] || missing+=(libc6-dev-riscv64-cross)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: missing ${missing[*]} and no apt-get; the tests that need them will skip loudly" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "install-test-deps: missing ${missing[*]} and not root; the tests that need them will skip loudly" >&2
    exit 0
  fi
fi
# another apt run holds the lock: wait for it (up to 10 minutes) rather than fail
for _ in $(seq 1 120); do
  pgrep -x apt-get >/dev/null 2>&1 || pgrep -x apt >/dev/null 2>&1 || pgrep -x dpkg >/dev/null 2>&1 || break
  sleep 5
done
echo "install-test-deps: installing ${missing[*]}" >&2
$sudo apt-get install -y --no-install-recommends "${missing[@]}" >&2 \
  || { $sudo apt-get update >&2 && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >&2; } \
  || echo "install-test-deps: could not install ${missing[*]}; the tests that need them will skip loudly" >&2
exit 0
