"""Built-in tools: what a robot gets when its file names one, through the Drive as the LLM calls it."""

from __future__ import annotations

import json

from tfrobot.drive import Drive, word_count
from tfrobot.schema.message import ToolCall


async def test_word_count_counts_words_lines_and_characters_through_the_drive() -> None:
    text = "two lines\nof  five words"
    result = await Drive([word_count]).acall(ToolCall(id="c", name="word_count", arguments=json.dumps({"text": text})))
    assert not result.is_error
    assert json.loads(result.result) == {"words": 5, "lines": 2, "characters": 24}


def test_word_count_schema_names_its_one_parameter() -> None:
    (spec,) = Drive([word_count]).specs
    assert spec.parameters["required"] == ["text"]
    assert spec.parameters["properties"]["text"]["type"] == "string"
