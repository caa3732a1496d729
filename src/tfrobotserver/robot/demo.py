"""The demo robot `make run` serves: built from the packaged `configs/demo.yaml`, no network, no keys."""

from __future__ import annotations

from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.config import DEMO_CONFIG, build_robot, load_robot_config


def build_demo_robot(name: str = "demo") -> Robot:
    """The demo robot (ScriptedChat, demo tools, 42 demo documents, the demo graph, a prompt), named `name`."""
    config = load_robot_config(DEMO_CONFIG)
    return build_robot(config.model_copy(update={"name": name}))
