"""The framework never imports the server; the seed's paths resolve (the names: tests/test_public_api.py)."""

from __future__ import annotations

import subprocess
import sys


def test_tfrobot_does_not_import_tfrobotserver() -> None:
    code = "import sys, tfrobot, tfrobot.schema.message, tfrobot.__main__; print('tfrobotserver' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_seed_paths_resolve_to_the_implementation() -> None:
    from tfrobotserver.actions import alias, decorator
    from tfrobotserver.robot.factory import tfs_action as seed_path

    assert seed_path.tfs_action is decorator.tfs_action
    assert seed_path.ActionAlias is alias.ActionAlias
    assert seed_path._validate_get_list_return_type is decorator._validate_get_list_return_type
