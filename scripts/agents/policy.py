"""The policy the scripted agents in scripts/agents/ follow (settings.policy
says its format): the steps of the task droidscore runs now."""

import os


def steps_for_this_task(path):
    """The steps of `DROIDSCORE_TASK`'s line in the policy at `path`, or None."""
    task = os.environ["DROIDSCORE_TASK"]
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == task:
                return fields[1:]
    return None
