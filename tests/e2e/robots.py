"""The robot the browser tests drive: the demo components plus a task board built for the console.

Everything here is real protocol code (`TFSComponent`, `@tfs_action`, x-namespace / x-actions /
x-ref / x-default / x-fetch), served by a real `tfrobot serve`; the console must render it from its
schemas alone. The task board exercises what the demo does not: an Options select on every row,
two row buttons that need the same x-fetch, an x-fetch chain longer than the protocol's limit, an
x-fetch cycle, hostile text in the data, 1,000 rows on one page, and a 2,000-node graph.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, PrivateAttr

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.factory.user import CurrentUser
from tfrobotserver.dtos.pageable import PageableList
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.memory.graph_component import GraphComponent, demo_graph_elements
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent

HOSTILE = '<img src=x onerror="window.__xss=1">'
CHAIN_LENGTH = 11  # one more than the protocol's 10 fetches per resolution chain


class Candidate(HttpModel):
    """Someone a task can be assigned to."""

    id: str
    name: str


class Task(HttpModel):
    """One task row; its candidates become the assignee select of aassign_task."""

    id: int
    title: str = Field(description="What to do (free text, shown as text)")
    status: Literal["open", "done"] = "open"
    assignee: str | None = None
    comments: list[str] = Field(default_factory=list)
    flagged_by: list[str] = Field(default_factory=list)
    candidates: list[Candidate] = Field(default_factory=list)

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {
                "taskId": "id",
                "taskTitle": "title",
                "assigneeId": "assignee",
                "assigneeOptions": {
                    "Options": {"labels": "values[*].name", "keys": "values[*].id", "values": "candidates"}
                },
            },
            "x-actions": ["aassign_task", "aunassign_task", "acomment_task", "aflag_task"],
        }
    )


class Hop(HttpModel):
    """One link of the x-fetch chain."""

    v: str


class CycleValue(HttpModel):
    """What the two actions of the x-fetch cycle return."""

    v: str


class CycleA(CycleValue):
    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"cycleA": "v"}})


class CycleB(CycleValue):
    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"cycleB": "v"}})


TaskId = Annotated[int, Field(json_schema_extra={"x-ref": "taskId"})]
Me = Annotated[str, Field(json_schema_extra={"x-ref": "userId", "x-fetch": "aget_current_user"})]


class TaskBoard(TFSComponent):
    """In-memory tasks (`rows` of them; row 2's title is hostile markup)."""

    rows: int = Field(default=1000, ge=1)
    user: str = "e2e-user"
    _tasks: dict[int, Task] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        people = [Candidate(id=f"u{i}", name=f"Person {i}") for i in range(1, 4)]
        for i in range(1, self.rows + 1):
            title = HOSTILE if i == 2 else f"Task {i:04d}"
            self._tasks[i] = Task(id=i, title=title, candidates=people[i % 3 :] + people[: i % 3])

    def _task(self, task_id: int) -> Task:
        if task_id not in self._tasks:
            raise ActionInputError("task_id", f"no task {task_id}", task_id)
        return self._tasks[task_id]

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="task", resource_op_type="get_list"),
        description="Tasks, one page at a time.",
    )
    async def aget_tasks(
        self, page: Annotated[int, Field(ge=1)] = 1, page_size: Annotated[int, Field(ge=1, le=1000)] = 20
    ) -> PageableList[Task]:
        rows = list(self._tasks.values())
        start = (page - 1) * page_size
        return PageableList[Task](
            items=rows[start : start + page_size], page=page, page_size=page_size, total=len(rows)
        )

    @tfs_action(alias=ActionAlias(resource="user", resource_op_type="get"))
    async def aget_current_user(self) -> CurrentUser:
        """Who is calling (the x-fetch target of `Me` parameters)."""
        return CurrentUser(user_id=self.user, display_name="E2E User")

    @tfs_action(alias=ActionAlias(category="pageable", resource="task", resource_op_type="update"))
    async def aassign_task(
        self,
        task_id: TaskId,
        assignee: Annotated[
            str,
            Field(
                description="Chosen from the task's candidates",
                json_schema_extra={"x-default": "assigneeOptions.keys[0]"},
            ),
        ],
    ) -> Task:
        """Assign a task to one of its candidates."""
        task = self._task(task_id)
        if assignee not in {c.id for c in task.candidates}:
            raise ActionInputError("assignee", "must be one of the task's candidates", assignee)
        task.assignee = assignee
        return task

    @tfs_action(alias=ActionAlias(category="pageable", resource="task", resource_op_type="update"))
    async def aunassign_task(
        self, task_id: TaskId, assignee: Annotated[str, Field(json_schema_extra={"x-ref": "assigneeId"})]
    ) -> Task:
        """Take a task back from its assignee (disabled on rows nobody is assigned to)."""
        task = self._task(task_id)
        if task.assignee != assignee:
            raise ActionInputError("assignee", "is not the task's assignee", assignee)
        task.assignee = None
        return task

    @tfs_action(alias=ActionAlias(category="pageable", resource="task", resource_op_type="update"))
    async def acomment_task(self, task_id: TaskId, author: Me, text: Annotated[str, Field(min_length=3)]) -> Task:
        """Comment on a task as the current user."""
        task = self._task(task_id)
        task.comments.append(f"{author}: {text}")
        return task

    @tfs_action(alias=ActionAlias(category="pageable", resource="task", resource_op_type="update"))
    async def aflag_task(self, task_id: TaskId, reporter: Me) -> Task:
        """Flag a task as the current user."""
        task = self._task(task_id)
        task.flagged_by.append(reporter)
        return task

    @tfs_action(alias=ActionAlias(resource="cycle", resource_op_type="get"))
    async def aget_cycle_a(
        self, b: Annotated[str, Field(json_schema_extra={"x-ref": "cycleB", "x-fetch": "aget_cycle_b"})]
    ) -> CycleA:
        """Needs cycleB, which needs cycleA: an x-fetch cycle."""
        return CycleA(v=f"a<{b}>")

    @tfs_action(alias=ActionAlias(resource="cycle", resource_op_type="get"))
    async def aget_cycle_b(
        self, a: Annotated[str, Field(json_schema_extra={"x-ref": "cycleA", "x-fetch": "aget_cycle_a"})]
    ) -> CycleB:
        """Needs cycleA, which needs cycleB: an x-fetch cycle."""
        return CycleB(v=f"b<{a}>")

    @tfs_action(alias=ActionAlias(resource="cycle", resource_op_type="render"))
    async def acycle(
        self, value: Annotated[str, Field(json_schema_extra={"x-ref": "cycleA", "x-fetch": "aget_cycle_a"})]
    ) -> str:
        """A one-off action whose parameter can only come from the cycle."""
        return value


def _hop_action(i: int) -> Any:
    """ahop{i}: a read whose result names hop{i}; it needs hop{i+1} (the last one needs nothing)."""
    out = type(
        f"Hop{i}",
        (Hop,),
        {"model_config": ConfigDict(json_schema_extra={"x-namespace": {f"hop{i}": "v"}}), "__module__": __name__},
    )
    if i == CHAIN_LENGTH:

        async def last(self: Any) -> Any:
            return out(v=f"hop-{i}")

        func = last
    else:

        async def link(self: Any, p: str) -> Any:
            return out(v=f"hop-{i}({p})")

        link.__annotations__ = {
            "p": Annotated[str, Field(json_schema_extra={"x-ref": f"hop{i + 1}", "x-fetch": f"ahop{i + 1}"})]
        }
        func = link
    func.__annotations__["return"] = out
    func.__name__ = func.__qualname__ = f"ahop{i}"
    return tfs_action(
        alias=ActionAlias(resource="hop", resource_op_type="get"), description=f"Link {i} of the x-fetch chain."
    )(func)


async def _export(
    self: Any, token: Annotated[str, Field(json_schema_extra={"x-ref": "hop1", "x-fetch": "ahop1"})]
) -> str:
    return token


_export.__name__ = _export.__qualname__ = "aexport"
_chain_namespace: dict[str, Any] = {f"ahop{i}": _hop_action(i) for i in range(1, CHAIN_LENGTH + 1)}
_chain_namespace["aexport"] = tfs_action(
    alias=ActionAlias(resource="hop", resource_op_type="render"),
    description=f"Needs hop1, which takes a chain of {CHAIN_LENGTH} x-fetches (the limit is 10).",
)(_export)
_chain_namespace["__module__"] = __name__
FetchChain = type("FetchChain", (TFSComponent,), _chain_namespace)


def big_graph(n: int = 2000) -> GraphComponent:
    """n nodes in a ring with chords: 2n edges."""
    nodes = [Node(iri=f"ex:n{i}", label=f"N{i}", cls="Thing", properties={"i": i}) for i in range(n)]
    edges = [Edge(source=f"ex:n{i}", target=f"ex:n{(i + 1) % n}", label="next", property="ex:next") for i in range(n)]
    edges += [
        Edge(source=f"ex:n{i}", target=f"ex:n{(i * 7 + 3) % n}", label="jump", property="ex:jump") for i in range(n)
    ]
    return GraphComponent(collection="e2e-big", nodes=nodes, edges=edges)


def demo_graph() -> GraphComponent:
    """The demo robot's graph, in a collection of its own."""
    nodes, edges = demo_graph_elements()
    return GraphComponent(collection="e2e-demo", nodes=nodes, edges=edges)


def build_e2e_robot() -> Robot:
    """Memory docs (57, paged both ways), the demo graph, the task board, the fetch chain, a big graph."""
    return Robot(
        "e2e",
        {
            "memory": MemoryComponent(collection="e2e", seed_docs=57),
            "graph": demo_graph(),
            "tasks": TaskBoard(),
            "chain": FetchChain(),
            "biggraph": big_graph(),
        },
        description="The browser tests' robot.",
    )
