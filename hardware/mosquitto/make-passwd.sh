#!/bin/sh
# Create the mosquitto password file for the venue accounts.
#   ./make-passwd.sh /etc/mosquitto/billiards/passwd
# Asks for each password (or takes them from BILLIARDS_PW_<ACCOUNT>, e.g.
# BILLIARDS_PW_PLAYER=...), then restricts the file to the mosquitto user.
set -eu
file=${1:-/etc/mosquitto/billiards/passwd}
mkdir -p "$(dirname "$file")"
: > "$file"
chmod 600 "$file"
for account in billiards player referee homeassistant display awtrix; do
    var=BILLIARDS_PW_$(echo "$account" | tr a-z A-Z)
    eval "pw=\${$var:-}"
    if [ -z "$pw" ]; then
        printf 'password for %s (empty: skip): ' "$account"
        stty -echo 2>/dev/null || true
        read -r pw
        stty echo 2>/dev/null || true
        echo
    fi
    if [ -n "$pw" ]; then
        mosquitto_passwd -b "$file" "$account" "$pw"
    fi
done
chown mosquitto: "$file" 2>/dev/null || true
echo "wrote $file"
