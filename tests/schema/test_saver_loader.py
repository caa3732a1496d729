"""`SaverLoader` to bytes and files: every message comes back as its class, configurations too."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from tests.schema.message.conftest import every_message
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, Message, TextMessage
from tfrobot.schema.saver_loader import SaverLoader, SaverLoaderError


class RobotConfig(BaseModel):
    """A stand-in for a robot configuration: plain fields plus messages behind a wide annotation."""

    name: str
    temperature: float = 0.7
    greeting: list[BaseMessage] = Field(default_factory=list)


@pytest.mark.parametrize("msg", every_message(), ids=lambda m: f"{type(m).__name__}-{m.role}")
def test_bytes_round_trip_keeps_the_class(msg: BaseMessage) -> None:
    saver = SaverLoader(Message)
    restored = saver.loads(saver.dumps(msg))
    assert type(restored) is type(msg)
    assert restored == msg


def test_a_message_class_dispatches_to_itself_and_below() -> None:
    turn = every_message()[0]
    assert isinstance(turn, TextMessage)
    assert type(SaverLoader(TextMessage).loads(turn.model_dump_json())) is TextMessage
    records = SaverLoader(BaseMessage).loads(turn.model_dump_json()).intermediate_trace.records  # type: ignore[attr-defined]
    assert type(records[0]) is AssistantTextMessage
    with pytest.raises(SaverLoaderError, match="not a valid TextMessage"):
        SaverLoader(TextMessage).loads(AssistantTextMessage(content="x").model_dump_json())


def test_file_round_trip_of_a_list_of_messages(tmp_path: Path) -> None:
    msgs = every_message()
    saver = SaverLoader(list[Message])
    path = saver.save(msgs, tmp_path / "deep" / "dir" / "history.json")
    restored = saver.load(path)
    assert [type(m) for m in restored] == [type(m) for m in msgs]
    assert restored == msgs
    assert list(path.parent.iterdir()) == [path]  # the temporary file is gone


def test_configuration_round_trip_keeps_nested_message_classes(tmp_path: Path) -> None:
    config = RobotConfig(name="helper", greeting=[every_message()[0], AssistantTextMessage(content="hi")])
    saver = SaverLoader(RobotConfig)
    restored = saver.load(saver.save(config, tmp_path / "robot.json"))
    assert restored == config
    assert [type(m) for m in restored.greeting] == [TextMessage, AssistantTextMessage]


def test_save_replaces_atomically(tmp_path: Path) -> None:
    saver = SaverLoader(RobotConfig)
    path = tmp_path / "robot.json"
    saver.save(RobotConfig(name="old"), path)
    saver.save(RobotConfig(name="new"), path)
    assert saver.load(path).name == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robot.json"]


def test_errors_name_the_file_type_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "robot.json"
    path.write_text('{"temperature": "hot"}')
    with pytest.raises(SaverLoaderError, match=r"(?s)robot\.json: not a valid RobotConfig \(2 errors\).*Fix:"):
        SaverLoader(RobotConfig).load(path)
    with pytest.raises(FileNotFoundError, match=r"missing\.json"):
        SaverLoader(RobotConfig).load(tmp_path / "missing.json")


def test_saving_the_wrong_type_is_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"cannot save a AssistantTextMessage.*SaverLoader\(AssistantTextMessage\)"):
        SaverLoader(TextMessage).save(AssistantTextMessage(content="x"), tmp_path / "x.json")  # type: ignore[arg-type]
    assert not (tmp_path / "x.json").exists()
