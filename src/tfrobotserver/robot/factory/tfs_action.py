"""Where the seed documents `tfs_action` and `ActionAlias` (`robot/factory/tfs_action.py`).

The implementation lives in `tfrobotserver.actions`; this module re-exports it so that a reader
of the protocol document finds the names at the path it gives.
"""

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import _validate_get_list_return_type, tfs_action

__all__ = ["ActionAlias", "_validate_get_list_return_type", "tfs_action"]
