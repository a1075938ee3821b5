#!/bin/sh
# The smallest agent that drives a phone itself: POSIX sh, adb, grep, sed.
# It opens the task's app, then for each step of its policy reads the screen
# (uiautomator dump, pulled) and taps the centre of the first element that
# matches, scrolling down to look for it; a `key=` step presses a key.
#
#   droidscore run --agent-cmd 'sh scripts/agents/tap-texts.sh POLICY' …
#
# POLICY: one task a line, tab-separated: the task id, then its steps
# (settings.policy says each kind); this agent opens the app by its package,
# so it skips `open=` steps.
# A task the policy does not name is left alone (the agent exits 0).
# It reads what droidscore sets: ANDROID_SERIAL, ANDROID_ADB_SERVER_PORT,
# DROIDSCORE_TASK, DROIDSCORE_APP, DROIDSCORE_EPISODE_DIR (docs/agent-cmd.md).
set -eu
policy=$1
dir=${DROIDSCORE_EPISODE_DIR:-$(mktemp -d)}
tab=$(printf '\t')
line=$(grep "^$DROIDSCORE_TASK$tab" "$policy" || true)
[ -n "$line" ] || exit 0

# `adb shell` reads its stdin: never the loop's below.
phone() { adb shell "$@" </dev/null; }

phone monkey -p "$DROIDSCORE_APP" -c android.intent.category.LAUNCHER 1 >/dev/null

# The bounds "L T R B" of the first node whose ATTR matches REGEX whole.
find_node() {
    phone uiautomator dump /sdcard/window_dump.xml >/dev/null
    adb pull /sdcard/window_dump.xml "$dir/screen.xml" >/dev/null </dev/null
    tr '>' '\n' <"$dir/screen.xml" | grep -E " $1=\"($2)\"" | head -n 1 |
        sed -n 's/.*bounds="\[\([0-9]*\),\([0-9]*\)\]\[\([0-9]*\),\([0-9]*\)\]".*/\1 \2 \3 \4/p'
}

tap() {
    attr=$1 want=$2 tries=0
    while :; do
        box=$(find_node "$attr" "$want")
        if [ -n "$box" ]; then
            set -- $box
            phone input tap $(( ($1 + $3) / 2 )) $(( ($2 + $4) / 2 ))
            return 0
        fi
        tries=$((tries + 1))
        if [ "$tries" -gt 5 ]; then
            echo "tap-texts: no element with $attr matching $want" >&2
            return 1
        fi
        phone input swipe 540 1800 540 700 300
    done
}

printf '%s\n' "$line" | tr '\t' '\n' | tail -n +2 >"$dir/steps"
while IFS= read -r step; do
    case $step in
        text=*) tap text "${step#text=}" ;;
        desc=*) tap content-desc "${step#desc=}" ;;
        id=*) tap resource-id "${step#id=}" ;;
        key=*) phone input keyevent "${step#key=}" ;;
        open=*) ;;
        type=*) phone input text "$(printf '%s' "${step#type=}" | sed 's/ /%s/g')" ;;
        *) echo "tap-texts: unknown step $step" >&2; exit 2 ;;
    esac
done <"$dir/steps"
