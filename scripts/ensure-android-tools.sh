#!/usr/bin/env bash
# Installs what builds and tests the Android app (android-agent/android) from Debian's packages
# alone: no Android SDK download, no Google Maven (see shared research/android-toolchain.md).
#
#   scripts/ensure-android-tools.sh
#
# - bookworm packages (aapt, zipalign, apksigner, dexdump, the API 29 framework-res.apk that aapt
#   links against, ZXing core, org.json, JUnit, the SQLite JDBC driver for the JVM tests) are
#   installed with apt-get at the versions pinned below when they are missing;
# - the two packages bookworm no longer has, the API 23 android.jar (libandroid-23-java) and the
#   dx dexer (dalvik-exchange), are fetched from bullseye with `apt-get download` under a private
#   APT_CONFIG (nothing is installed system-wide), checked against the sha256 pinned below, and
#   unpacked into .tools/android/.
# Quiet when everything is there. Exits non-zero naming what could not be installed or fetched.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="$ROOT/.tools/android"
log() { echo "[ensure-android-tools] $*" >&2; }
fail() {
  log "ERROR: $*"
  exit 1
}

# Their versions decide the APK's bytes: another version builds a working APK, but not the same bytes.
BOOKWORM_PACKAGES=(
  "aapt=1:10.0.0+r36-10"
  "zipalign=1:10.0.0+r36-1"
  "apksigner=31.0.2-1"
  "dexdump=11.0.0+r48-5"
  "android-framework-res=1:10.0.0+r36-10"
  "libzxing-core-java=3.4.1+ds-1"
  "libandroid-json-java=10.0.0+r36-1"
  "junit4=4.13.2-3"
  "libhamcrest-java=2.2-1"
  "libxerial-sqlite-jdbc-java=3.40.1.0+dfsg-1+deb12u1"
  "libxerial-sqlite-jdbc-jni=3.40.1.0+dfsg-1+deb12u1"
  "unzip=6.0-28"
)
# Files the build reads from those packages, with the sha256 they had when the build was made
# reproducible; a different file means a different APK, so it is refused.
PINNED_FILES=(
  "/usr/share/java/core-3.4.1.jar f17b902d38f84b36ef5936fdd2c99f53125ed3fa88e98d4931ed748a87327c61"
  "/usr/share/java/com.android.json-android-10.0.0.jar 4979cab5e781d837cf2ef17d6337cd7d3494370870f39b448d036eff84c35b75"
  "/usr/share/android-framework-res/framework-res.apk 053917e41b0a0c10f1f60d8c2f404419f3a33ac9d781580931e294c437fb1a19"
)
BULLSEYE_MIRROR="${ANDROID_TOOLS_BULLSEYE_MIRROR:-http://deb.debian.org/debian}"
# name version sha256 (of the .deb, as bullseye's signed Packages index lists it) file-in-deb target
BULLSEYE_DEBS=(
  "libandroid-23-java 6.0.1+r72-6 8af1b6df556971dda0a6da3536ea526a838e0c363afcdd454213d8bce94793e3 ./usr/share/java/com.android.android-23.jar android-23.jar"
  "dalvik-exchange 10.0.0+r36-1 8fc128db7c27253d963eb9b33de79b197162a4749d2ba69019b2fd0664cbd7fe ./usr/share/java/com.android.dx-10.0.0.jar dx.jar"
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    fail "root is needed to run: $*"
  fi
}

apt_install() {
  # Other worktrees may install at the same moment: wait for dpkg's lock instead of failing.
  DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"
}

missing=()
for spec in "${BOOKWORM_PACKAGES[@]}"; do
  name="${spec%%=*}"
  wanted="${spec#*=}"
  installed="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
  if [[ "$installed" != "install ok installed "* ]]; then
    missing+=("$spec")
  elif [ "${installed#install ok installed }" != "$wanted" ]; then
    log "warning: $name ${installed#install ok installed } is installed, the build was pinned to $wanted (the APK may differ in bytes)"
  fi
done
if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
  missing+=("openjdk-17-jdk-headless")
fi
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  if ! apt_install "${missing[@]}" >&2; then
    log "apt-get install failed; updating the package lists and trying again"
    as_root apt-get -o DPkg::Lock::Timeout=300 update >&2 || true
    if ! apt_install "${missing[@]}" >&2; then
      # A Debian point release replaces a package's version: the pinned one is gone from the
      # mirror. The current one still builds the app; the files whose bytes matter are checked
      # below, so only a change there stops the build.
      log "warning: the pinned versions are not all available any more; installing the current ones"
      apt_install "${missing[@]%%=*}" >&2 || fail "could not install ${missing[*]%%=*} from the bookworm repositories"
    fi
  fi
fi
for pinned in "${PINNED_FILES[@]}"; do
  read -r file sum <<<"$pinned"
  [ -f "$file" ] || fail "$file is missing after installing its package"
  [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sum" ] || fail "$file does not have the pinned sha256 $sum"
done

mkdir -p "$TOOLS"
need_fetch=()
for deb in "${BULLSEYE_DEBS[@]}"; do
  read -r name version sum member target <<<"$deb"
  stamp="$TOOLS/$target.from"
  if [ -f "$TOOLS/$target" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$name $version $sum" ]; then continue; fi
  need_fetch+=("$deb")
done
if [ "${#need_fetch[@]}" -gt 0 ]; then
  apt_dir="$TOOLS/apt"
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
  : >"$apt_dir/status"
  cat >"$apt_dir/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $BULLSEYE_MIRROR bullseye main
EOF
  # A private configuration: bullseye's lists and downloads stay in .tools/android/apt, the
  # system's sources and dpkg database are not touched.
  cat >"$apt_dir/apt.conf" <<EOF
Dir::Etc::sourcelist "$apt_dir/sources.list";
Dir::Etc::sourceparts "-";
Dir::State "$apt_dir/state";
Dir::State::status "$apt_dir/status";
Dir::Cache "$apt_dir/cache";
APT::Architecture "amd64";
APT::Sandbox::User "root";
EOF
  export APT_CONFIG="$apt_dir/apt.conf"
  log "fetching from bullseye ($BULLSEYE_MIRROR): $(for d in "${need_fetch[@]}"; do read -r n v _ <<<"$d"; printf '%s=%s ' "$n" "$v"; done)"
  apt-get -q update >&2 || fail "could not read bullseye's package lists from $BULLSEYE_MIRROR (set ANDROID_TOOLS_BULLSEYE_MIRROR to another Debian mirror or to http://archive.debian.org/debian once bullseye is archived)"
  for deb in "${need_fetch[@]}"; do
    read -r name version sum member target <<<"$deb"
    (cd "$apt_dir/debs" && apt-get -q download "$name=$version" >&2) ||
      fail "could not fetch $name=$version from bullseye ($BULLSEYE_MIRROR); it holds $target for the Android build"
    file="$(ls "$apt_dir/debs/${name}_"*.deb | head -n1)"
    got="$(sha256sum "$file" | cut -d' ' -f1)"
    [ "$got" = "$sum" ] || fail "$file has sha256 $got, expected $sum: refusing it"
    rm -rf "$apt_dir/x"
    dpkg-deb -x "$file" "$apt_dir/x"
    cp "$apt_dir/x/$member" "$TOOLS/$target.tmp"
    mv "$TOOLS/$target.tmp" "$TOOLS/$target"
    echo "$name $version $sum" >"$TOOLS/$target.from"
    rm -rf "$apt_dir/x" "$file"
    log "$target from $name $version (sha256 verified)"
  done
fi
