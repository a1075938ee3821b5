#!/usr/bin/env python3
"""AppAgent's adb layer, driven by a scripted policy instead of its model.

A recipe for scoring AppAgent (TencentQQGYLab/AppAgent, MIT) with
`droidscore run --agent-cmd`. AppAgent is not on PyPI and its code is not
copied here: this file issues, in the same order, the adb command lines its
`scripts/and_controller.py` issues (read at commit 2c1900422caf), so the
virtual phone is tested against exactly what AppAgent sends:

- the device: `adb devices`, the first one listed (AppAgent reads no
  ANDROID_SERIAL), then `adb -s SERIAL ...` for every command;
- the size: `adb -s S shell wm size`, read as `out.split(": ")[1]`;
- each round: `shell screencap -p /sdcard/P.png`, `pull` it, `shell
  uiautomator dump /sdcard/P.xml`, `pull` it, one action;
- the actions: `input tap X Y` at an element's centre, `input text T` (spaces
  as %s, ' dropped), `input swipe X Y X2 Y2 400`, `input keyevent KEYCODE_BACK`;
- the element list: clickable nodes, then focusable ones, each dropped when
  its centre is within 30 px of one already listed (`traverse_tree`).

The scripted policy plays the model: for each step of the task's line in
POLICY (settings.policy says the kinds) it picks the element the model would
name, `tap(n)`. As AppAgent's README asks, the app is opened first, by the
person (here `am start PKG`). Usage, with droidscore's environment set:

    droidscore run --agent-cmd 'python3 scripts/agents/appagent_calls.py scripts/agents/settings.policy' ...
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from policy import steps_for_this_task

MIN_DIST = 30


def execute(cmd):
    """and_controller.execute_adb: through sh, stdout or "ERROR" on a status."""
    result = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode == 0:
        return result.stdout.strip()
    print(f"appagent: {cmd}: {result.stderr.strip()}", file=sys.stderr)
    return "ERROR"


def first_device():
    lines = execute("adb devices").split("\n")[1:]
    devices = [line.split()[0] for line in lines if line.strip()]
    if not devices:
        sys.exit("appagent: no device")
    return devices[0]


class Element:
    def __init__(self, node):
        nums = [int(n) for n in re.findall(r"\d+", node.attrib["bounds"])]
        self.box = nums
        self.centre = ((nums[0] + nums[2]) // 2, (nums[1] + nums[3]) // 2)


def element_list(xml_path):
    """traverse_tree: clickables, then focusables, 30 px apart."""
    root = ET.parse(xml_path).getroot()
    nodes = list(root.iter("node"))
    listed = []

    def add(attr):
        for node in nodes:
            if node.attrib.get(attr) != "true":
                continue
            elem = Element(node)
            if all(abs(elem.centre[0] - e.centre[0]) + abs(elem.centre[1] - e.centre[1]) > MIN_DIST
                   for e in listed):
                listed.append(elem)

    add("clickable")
    add("focusable")
    return nodes, listed


class Controller:
    """The AndroidController's calls, as its source makes them."""

    def __init__(self, device, work):
        self.device, self.work = device, work
        size = execute(f"adb -s {device} shell wm size")
        self.width, self.height = (int(v) for v in size.split(": ")[1].split("x"))

    def observe(self, prefix):
        d = self.device
        for ext, cmd in (("png", "screencap -p"), ("xml", "uiautomator dump")):
            remote = f"/sdcard/{prefix}.{ext}"
            if execute(f"adb -s {d} shell {cmd} {remote}") == "ERROR":
                return None
            if execute(f"adb -s {d} pull {remote} {os.path.join(self.work, prefix + '.' + ext)}") == "ERROR":
                return None
        return os.path.join(self.work, prefix + ".xml")

    def tap(self, x, y):
        return execute(f"adb -s {self.device} shell input tap {x} {y}")

    def text(self, s):
        s = s.replace(" ", "%s").replace("'", "")
        return execute(f"adb -s {self.device} shell input text {s}")

    def back(self):
        return execute(f"adb -s {self.device} shell input keyevent KEYCODE_BACK")

    def swipe(self, x, y, direction, dist="medium"):
        unit = int(self.width / 10) * {"short": 1, "medium": 2, "long": 3}[dist]
        dx, dy = {"up": (0, -2 * unit), "down": (0, 2 * unit), "left": (-unit, 0), "right": (unit, 0)}[direction]
        return execute(f"adb -s {self.device} shell input swipe {x} {y} {x + dx} {y + dy} 400")


def choose(nodes, listed, step):
    """The model's answer: the listed element around the node the step names."""
    kind, _, want = step.partition("=")
    attr = {"text": "text", "desc": "content-desc", "id": "resource-id"}[kind]
    pattern = re.compile(want.replace("&amp;", "&") if kind != "id" else re.escape(want))
    for node in nodes:
        if pattern.fullmatch(node.attrib.get(attr, "")):
            cx, cy = Element(node).centre
            around = [i for i, e in enumerate(listed)
                      if e.box[0] <= cx <= e.box[2] and e.box[1] <= cy <= e.box[3]]
            if around:
                # The smallest element that holds it, as a labelled screenshot shows it.
                return min(around, key=lambda i: (listed[i].box[2] - listed[i].box[0]) * (listed[i].box[3] - listed[i].box[1])) + 1
    return None


def main():
    steps = steps_for_this_task(sys.argv[1])
    if steps is None:
        return 0
    task = os.environ["DROIDSCORE_TASK"]
    work = os.environ.get("DROIDSCORE_EPISODE_DIR", ".")
    device = first_device()
    controller = Controller(device, work)
    # The person opens the app (AppAgent starts from its screen).
    execute(f"adb -s {device} shell am start {os.environ['DROIDSCORE_APP']}")
    round_no = 0
    for step in steps:
        if step.startswith("open="):
            continue
        if step.startswith("key="):
            controller.back()
            continue
        if step.startswith("type="):
            controller.text(step[len("type="):])
            continue
        for _ in range(10):
            round_no += 1
            xml = controller.observe(f"task_{task}_{round_no}")
            if xml is None:
                return 1
            nodes, listed = element_list(xml)
            n = choose(nodes, listed, step)
            if n is not None:
                x, y = listed[n - 1].centre
                controller.tap(x, y)
                break
            # Not on this screen: the model would answer `swipe(e, "up", "long")`.
            controller.swipe(controller.width // 2, controller.height // 2, "up", "long")
        else:
            print(f"appagent: nothing matches {step}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
