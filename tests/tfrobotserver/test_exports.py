"""The public surface of tfrobotserver is pinned; the framework never imports the server."""

from __future__ import annotations

import subprocess
import sys

import tfrobotserver


def test_all_is_pinned() -> None:
    assert tfrobotserver.__all__ == [
        "AIMemoryDoc",
        "ActionAlias",
        "ActionInputError",
        "ActionProtocolError",
        "BaseGraph",
        "BasePageableList",
        "CursorPageableList",
        "Edge",
        "Graph",
        "HttpModel",
        "Injected",
        "Node",
        "PageableList",
        "Principal",
        "Robot",
        "TFSComponent",
        "_validate_get_list_return_type",
        "tfs_action",
    ]
    for name in tfrobotserver.__all__:
        assert getattr(tfrobotserver, name) is not None


def test_tfrobot_does_not_import_tfrobotserver() -> None:
    code = "import sys, tfrobot, tfrobot.schema.message, tfrobot.__main__; print('tfrobotserver' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
