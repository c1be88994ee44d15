"""Runs functions of the real upstream Dressage source for differential tests (python3 stdlib only).

Modules whose top level imports what is not installed here (httpx, the reward registry) are not imported: the named
functions and constants are taken from their source with `ast` and run in a namespace with the stdlib modules they
use. Nothing of upstream is copied; it is read from ../shared/upstream at run time.

Protocol: argv[1] is the Dressage checkout. stdin holds one JSON request per line, {"fn": name, "args": [...],
"env": {...}}; stdout gets one JSON reply per line, {"ok": value} or {"error": "Type: message"}. Floats that JSON
cannot hold are written as {"$float": "nan" | "inf" | "-inf"}.
"""

import ast
import base64
import copy
import importlib.util
import json
import math
import os
import re
import shlex
import sys
import time
import uuid
import zlib
from pathlib import Path, PurePosixPath

ROOT = Path(sys.argv[1])


def load_module(rel):
    spec = importlib.util.spec_from_file_location(rel.replace("/", "_"), ROOT / rel)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_functions(rel, names, extra=None):
    """Executes only the named top-level functions/assignments of a module, without its imports."""
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
    body = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            node.decorator_list = []
            body.append(node)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in names for t in node.targets
        ):
            body.append(node)
    namespace = {
        "__name__": "oracle_" + rel.replace("/", "_"),
        "Any": object,
        "json": json,
        "os": os,
        "re": re,
        "shlex": shlex,
        "base64": base64,
        "zlib": zlib,
        "uuid": uuid,
        "time": time,
        "PurePosixPath": PurePosixPath,
        "logger": __import__("logging").getLogger("oracle"),
    }
    namespace.update(extra or {})
    exec(compile(ast.Module(body=body, type_ignores=[]), str(ROOT / rel), "exec"), namespace)
    return namespace


integrity = load_module("dressage/recipes/swegym/integrity.py")
defaults = load_module("dressage/paddock/blackbox/common/defaults.py")
evaluator = load_functions(
    "dressage/recipes/swegym/evaluator.py",
    {
        "REWARD_MARKER",
        "_prohibited_patch_paths",
        "_is_test_or_harness_path",
        "_positive_float",
        "_extract_patch_command",
        "_apply_patch_command",
        "_record_failure",
    },
)
reward = load_functions(
    "dressage/recipes/swegym/reward.py",
    {"REWARD_MARKER", "_marker_payload", "swegym_harness_marker_reward"},
    {"zero_reward_for_integrity_violation": integrity.zero_reward_for_integrity_violation},
)


class Args:
    def __init__(self, values):
        for key, value in (values or {}).items():
            setattr(self, key, value)


class Sample:
    def __init__(self, metadata):
        self.metadata = metadata


def marker_reward(metadata):
    value = reward["swegym_harness_marker_reward"](Sample(metadata))
    return {"reward": value, "diag": metadata.get("swegym_reward")}


def merge_backend_options(blackbox_type, options, args):
    return defaults.merge_backend_options(
        blackbox_type, options, args=None if args is None else Args(args)
    )


def scan_integrity(payload, metadata):
    integrity._configured_blocked_repo_slugs.cache_clear()
    result = integrity.scan_trajectory_integrity(payload, metadata)
    return {"result": result, "metadata": metadata}


def _logger_call(rel, contains):
    """The logger call in an upstream file whose format string contains `contains`: (level, format, lineno, exc_info)."""
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"debug", "info", "warning", "error", "exception"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and contains in node.args[0].value
        ):
            exc_info = node.func.attr == "exception" or any(
                k.arg == "exc_info" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords
            )
            return node.func.attr, node.args[0].value, node.lineno, exc_info
    raise LookupError(f"no logger call with {contains!r} in {rel}")


def log_record(rel, contains, args, exc):
    """The text slime's logger writes for that call (configure_logger's format), with a real traceback when the call
    passes exc_info=True and `exc` ("Type: message") is given."""
    import builtins
    import logging

    level, fmt, lineno, exc_info = _logger_call(rel, contains)
    configure = load_functions(
        "slime/slime/utils/logging_utils.py", {"configure_logger", "_LOGGER_CONFIGURED"}, {"logging": logging}
    )
    configure["configure_logger"]()
    formatter = logging.getLogger().handlers[0].formatter
    info = None
    if exc_info and exc:
        name, _, message = exc.partition(": ")
        try:
            raise getattr(builtins, name)(message)
        except Exception:
            info = sys.exc_info()
    record = logging.getLogger("oracle").makeRecord(
        "oracle",
        logging.ERROR if level in {"error", "exception"} else getattr(logging, level.upper()),
        str(ROOT / rel),
        lineno,
        fmt,
        tuple(args),
        info,
    )
    return formatter.format(record)


class _Status:
    def __init__(self, name):
        self.name = name


class _GroupSample:
    def __init__(self, spec):
        self.status = _Status(spec["status"])
        self.metadata = spec.get("metadata") or {}
        self.index = spec.get("index", 0)


rollout_fns = load_functions(
    "dressage/rollout/fully_async_rollout.py",
    {"_group_failure_summary", "_sample_status_name", "_short_error", "_sample_metadata"},
)


def group_summary(samples, error):
    import builtins

    exc = None
    if error:
        name, _, message = error.partition(": ")
        exc = getattr(builtins, name)(message)
    return rollout_fns["_group_failure_summary"]([_GroupSample(s) for s in samples], exc)


FUNCTIONS = {
    "log_record": log_record,
    "group_summary": group_summary,
    "prohibited_patch_paths": evaluator["_prohibited_patch_paths"],
    "is_test_or_harness_path": evaluator["_is_test_or_harness_path"],
    "positive_float": lambda value, env_name, default: evaluator["_positive_float"](
        value, env_name=env_name, default=default
    ),
    "extract_patch_command": lambda workdir, base: evaluator["_extract_patch_command"](
        workdir, base_commit=base
    ),
    "marker_payload": reward["_marker_payload"],
    "marker_reward": marker_reward,
    "merge_backend_options": merge_backend_options,
    "server_config_for": defaults.server_config_for,
    "scan_integrity": scan_integrity,
    "splitlines": lambda text: text.splitlines(),
    "shlex_split": shlex.split,
}


def encode(value):
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    saved = dict(os.environ)
    try:
        for key, value in (request.get("env") or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reply = {"ok": encode(FUNCTIONS[request["fn"]](*request.get("args", [])))}
    except Exception as exc:  # the oracle reports what upstream raised
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        os.environ.clear()
        os.environ.update(saved)
    sys.stdout.write(json.dumps(reply, ensure_ascii=True, allow_nan=False) + "\n")
    sys.stdout.flush()
