#!/usr/bin/env bash
# Builds the signed APK of the phone app from source with Debian's Android tools only (no SDK
# download, no Google Maven; see scripts/ensure-android-tools.sh, which this runs first):
#
#   android-agent/android/build.sh            (or `make apk` at the repository's root)
#
# aapt (R.java and the resource table, against the API 29 framework-res.apk), javac (Java 8
# against the API 23 android.jar), dx (classes.dex, with ZXing's QR reader), aapt again (the
# package), zipalign, apksigner (v1, v2 and v3 signatures). The last line printed is the APK's path.
#
# Signing key: SMSGW_APK_KEYSTORE (a PKCS12 or JKS keystore), SMSGW_APK_KEYSTORE_PASSWORD,
# SMSGW_APK_KEY_ALIAS and SMSGW_APK_KEY_PASSWORD (defaults to the keystore's) for a release;
# without them, a development key made once in android-agent/android/.keys/ (git-ignored) and
# kept, so that a phone accepts each new build as an update.
# SMSGW_APK_OUT: where to write the APK (default android-agent/android/build/smsgw-agent.apk).
#
# Reproducible: the same sources and key give the same bytes (every zip entry gets one fixed
# time, inputs are sorted, RSA signatures are deterministic).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TOOLS="$ROOT/.tools/android"
log() { echo "[apk] $*" >&2; }

"$ROOT/scripts/ensure-android-tools.sh"

APK="${SMSGW_APK_OUT:-$HERE/build/smsgw-agent.apk}"
mkdir -p "$(dirname "$APK")"
APK="$(cd "$(dirname "$APK")" && pwd)/$(basename "$APK")"
WORK="$(dirname "$APK")/.work-$(basename "$APK" .apk)"
ANDROID_JAR="$TOOLS/android-23.jar"
DX_JAR="$TOOLS/dx.jar"
FRAMEWORK_RES=/usr/share/android-framework-res/framework-res.apk
ZXING_JAR=/usr/share/java/core-3.4.1.jar
# Zip entries' time: 1980-01-01 00:00 local, the zip format's epoch.
export TZ=UTC
FIXED_TIME=198001010000

if [ -n "${SMSGW_APK_KEYSTORE:-}" ]; then
  KEYSTORE="$SMSGW_APK_KEYSTORE"
  : "${SMSGW_APK_KEYSTORE_PASSWORD:?SMSGW_APK_KEYSTORE_PASSWORD is needed with SMSGW_APK_KEYSTORE}"
  : "${SMSGW_APK_KEY_ALIAS:?SMSGW_APK_KEY_ALIAS is needed with SMSGW_APK_KEYSTORE}"
  STORE_PASS="$SMSGW_APK_KEYSTORE_PASSWORD"
  KEY_ALIAS="$SMSGW_APK_KEY_ALIAS"
  KEY_PASS="${SMSGW_APK_KEY_PASSWORD:-$SMSGW_APK_KEYSTORE_PASSWORD}"
  log "signing with the release key $KEY_ALIAS of $KEYSTORE"
else
  KEYSTORE="$HERE/.keys/dev.p12"
  STORE_PASS=android
  KEY_ALIAS=smsgw-dev
  KEY_PASS=android
  if [ ! -f "$KEYSTORE" ]; then
    mkdir -p "$HERE/.keys"
    chmod 700 "$HERE/.keys"
    # RSA: its signatures are deterministic, so the APK's bytes are too (ECDSA's are not).
    keytool -genkeypair -keystore "$KEYSTORE" -storetype PKCS12 -storepass "$STORE_PASS" -keypass "$KEY_PASS" \
      -alias "$KEY_ALIAS" -keyalg RSA -keysize 3072 -validity 10000 \
      -dname "CN=smsgw development key, O=smsgw development" >&2
    log "made the development signing key $KEYSTORE (keep it: a phone only updates an app signed by the same key)"
  fi
fi

rm -rf "$WORK"
mkdir -p "$WORK"/{gen,classes,zxing,dex,res}
# The same inputs with the same times: aapt and zip copy file times into the archive.
cp -R "$HERE/res/." "$WORK/res/"
cp "$HERE/AndroidManifest.xml" "$WORK/AndroidManifest.xml"
find "$WORK/res" "$WORK/AndroidManifest.xml" -exec touch -h -t "$FIXED_TIME" {} +

log "resources (aapt)"
aapt package -f -m -J "$WORK/gen" -M "$WORK/AndroidManifest.xml" -S "$WORK/res" -I "$FRAMEWORK_RES" >&2

log "compiling (javac, Java 8 against the API 23 android.jar)"
mapfile -t sources < <(find "$HERE/src/main/java" "$WORK/gen" -name '*.java' | LC_ALL=C sort)
javac -source 8 -target 8 -Xlint:-options -encoding UTF-8 -bootclasspath "$ANDROID_JAR" -cp "$ZXING_JAR" \
  -d "$WORK/classes" "${sources[@]}" >&2

log "dexing (dx) with ZXing's QR reader"
# Only the QR decoder of ZXing: the other formats would add half a megabyte of dex.
(cd "$WORK/zxing" && unzip -q -W "$ZXING_JAR" 'com/google/zxing/*.class' 'com/google/zxing/common/**' 'com/google/zxing/qrcode/**')
java -jar "$DX_JAR" --dex --min-sdk-version=23 --output="$WORK/dex/classes.dex" "$WORK/classes" "$WORK/zxing" >&2

log "packaging (aapt, zipalign, apksigner)"
aapt package -f -M "$WORK/AndroidManifest.xml" -S "$WORK/res" -I "$FRAMEWORK_RES" -F "$WORK/unsigned.apk" >&2
# dataExtractionRules (API 31) in the binary manifest: see the comment of AndroidManifest.xml.
mkdir -p "$WORK/manifest"
(cd "$WORK/manifest" && unzip -q "$WORK/unsigned.apk" AndroidManifest.xml)
java "$HERE/tools/ManifestAttribute.java" "$WORK/manifest/AndroidManifest.xml" \
  networkSecurityConfig 0x01010527 dataExtractionRules 0x0101063e >&2
touch -t "$FIXED_TIME" "$WORK/manifest/AndroidManifest.xml"
aapt remove "$WORK/unsigned.apk" AndroidManifest.xml >&2
(cd "$WORK/manifest" && aapt add "$WORK/unsigned.apk" AndroidManifest.xml >&2)
touch -t "$FIXED_TIME" "$WORK/dex/classes.dex"
(cd "$WORK/dex" && aapt add "$WORK/unsigned.apk" classes.dex >&2)
zipalign -f -p 4 "$WORK/unsigned.apk" "$WORK/aligned.apk"
apksigner sign --ks "$KEYSTORE" --ks-pass "pass:$STORE_PASS" --ks-key-alias "$KEY_ALIAS" --key-pass "pass:$KEY_PASS" \
  --out "$APK.tmp" "$WORK/aligned.apk"
apksigner verify "$APK.tmp"
mv "$APK.tmp" "$APK"
rm -f "$APK.tmp.idsig"
log "$(stat -c %s "$APK") bytes, sha256 $(sha256sum "$APK" | cut -d' ' -f1)"
echo "$APK"
