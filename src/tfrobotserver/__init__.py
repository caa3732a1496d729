"""TFRobotServer: serves robots' components through the TFSAction protocol over HTTP.

The seeds' names are re-exported here; `tests/test_public_api.py` pins `__all__`.
"""

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import _validate_get_list_return_type, tfs_action
from tfrobotserver.actions.errors import ActionInputError, ActionProtocolError
from tfrobotserver.actions.injected import Injected, Principal
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc
from tfrobotserver.dtos.graph import BaseGraph, Graph
from tfrobotserver.dtos.pageable import BasePageableList, CursorPageableList, PageableList
from tfrobotserver.robot.base import Robot

__all__ = [
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
