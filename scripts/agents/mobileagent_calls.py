#!/usr/bin/env python3
"""Mobile-Agent's adb layer, driven by a scripted policy instead of its model.

A recipe for scoring Mobile-Agent (X-PLUG/MobileAgent, MIT) with
`droidscore run --agent-cmd`. Mobile-Agent is not on PyPI and its code is
not copied here: this file issues, in the same order, the adb command lines
its `Mobile-Agent-v2/MobileAgent/controller.py` issues (read at commit
11cea575561f), so the virtual phone is tested against what it sends:

- no `-s` and no `adb devices`: the phone is ANDROID_SERIAL's;
- the screenshot: `shell rm /sdcard/screenshot.png`, `shell screencap -p
  /sdcard/screenshot.png`, `pull /sdcard/screenshot.png ./screenshot`, then
  Pillow opens it (its size is the screen's; `wm size` is never asked) and
  saves a JPEG;
- the actions: `input tap X Y`, `input swipe X1 Y1 X2 Y2 500`, `input
  keyevent 4` (back), `am start -a android.intent.action.MAIN -c
  android.intent.category.HOME` (home), and typing one command a character:
  `input text %s` for a space, `input keyevent 66` for a newline, `input text
  C` for a letter or digit, `input text "C"` for -.,!?@'/:;(), and `am
  broadcast -a ADB_INPUT_TEXT --es msg "C"` (ADBKeyBoard) for anything else.

Mobile-Agent finds what to tap by OCR and icon grounding on the screenshot;
the scripted policy stands in for that and for the model, reading the
element's place from a UI dump of its own (`shell uiautomator dump`, pulled;
calls the framework does not make, said here so no one counts them as its).
It opens the app as Mobile-Agent's "Open app" does: from the home screen, a
tap on the app's label. The 0.5 s sleeps around the screenshot are left out.

    droidscore run --agent-cmd 'python3 scripts/agents/mobileagent_calls.py scripts/agents/settings.policy' ...
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from policy import steps_for_this_task

from PIL import Image

ADB = "adb"


def run(cmd):
    """As the controller runs each command: through sh, output discarded."""
    subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def get_screenshot(work):
    run(f"{ADB} shell rm /sdcard/screenshot.png")
    run(f"{ADB} shell screencap -p /sdcard/screenshot.png")
    folder = os.path.join(work, "screenshot")
    os.makedirs(folder, exist_ok=True)
    run(f"{ADB} pull /sdcard/screenshot.png {folder}")
    png = os.path.join(folder, "screenshot.png")
    image = Image.open(png)
    image.convert("RGB").save(os.path.join(folder, "screenshot.jpg"), "JPEG")
    os.remove(png)
    return image.size


def tap(x, y):
    run(f"{ADB} shell input tap {x} {y}")


def slide(x1, y1, x2, y2):
    run(f"{ADB} shell input swipe {x1} {y1} {x2} {y2} 500")


def back():
    run(f"{ADB} shell input keyevent 4")


def home():
    run(f"{ADB} shell am start -a android.intent.action.MAIN -c android.intent.category.HOME")


def type_text(text):
    text = text.replace("\\n", "_").replace("\n", "_")
    for c in text:
        if c == " ":
            run(f"{ADB} shell input text %s")
        elif c == "_":
            run(f"{ADB} shell input keyevent 66")
        elif c.isascii() and c.isalnum():
            run(f"{ADB} shell input text {c}")
        elif c in "-.,!?@'°/:;()":
            run(f'{ADB} shell input text "{c}"')
        else:
            run(f'{ADB} shell am broadcast -a ADB_INPUT_TEXT --es msg "{c}"')


def locate(work, step):
    """The policy's perception: the centre of the element the step names."""
    run(f"{ADB} shell uiautomator dump /sdcard/policy.xml")
    local = os.path.join(work, "policy.xml")
    run(f"{ADB} pull /sdcard/policy.xml {local}")
    kind, _, want = step.partition("=")
    attr = {"text": "text", "open": "text", "desc": "content-desc", "id": "resource-id"}[kind]
    pattern = re.compile(re.escape(want) if kind == "id" else want.replace("&amp;", "&"))
    for node in ET.parse(local).getroot().iter("node"):
        if pattern.fullmatch(node.attrib.get(attr, "")):
            x1, y1, x2, y2 = (int(n) for n in re.findall(r"\d+", node.attrib["bounds"]))
            return (x1 + x2) // 2, (y1 + y2) // 2
    return None


def main():
    steps = steps_for_this_task(sys.argv[1])
    if steps is None:
        return 0
    work = os.environ.get("DROIDSCORE_EPISODE_DIR", ".")
    for step in steps:
        if step.startswith("key="):
            back()
            continue
        if step.startswith("type="):
            type_text(step[len("type="):])
            continue
        if step.startswith("open="):
            home()
        for _ in range(10):
            width, height = get_screenshot(work)
            at = locate(work, step)
            if at is not None:
                tap(*at)
                break
            slide(width // 2, height * 3 // 4, width // 2, height // 4)
        else:
            print(f"mobileagent: nothing matches {step}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
