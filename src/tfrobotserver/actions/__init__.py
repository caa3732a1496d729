"""The TFSAction protocol: declaration, registry, schemas and static checks."""

from tfrobotserver.actions.alias import READ_OPS, ActionAlias, Category, ResourceOpType
from tfrobotserver.actions.checks import check_component
from tfrobotserver.actions.decorator import ActionDecl, _validate_get_list_return_type, tfs_action
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.expressions import CompiledExpression, ExpressionError, compile_expression, evaluate
from tfrobotserver.actions.injected import Injected, Principal
from tfrobotserver.actions.registry import BoundAction, bind_actions, collect_actions

__all__ = [
    "READ_OPS",
    "ActionAlias",
    "ActionDecl",
    "ActionProtocolError",
    "BoundAction",
    "Category",
    "CompiledExpression",
    "ExpressionError",
    "Injected",
    "Principal",
    "ResourceOpType",
    "_validate_get_list_return_type",
    "bind_actions",
    "check_component",
    "collect_actions",
    "compile_expression",
    "evaluate",
    "tfs_action",
]
