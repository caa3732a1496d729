"""The demo robot `make run` serves: one component per protocol feature, no network, no keys."""

from __future__ import annotations

from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.memory.graph_component import GraphComponent
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent
from tfrobotserver.robot.factory.prompt import PromptComponent


def demo_graph() -> GraphComponent:
    """People, a project and a city, with typed edges."""
    nodes = [
        Node(iri="ex:alice", label="Alice", cls="Person", properties={"age": 34}),
        Node(iri="ex:bob", label="Bob", cls="Person", properties={"age": 29}),
        Node(iri="ex:tfrobot", label="TFRobot", cls=["Project", "Software"], properties=None),
        Node(iri="ex:paris", label="Paris", cls="City", properties={"country": "FR"}),
    ]
    edges = [
        Edge(source="ex:alice", target="ex:tfrobot", label="maintains", property="ex:maintains", properties=None),
        Edge(source="ex:bob", target="ex:tfrobot", label="contributes to", property="ex:contributes"),
        Edge(source="ex:alice", target="ex:paris", label="lives in", property="ex:livesIn", properties={"since": 2019}),
        Edge(source="ex:alice", target="ex:bob", label="knows", property="ex:knows"),
    ]
    return GraphComponent(nodes=nodes, edges=edges)


def build_demo_robot(name: str = "demo") -> Robot:
    """A robot with a document memory (SQLite), a knowledge graph and a prompt."""
    return Robot(
        name,
        {
            "memory": MemoryComponent(collection=name, seed_docs=42),
            "graph": demo_graph(),
            "prompt": PromptComponent(template="You are {{ robot }}. Answer {{ user }} in {{ language }}."),
        },
        description="Offline demo: documents, a knowledge graph and a prompt to debug.",
    )
