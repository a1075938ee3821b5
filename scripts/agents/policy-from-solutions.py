#!/usr/bin/env python3
"""Write a policy for the scripted agents (scripts/agents/) from the tasks'
reference solutions: one line a task whose solution a tap-by-text agent can
play, in settings.policy's format, on stdout; the tasks it cannot play are
counted on stderr with why. Playable: one app opened at the start, taps by
text, content-desc or resource-id (alone), keys, typed text and answers
without parameters. Not: a second app, taps by place or inside another
element, long presses, swipes, and parameterised text.

    python3 scripts/agents/policy-from-solutions.py tasks > all.policy
"""

import collections
import glob
import os
import sys
import tomllib

# Launcher labels, as the simulator's home screen shows them.
LABELS = {
    "com.android.settings": "Settings",
    "com.google.android.deskclock": "Clock",
    "com.google.android.contacts": "Contacts",
    "com.google.android.dialer": "Phone",
    "com.google.android.apps.messaging": "Messages",
    "com.google.android.calendar": "Calendar",
    "com.google.android.documentsui": "Files",
}
KEYS = {"back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "enter": "KEYCODE_ENTER"}


def exact(text):
    """A regex matching `text` whole, as the agents read one."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


def dump_text(regex):
    """As the dump writes it (tap-texts.sh greps the XML): & is &amp;."""
    return regex.replace("&", "&amp;")


def step(s):
    """One solution step as a policy step, or why it is none."""
    if len(s) != 1:
        return None, "a step of several kinds"
    kind, value = next(iter(s.items()))
    if kind == "key":
        return (f"key={KEYS[value]}", None) if value in KEYS else (None, f"key {value}")
    if kind in ("type", "answer"):
        if "{" in value:
            return None, f"parameterised {kind}"
        return f"{kind}={value}", None
    if kind != "tap":
        return None, kind
    sel = {k: v for k, v in value.items() if k != "row"}
    if len(sel) != 1:
        return None, "tap by " + "+".join(sorted(sel))
    (how, what), = sel.items()
    if "{" in str(what):
        return None, "parameterised tap"
    if how == "text":
        return "text=" + dump_text(exact(what)), None
    if how == "text_regex":
        return "text=" + dump_text(what), None
    if how == "desc":
        return "desc=" + dump_text(exact(what)), None
    if how == "desc_regex":
        return "desc=" + dump_text(what), None
    if how == "resource_id":
        return "id=" + what, None
    return None, f"tap by {how}"


def main():
    why_not = collections.Counter()
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.toml"))):
        task = tomllib.load(open(path, "rb"))
        solution = task.get("solution", [])
        launches = [s for s in solution if "launch" in s]
        if len(launches) != 1 or "launch" not in solution[0] or task["app"] not in LABELS:
            why_not["another app"] += 1
            continue
        steps, reasons = [f"open={LABELS[task['app']]}"], []
        for s in solution[1:]:
            out, why = step(s)
            steps.append(out)
            if why:
                reasons.append(why)
        if reasons:
            why_not[reasons[0]] += 1
            continue
        print("\t".join([task["id"]] + steps))
    for why, n in why_not.most_common():
        print(f"not playable: {n} ({why})", file=sys.stderr)


if __name__ == "__main__":
    main()
