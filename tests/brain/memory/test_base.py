"""`recall`'s tail cut keeps whole turns within both limits, the same as the rule in its docstring says, for any
conversation; the token estimate is the stated ceil(len / 4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfrobot.brain.memory import estimate_tokens
from tfrobot.brain.memory.base import TailCut

NEWEST_FIRST = st.lists(
    st.tuples(st.sampled_from(["user", "assistant", "tool", "system"]), st.integers(min_value=1, max_value=50)),
    max_size=30,
)
LIMIT = st.none() | st.integers(min_value=0, max_value=12)
BUDGET = st.none() | st.integers(min_value=0, max_value=400)


def _kept_by_the_rule(newest_first: list[tuple[str, int]], last_turns: int | None, budget: int | None) -> int:
    """The docstring's rule written plainly: cut into turns (newest first, each ending at its user message;
    what precedes the first user message is one partial turn), keep turns while both limits allow."""
    turns: list[list[int]] = [[]]
    for role, tokens in newest_first:
        turns[-1].append(tokens)
        if role == "user":
            turns.append([])
    kept = used = 0
    for number, turn in enumerate(t for t in turns if t):
        if (last_turns is not None and number >= last_turns) or (budget is not None and used + sum(turn) > budget):
            break
        kept, used = kept + len(turn), used + sum(turn)
    return kept


def _kept_by_tail_cut(newest_first: list[tuple[str, int]], last_turns: int | None, budget: int | None) -> int:
    """As `SQLMessageStore.recall` drives it: feed until it says done, `finish` after the oldest message."""
    cut = TailCut(last_turns, budget)
    if cut.done:
        return 0
    for role, tokens in newest_first:
        if cut.feed(role, tokens):
            return cut.kept
    return cut.finish()


@given(NEWEST_FIRST, LIMIT, BUDGET)
def test_the_tail_cut_keeps_what_the_rule_keeps(
    newest_first: list[tuple[str, int]], last: int | None, budget: int | None
) -> None:
    assert _kept_by_tail_cut(newest_first, last, budget) == _kept_by_the_rule(newest_first, last, budget)


def test_a_turn_is_kept_whole_or_not_at_all() -> None:
    newest_first = [("assistant", 10), ("tool", 10), ("user", 10), ("assistant", 5), ("user", 5)]
    assert _kept_by_tail_cut(newest_first, None, 29) == 0  # the newest turn needs 30
    assert _kept_by_tail_cut(newest_first, None, 30) == 3
    assert _kept_by_tail_cut(newest_first, None, 40) == 5
    assert _kept_by_tail_cut(newest_first, 1, None) == 3


@pytest.mark.parametrize(
    ("name", "kwargs"), [("last_turns", {"last_turns": -1}), ("token_budget", {"token_budget": -5})]
)
def test_a_negative_limit_is_refused_naming_it(name: str, kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=f"recall\\(\\): {name}=-[0-9]+ is negative; pass None for no limit"):
        TailCut(**{"last_turns": None, "token_budget": None, **kwargs})


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_the_token_estimate_is_a_quarter_of_the_characters_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens
