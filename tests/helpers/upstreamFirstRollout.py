"""What Dressage's own Python code does with a launch's settings when the first rollout reaches it.

Runs the REAL upstream modules, imported from the checkout in argv[1] (nothing copied): the claude_code backend
options merge (dressage/paddock/blackbox/common/defaults.py, what blackbox_dispatch_swegym.generate calls first),
then runtime.get_paddock_from_env(allow_whitebox_mode=False) (dressage/rollout/generate/runtime.py), which goes
through paddock/factory.py, sandbox/factory.py, the provider's constructor and BlackboxAgentPaddock.__init__, then for
E2B the provider's create() up to the SDK call.

Stubbed, because they are not installed here and nothing of them is judged: `httpx` (imported at the top of
dressage/paddock/blackbox/client.py; the client is only constructed), Ray (LocalBwrapSandboxProvider connects to its
manager actor in __init__: _connect_manager returns a stand-in) and the E2B SDK (create() is handed a factory that
records its arguments and stops there).

Protocol: one JSON request per stdin line, {"fn": name, "args": [...], "env": {...}}; one reply per stdout line,
{"ok": value} or {"error": "Type: message"}. The environment is reset to the process's own before each request, with
every DRESSAGE_*/PROXY_*/MASTER_ADDR variable removed, then the request's env applied.
"""

import asyncio
import json
import os
import sys
import tempfile
import types

ROOT = sys.argv[1]
sys.dont_write_bytecode = True
sys.path.insert(0, ROOT)

# httpx stand-in: any attribute is a class whose instances accept anything.
_httpx = types.ModuleType("httpx")


class _Anything:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return _Anything()

    def __call__(self, *args, **kwargs):
        return _Anything()


_httpx.__getattr__ = lambda name: _Anything  # type: ignore[attr-defined]
sys.modules.setdefault("httpx", _httpx)

from dressage.paddock.blackbox.common import defaults  # noqa: E402
from dressage.paddock.blackbox.common import utils as paddock_utils  # noqa: E402
from dressage.rollout.generate import runtime  # noqa: E402
from dressage.sandbox import SandboxServiceSpec, SandboxSpec  # noqa: E402
from dressage.sandbox.local.bwrap import provider as bwrap_provider  # noqa: E402

bwrap_provider.LocalBwrapSandboxProvider._connect_manager = lambda self, **kwargs: _Anything()


class Args:
    def __init__(self, values):
        for key, value in (values or {}).items():
            setattr(self, key, value)


class ReachedSdk(Exception):
    pass


def _recording_factory(**kwargs):
    raise ReachedSdk(json.dumps({"api_key": bool(kwargs.get("api_key")), "template": kwargs.get("template")}))


def _error(stage, exc):
    return {"stage": stage, "error": f"{type(exc).__name__}: {exc}"}


def first_rollout(args):
    try:
        defaults.merge_backend_options("claude_code", None, args=Args(args))
    except Exception as exc:
        return _error("backend_options", exc)
    runtime._PADDOCK = None
    runtime._PADDOCK_BY_MODE.clear()
    try:
        paddock = runtime.get_paddock_from_env(allow_whitebox_mode=False)
    except Exception as exc:
        return _error("paddock", exc)
    provider = getattr(paddock, "_provider", None)
    out = {"stage": "ok", "paddock": type(paddock).__name__, "provider": type(provider).__name__ if provider else None}
    if type(provider).__name__ == "E2BSandboxProvider":
        provider._sandbox_factory = _recording_factory
        spec = SandboxSpec(
            trajectory_id="oracle",
            env_args={"sandbox_image": "tpl-oracle"},
            services=(SandboxServiceSpec(name="blackbox", port=paddock._blackbox_port, health_path="/health"),),
            timeout_sec=3600,
        )
        try:
            asyncio.run(provider.create(spec))
        except ReachedSdk as reached:
            out["sdk"] = json.loads(str(reached))
        except Exception as exc:
            return _error("create", exc)
    return out


FUNCTIONS = {
    "first_rollout": first_rollout,
    "validate_proxy_url": paddock_utils._validate_public_proxy_url,
    "py_int": lambda text: int(text),
    "py_repr": repr,
}

SCRUB = ("DRESSAGE_", "PROXY_", "SGLANG_")
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB) and k not in {"MASTER_ADDR", "E2B_API_KEY"}}
BASE_ENV["TMPDIR"] = tempfile.gettempdir()

for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    os.environ.clear()
    os.environ.update(BASE_ENV)
    os.environ.update(request.get("env") or {})
    try:
        reply = {"ok": FUNCTIONS[request["fn"]](*request.get("args", []))}
    except Exception as exc:  # the oracle reports what upstream raised
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
    sys.stdout.flush()
