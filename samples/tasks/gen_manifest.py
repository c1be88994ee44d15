#!/usr/bin/env python3
"""Builds samples/tasks/manifest.json from the task directories and PROVES each task:
- the /testbed repo is created by make_testbed.sh (deterministic base_commit);
- with test.patch applied, every FAIL_TO_PASS test fails before gold.patch and passes after it;
- every PASS_TO_PASS test passes before and after.
Usage: gen_manifest.py [--check]   (--check: verify that manifest.json is up to date, write nothing)
Standard library, git and bash only.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "common", "run_tests.py")
LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL) (\S+)$")


def sh(args, cwd, check=True):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit("command failed (%s) in %s:\n%s%s" % (" ".join(args), cwd, r.stdout, r.stderr))
    return r


def statuses(testbed, files):
    r = sh([sys.executable, RUNNER] + files, testbed, check=False)
    out = {}
    for line in r.stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            out[m.group(2)] = m.group(1)
    return out


def test_files(patch):
    return sorted(set(re.findall(r"^\+\+\+ b/(\S+)$", patch, re.M)))


def build(task):
    tdir = os.path.join(HERE, task)
    read = lambda name: open(os.path.join(tdir, name)).read()
    patch, test_patch = read("gold.patch"), read("test.patch")
    problem = read("problem_statement.md").strip() + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        testbed = os.path.join(tmp, "testbed")
        base = sh(["bash", os.path.join(HERE, "make_testbed.sh"), tdir, testbed], HERE).stdout.strip()
        sh(["git", "apply", "-v", os.path.join(tdir, "test.patch")], testbed)
        files = test_files(test_patch)
        before = statuses(testbed, files)
        sh(["git", "apply", "-v", os.path.join(tdir, "gold.patch")], testbed)
        after = statuses(testbed, files)
    if not before or set(before) != set(after):
        raise SystemExit("%s: test runs disagree: %r vs %r" % (task, before, after))
    f2p = sorted(t for t in before if before[t] != "PASSED" and after[t] == "PASSED")
    p2p = sorted(t for t in before if before[t] == "PASSED" and after[t] == "PASSED")
    broken = sorted(t for t in after if after[t] != "PASSED")
    if broken or not f2p:
        raise SystemExit("%s: gold patch leaves failing tests %r (F2P %r)" % (task, broken, f2p))
    owner, rest = task.split("__", 1)
    name = rest.rsplit("-", 1)[0]
    version = re.search(r'__version__ = "([^"]+)"', open(os.path.join(tdir, "repo", name, "__init__.py")).read()).group(1)
    return {
        "instance_id": task,
        "repo": "%s/%s" % (owner, name),
        "base_commit": base,
        "patch": patch,
        "test_patch": test_patch,
        "problem_statement": problem,
        "hints_text": "",
        "created_at": "2024-01-01T00:00:00Z",
        "version": version.rsplit(".", 1)[0],
        "environment_setup_commit": base,
        "FAIL_TO_PASS": f2p,
        "PASS_TO_PASS": p2p,
        "local": {
            "task_dir": "samples/tasks/%s" % task,
            "testbed_script": "samples/tasks/make_testbed.sh",
            "test_command": "cd /testbed && python3 /opt/swegym-sample/run_tests.py %s" % " ".join(test_files(test_patch)),
            "start_command": "bash /opt/swegym-sample/start.sh",
            "health": {"port": 31000, "path": "/health", "body": {"healthy": True, "version": "1.1.0"}},
            "copies": [
                {"src": "samples/tasks/common/health_server.py", "dest": "/opt/swegym-sample/health_server.py", "mode": 420},
                {"src": "samples/tasks/common/start.sh", "dest": "/opt/swegym-sample/start.sh", "mode": 493},
                {"src": "samples/tasks/common/run_tests.py", "dest": "/opt/swegym-sample/run_tests.py", "mode": 420},
                {"src": "samples/tasks/common/claude", "dest": "/usr/local/bin/claude", "mode": 493},
            ],
        },
    }


def main(argv):
    tasks = sorted(d for d in os.listdir(HERE) if "__" in d and os.path.isdir(os.path.join(HERE, d)))
    doc = {
        "description": "Sample SWE-Gym-like tasks for swegym-console (tiny stdlib Python repos written for this project). "
        "Fields follow SWE-Gym/SWE-bench; FAIL_TO_PASS/PASS_TO_PASS are JSON lists; `local` is console-only.",
        "instances": [build(t) for t in tasks],
    }
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    target = os.path.join(HERE, "manifest.json")
    if "--check" in argv:
        current = open(target).read() if os.path.exists(target) else ""
        if current != text:
            print("manifest.json is out of date: run samples/tasks/gen_manifest.py", file=sys.stderr)
            return 1
        print("manifest.json is up to date (%d tasks verified)" % len(tasks))
        return 0
    tmp = target + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, target)
    print("wrote %s (%d tasks verified)" % (target, len(tasks)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
