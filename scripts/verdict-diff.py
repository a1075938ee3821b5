"""Compare two `droidscore run --json` outputs episode by episode: the
verdicts must be equal, except episodes the second run skipped, which are
listed with their reasons. Exit 1 on any other difference."""
import json
import sys


def load(path):
    with open(path) as f:
        return {(e["task"], e["variant"], e["repeat"]): e for e in json.load(f)}


a_path, b_path = sys.argv[1], sys.argv[2]
a, b = load(a_path), load(b_path)
differ, skipped, same = [], [], 0
for key in sorted(set(a) | set(b)):
    ea, eb = a.get(key), b.get(key)
    name = "/".join(str(k) for k in key[:2])
    if ea is None or eb is None:
        differ.append(f"{name}: only in {'second' if ea is None else 'first'} run")
    elif eb["status"] == "skipped" and ea["status"] != "skipped":
        skipped.append(f"{name}: {ea['status']} -> skipped: {eb['reason']}")
    elif ea["status"] != eb["status"]:
        differ.append(f"{name}: {ea['status']} -> {eb['status']}: {eb['reason']}")
    else:
        same += 1
print(f"verdicts: {same} equal, {len(skipped)} skipped in the second run, {len(differ)} different")
for line in skipped:
    print(f"  skipped  {line}")
for line in differ:
    print(f"  DIFFERS  {line}")
sys.exit(1 if differ else 0)
