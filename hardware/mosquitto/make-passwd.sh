#!/bin/sh
# Create the venue's broker accounts: one daemon and one player account per table, and the
# venue-wide referee, homeassistant, display, awtrix and venue (the tournament service).
#
#   sudo ./make-passwd.sh /etc/mosquitto/billiards t1 t2 t3
#
# Writes DIR/passwd (mosquitto_passwd hashes) and DIR/acl (./acl plus ./acl.table once per
# table), both readable by the mosquitto user only. Each password comes from
# BILLIARDS_PW_<ACCOUNT> (upper case, '-' as '_': BILLIARDS_PW_PLAYER_T1=...), else it is asked
# for; an empty answer makes a random one, printed once. A daemon's password is also written to
# $BILLIARDS_ETC/<table>.broker-password (default /etc/billiards, root only, mode 600): the
# service (hardware/systemd/billiards@.service) hands it to the daemon as a systemd credential. Run it again to change the
# table list; it rewrites both files. A table that already has that file keeps its daemon
# password (no question); the other accounts are asked again (type the same passwords).
# The venue service's account `venue` (`billiards venue run`, hardware/systemd/billiards-venue.service)
# is treated like a daemon's: its password goes to $BILLIARDS_ETC/venue.broker-password and is
# kept when run again; its ACL block (./acl.venue) names the venue's id, BILLIARDS_VENUE (default
# venue, the service's --venue).
#
# One connection per account (mosquitto.conf: use_username_as_clientid): a second device on an
# account would disconnect the first. Extra devices get accounts of their own, named after the
# account whose rights they share, in BILLIARDS_DEVICES:
#   BILLIARDS_DEVICES="display-lobby awtrix-t1 awtrix-t2 player-t1-box" ./make-passwd.sh DIR t1 t2
# (display-lobby reads what display reads, player-t1-box may do what player-t1 may, ...).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 DIR TABLE [TABLE...]   e.g. $0 /etc/mosquitto/billiards t1 t2" >&2; exit 2; }
dir=$1; shift
etc=${BILLIARDS_ETC:-/etc/billiards}
venue=${BILLIARDS_VENUE:-venue}
case $venue in
    *[!A-Za-z0-9_-]*|'') echo "venue id '$venue': use letters, digits, '-' and '_' only" >&2; exit 2 ;;
esac
for t in "$@"; do
    case $t in
        *[!A-Za-z0-9_-]*|'') echo "table id '$t': use letters, digits, '-' and '_' only" >&2; exit 2 ;;
        venue) echo "table id 'venue' is taken by the venue service's password file; choose another" >&2; exit 2 ;;
    esac
done
mkdir -p "$dir"
umask 077
passwd=$dir/passwd
acl=$dir/acl
: > "$passwd.new"
cp "$here/acl" "$acl.new"

ask() {   # ask ACCOUNT: prints the account's password
    var=BILLIARDS_PW_$(printf '%s' "$1" | tr 'a-z-' 'A-Z_')
    eval "pw=\${$var:-}"
    # A table's daemon keeps the password it has (run again to add a table, the running
    # services still log in); BILLIARDS_PW_BILLIARDS_<TABLE> gives it a new one.
    case $1 in billiards-*|venue)
        if [ -z "$pw" ] && [ -s "$etc/${1#billiards-}.broker-password" ]; then
            head -n 1 "$etc/${1#billiards-}.broker-password"
            return
        fi ;;
    esac
    if [ -z "$pw" ] && [ -t 0 ]; then
        printf 'password for %s (empty: a random one): ' "$1" >&2
        stty -echo 2>/dev/null || true
        read -r pw || pw=
        stty echo 2>/dev/null || true
        echo >&2
    fi
    if [ -z "$pw" ]; then
        pw=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
        printf '%s: %s\n' "$1" "$pw"
        return
    fi
    printf '%s' "$pw"
}

add() {   # add ACCOUNT PASSWORD
    mosquitto_passwd -b "$passwd.new" "$1" "$2"
}

for account in referee homeassistant display awtrix; do
    pw=$(ask "$account")
    case $pw in "$account: "*) echo "$pw"; pw=${pw#"$account: "} ;; esac
    add "$account" "$pw"
done
keep() {   # keep NAME PASSWORD: a service's password, root only, for its systemd credential
    mkdir -p "$etc"
    printf '%s\n' "$2" > "$etc/$1.broker-password"
    chmod 600 "$etc/$1.broker-password"
}

pw=$(ask venue)
pw=${pw#"venue: "}
add venue "$pw"
keep venue "$pw"
sed "s/VENUE/$venue/g" "$here/acl.venue" >> "$acl.new"

for t in "$@"; do
    for account in "billiards-$t" "player-$t"; do
        pw=$(ask "$account")
        case $pw in "$account: "*) [ "$account" = "billiards-$t" ] || echo "$pw"; pw=${pw#"$account: "} ;; esac
        add "$account" "$pw"
        if [ "$account" = "billiards-$t" ]; then
            keep "$t" "$pw"
        fi
    done
    sed "s/TABLE/$t/g" "$here/acl.table" >> "$acl.new"
done
for device in ${BILLIARDS_DEVICES:-}; do
    case $device in
        *[!A-Za-z0-9_-]*) echo "device account '$device': use letters, digits, '-' and '_' only" >&2; exit 2 ;;
    esac
    like=
    for base in referee homeassistant display awtrix $(for t in "$@"; do echo "player-$t"; done); do
        case $device in "$base"-?*) [ ${#base} -gt ${#like} ] && like=$base ;; esac
    done
    [ -n "$like" ] || { echo "device account '$device': name it after the account it is like (display-..., awtrix-..., player-<table>-..., referee-..., homeassistant-...)" >&2; exit 2; }
    pw=$(ask "$device")
    case $pw in "$device: "*) echo "$pw"; pw=${pw#"$device: "} ;; esac
    add "$device" "$pw"
    # The rights of `like`: its block of the ACL, under the device's name.
    { echo; echo "# --- device $device: the rights of $like ---"
      awk -v want="user $like" -v name="user $device" '
          $0 == want { on = 1; print name; next }
          on && ($0 == "" || /^user / || /^#/) { on = 0 }
          on { print }' "$acl.new"; } > "$acl.dev"
    cat "$acl.dev" >> "$acl.new"
    rm -f "$acl.dev"
done
mv "$passwd.new" "$passwd"
mv "$acl.new" "$acl"
chmod 600 "$passwd" "$acl"
chown mosquitto: "$passwd" "$acl" 2>/dev/null || true
echo "wrote $passwd and $acl for tables: $*" >&2
echo "daemon passwords: $etc/<table>.broker-password; the venue service's: $etc/venue.broker-password" >&2
