#!/usr/bin/env bash
# A person's session through Debian's adb against the virtual phone as a
# userdebug emulator (docs/appdb.md): `adb root`, `whoami`, Pro Expense's
# databases/ pulled, `sqlite3` on the phone, an edited copy pushed back the
# way AndroidWorld pushes it (rm -r DIR/*, push, chmod 777, am force-stop),
# then the app's screen showing the edit. Prints every command and what it
# answered; writes the screenshot to $1 (default expense-edited.png).
# Usage: bash scripts/rooted-session.sh [PNG] (builds droidscore first).
set -euo pipefail
cd "$(dirname "$0")/.."
png=$(realpath -m "${1:-expense-edited.png}")
bash scripts/install-adb.sh >/dev/null
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }
cargo build --locked -q -p droidscore
bin="${CARGO_TARGET_DIR:-target}/debug/droidscore"
source scripts/virtual-phone.sh
start_virtual_phone "$bin"
say() { printf '$ %s\n' "$*"; }
a() { say "adb $*"; adb -s "$serial" "$@"; }
dir=/data/data/com.arduia.expense/databases
a shell whoami
a shell ls /data/data || true
a root
adb -s "$serial" wait-for-device
a shell whoami
a shell id
a shell "if [ -d \"$dir\" ]; then echo \"Exists\"; else echo \"Does not exist\"; fi"
a shell ls "$dir" -ll -au
copy=$(mktemp -d)
a pull "$dir/" "$copy"
a shell sqlite3 "$dir/accounting.db" "'SELECT expense_id, name, amount, category, created_date FROM expense;'"
say "sqlite3 accounting.db \"UPDATE expense SET name = 'Lunch with Ana', amount = 4250 WHERE name = 'Lunch'\"   # on this machine, the pulled copy"
sqlite3 "$copy/databases/accounting.db" "UPDATE expense SET name = 'Lunch with Ana', amount = 4250 WHERE name = 'Lunch';"
a shell ls -1 "$dir"
a shell rm -r "$dir/*"
a push "$copy/databases/accounting.db" "$dir/accounting.db"
a shell chmod 777 "$dir/accounting.db"
a shell am force-stop com.arduia.expense
a shell sqlite3 "$dir/accounting.db" "'SELECT expense_id, name, amount, category FROM expense WHERE expense_id = 1;'"
a shell monkey -p com.arduia.expense -c android.intent.category.LAUNCHER 1
a shell uiautomator dump /sdcard/window_dump.xml
say "adb exec-out cat /sdcard/window_dump.xml | grep -o 'text=\"[^\"]*\"'"
adb -s "$serial" exec-out cat /sdcard/window_dump.xml | grep -o 'text="[^"]*"' | grep -v 'text=""'
say "adb exec-out screencap -p > $png"
adb -s "$serial" exec-out screencap -p >"$png"
a unroot
adb -s "$serial" wait-for-device
a shell whoami
rm -rf "$copy"
