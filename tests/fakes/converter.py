#!/usr/bin/env python3
"""Fake of Dressage's examples/data/swegym/prepare_swegym_data.py for tests (stdlib only).

Written from the reference (dressage-swegym-recipe.md §1.5, §2.2, §2.3), not from the console's verifier: the same
flags and defaults, the same argparse (exit 2) and runtime (exit 1) error strings, the same row schema and the
same success line on stderr. It cannot read parquet, so the test hands it the split's instances as JSON in
FAKE_SWEGYM_INSTANCES (a file path). FAKE_CONVERTER_CRASH=1 makes it die with a traceback after starting the
temp file (the previous output must survive).
"""
import argparse
import base64
import json
import os
import sys
import zlib

EXPECTED = {"train": 293, "validation": 23}
HARNESS_COMMIT = "16dd480cce9b27bf111a362d280881c6def5d2a7"
LEGACY = {"marshmallow-code/marshmallow", "pydicom/pydicom", "pylint-dev/astroid", "pvlib/pvlib-python", "pyvista/pyvista", "sqlfluff/sqlfluff"}
RULES = (
    "Integrity rules:\n"
    "- Do not modify tests, pytest configuration, or evaluation harness files.\n"
    "- Do not retrieve a solution, patch, commit, or pull request from the task repository or its mirrors."
)
REQUIRED = ["instance_id", "repo", "problem_statement", "base_commit", "version", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS"]


def image_for(instance_id, repo):
    owner, rest = instance_id.split("__", 1)
    image_repo, issue = rest.rsplit("-", 1)
    if repo in LEGACY:
        return "swebench/sweb.eval.x86_64.%s_1776_%s-%s:latest" % (owner, image_repo, issue)
    return "xingyaoww/sweb.eval.x86_64.%s:latest" % instance_id.replace("__", "_s_").lower()


def b64z(text):
    return base64.b64encode(zlib.compress(text.encode("utf-8"))).decode("ascii")


def sh_single(script):
    return "bash -lc '" + script.replace("'", "'\\''") + "'"


def sanitizer(base, workdir):
    steps = [
        "set -e",
        "cd %s" % workdir,
        'git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SWE-Gym git sanitize failed: not a git worktree" >&2; exit 2; }',
        "git config --global --add safe.directory %s" % workdir,
        'git cat-file -e %s^{commit} 2>/dev/null || { echo "SWE-Gym git sanitize failed: missing base commit %s" >&2; exit 2; }' % (base, base),
        "git reset --hard %s" % base,
        "git clean -ffd",
        "git checkout --detach",
        "for r in $(git remote); do git remote remove \"$r\"; done",
        "git for-each-ref --format=\"delete %(refname)\" | git update-ref --stdin",
        "git reflog expire --expire=now --all",
        "git gc --prune=now",
        "git prune --expire=now",
        'test "$(git rev-parse HEAD)" = %s' % base,
        'test -z "$(git status --porcelain)"',
        'echo "SWE-Gym git sanitize completed at %s"' % base,
    ]
    return sh_single("; ".join(steps))


def harness_cmd(inst, f2p, p2p, test_timeout, workdir):
    slug = "".join(c if (c.isalnum() or c in "_.-") else "_" for c in inst["instance_id"])
    script = "#!/bin/bash\nset -xo pipefail\ncd %s\ngit apply -v - <<'EOF_114329324912'\n%s\nEOF_114329324912\npytest -rA\n" % (workdir, inst["test_patch"])
    expected = base64.b64encode(json.dumps({"FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p}).encode()).decode()
    grader = "import sys\nprint('DRESSAGE_SWEGYM_REWARD_JSON=' + '{}')\n"
    path = "/tmp/dressage_swegym_eval_%s" % slug
    return (
        "python3 -c \"import base64,sys,zlib; open(sys.argv[1],'wb').write(zlib.decompress(base64.b64decode(sys.argv[2])))\" %s.sh %s"
        " && chmod 0700 %s.sh; timeout %d bash %s.sh > %s.log 2>&1; RC=$?;"
        " python3 -c \"import base64,sys,zlib; exec(zlib.decompress(base64.b64decode(sys.argv.pop(1))))\" %s %s.log %s %s \"$RC\""
        % (path, b64z(script), path, test_timeout, path, path, b64z(grader), path, expected, inst["repo"].lower())
    )


def main():
    p = argparse.ArgumentParser(prog="prepare_swegym_data.py")
    p.add_argument("output")
    p.add_argument("--input")
    p.add_argument("--split", choices=["train", "validation"], default="train")
    p.add_argument("--download", action="store_true")
    p.add_argument("--download-dir", default="data/swegym_raw")
    p.add_argument("--swegym-package-root")
    p.add_argument("--workdir", default="/testbed")
    p.add_argument("--blackbox-type", default="claude_code")
    p.add_argument("--provider", choices=["custom", "e2b"], default="e2b")
    p.add_argument("--sandbox-image-map")
    p.add_argument("--bbs-wheel-url", default=os.environ.get("CLAUDE_CODE_BBS_WHEEL_URL", ""))
    p.add_argument("--binary-url", default=os.environ.get("CLAUDE_CODE_BINARY_URL", ""))
    p.add_argument("--runtime-url", default=os.environ.get("CLAUDE_CODE_RUNTIME_URL", ""))
    p.add_argument("--max-turns", type=int, default=80)
    p.add_argument("--permission-mode", choices=["acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"], default="acceptEdits")
    p.add_argument("--test-timeout", type=int, default=1200)
    p.add_argument("--command-timeout", type=int, default=1260)
    p.add_argument("--sandbox-timeout", type=int, default=3600)
    p.add_argument("--git-sanitize-timeout", type=int, default=120)
    p.add_argument("--limit", type=int)
    a = p.parse_args()
    if a.provider == "e2b" and not a.sandbox_image_map:
        p.error("--sandbox-image-map is required for --provider e2b")
    if a.provider == "e2b" and (a.bbs_wheel_url or a.binary_url or a.runtime_url):
        p.error("--provider e2b expects Claude Code and BBS in the prebuilt template; do not pass runtime bootstrap URLs")
    if bool(a.binary_url) != bool(a.runtime_url):
        p.error("--binary-url and --runtime-url must be set together")
    if (a.bbs_wheel_url or a.binary_url) and a.blackbox_type != "claude_code":
        p.error("Claude Code bootstrap URLs require --blackbox-type claude_code")
    if a.max_turns <= 0:
        p.error("--max-turns must be positive")
    if not a.input and not a.download:
        raise SystemExit("--input is required unless --download is used")

    with open(os.environ["FAKE_SWEGYM_INSTANCES"], encoding="utf-8") as f:
        instances = json.load(f)
    if len(instances) != EXPECTED[a.split]:
        raise SystemExit("expected %d %s rows, got %d" % (EXPECTED[a.split], a.split, len(instances)))

    if a.swegym_package_root:
        if not os.path.isdir(os.path.join(a.swegym_package_root, "swegym")):
            raise SystemExit("invalid SWE-Gym package root: %s" % a.swegym_package_root)
    else:
        try:
            import swegym.harness.test_spec  # noqa: F401
        except ImportError:
            raise SystemExit("The pinned swegym harness is required; install SWE-Bench-Package at commit %s or pass --swegym-package-root" % HARNESS_COMMIT)

    image_map = None
    if a.sandbox_image_map:
        path = a.sandbox_image_map
        try:
            with open(path, encoding="utf-8") as f:
                image_map = json.load(f)
        except json.JSONDecodeError as e:
            raise SystemExit("invalid sandbox image map %s: %s" % (path, e))
        if not isinstance(image_map, dict):
            raise SystemExit("sandbox image map must be a JSON object: %s" % path)
        if any(not str(k).strip() or not str(v).strip() for k, v in image_map.items()):
            raise SystemExit("sandbox image map contains an empty key or value: %s" % path)
        if not image_map:
            raise SystemExit("sandbox image map is empty: %s" % path)

    if a.limit is not None:
        instances = instances[: a.limit]

    rows = []
    for inst in instances:
        missing = [k for k in REQUIRED if k not in inst]
        if missing:
            raise SystemExit("SWE-Gym instance %s missing fields: %s" % (inst.get("instance_id", "?"), ", ".join(missing)))
        f2p, p2p = inst["FAIL_TO_PASS"], inst["PASS_TO_PASS"]
        if isinstance(f2p, str):
            f2p = json.loads(f2p)
        if isinstance(p2p, str):
            p2p = json.loads(p2p)
        if not isinstance(f2p, list):
            raise SystemExit("FAIL_TO_PASS must be a list for %s" % inst["instance_id"])
        docker = image_for(inst["instance_id"], inst["repo"])
        if a.provider == "e2b":
            if docker not in image_map:
                raise SystemExit("sandbox image map has no entry for '%s' (instance %s)" % (docker, inst["instance_id"]))
            sandbox_image = image_map[docker]
        else:
            sandbox_image = image_map.get(docker, docker) if image_map else docker
        base = inst["base_commit"]
        meta = {
            "agent_mode": "blackbox",
            "blackbox_type": a.blackbox_type,
            "instance_id": inst["instance_id"],
            "repo": inst["repo"],
            "repo_name": inst["repo"].split("/")[-1],
            "base_commit": base,
            "commit_hash": base,
            "workdir": a.workdir,
            "task_type": "swe-gym",
            "dataset": "NovaSky-AI/SkyRL-v0-293-data",
            "dataset_split": a.split,
            "reward_fn": "swegym_harness_marker",
            "swegym_harness_commit": HARNESS_COMMIT,
            "swegym_eval_mode": "official_script_in_fresh_sandbox",
            "swegym_fresh_eval": True,
            "swegym_git_sanitizer": {"enabled": True, "target_commit": base, "workdir": a.workdir},
            "FAIL_TO_PASS": f2p,
            "PASS_TO_PASS": p2p,
            "sandbox_image": sandbox_image,
            "sandbox_timeout_sec": a.sandbox_timeout,
            "blackbox_execute_cmds": {
                "before_agent": [{"name": "swegym_git_sanitize", "cmd": sanitizer(base, a.workdir), "timeout": a.git_sanitize_timeout, "required": True}],
                "after_agent": [{"name": "swegym_harness", "cmd": harness_cmd(inst, f2p, p2p, a.test_timeout, a.workdir), "timeout": a.command_timeout, "required": False}],
            },
        }
        if docker != sandbox_image:
            meta["docker_image"] = docker
        if a.blackbox_type == "claude_code":
            meta["backend_options"] = {
                "working_directory": a.workdir,
                "max_turns": a.max_turns,
                "permission_mode": a.permission_mode,
                "setting_sources": "user",
                "system_prompt_mode": "append",
                "compaction": {"auto": True},
                "compat": {"disable_prompt_caching": True, "disable_nonessential_traffic": True},
                "subagents": {"enabled": False},
            }
        rows.append({"prompt": [{"role": "user", "content": inst["problem_statement"].strip() + "\n\n" + RULES}], "label": "", "metadata": meta})

    out = a.output
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = os.path.join(os.path.dirname(os.path.abspath(out)), ".%s.tmp.%d" % (os.path.basename(out), os.getpid()))
    with open(tmp, "w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            f.write(json.dumps(row, separators=(",", ":"), ensure_ascii=False) + "\n")
            if i == 0 and os.environ.get("FAKE_CONVERTER_CRASH") == "1":
                f.flush()
                raise RuntimeError("simulated converter crash")
    os.replace(tmp, out)
    print("wrote %d %s rows from %s to %s" % (len(rows), a.split, a.input, out), file=sys.stderr)


if __name__ == "__main__":
    main()
