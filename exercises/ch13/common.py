"""Chapter 13's shared facts: the book's numbers, the generator pools, and the token conventions."""

from __future__ import annotations

import math

A = math.log(2)  # the chapter's unit: a = ln 2, so e^a = 2
SYMBOLS = {"a": A}
BOS, EOS, PERIOD = "BOS", "EOS", "."

CANDIDATES = ("red", "blue", "key", "door", PERIOD, EOS)
# Previous token -> probabilities over CANDIDATES (the chapter's table 13.4).
BOOK_TABLE: dict[str, tuple[float, ...]] = {
    BOS: (0.4, 0.5, 0.1, 0.0, 0.0, 0.0),
    "red": (0.0, 0.0, 0.8, 0.1, 0.1, 0.0),
    "blue": (0.0, 0.0, 0.2, 0.7, 0.1, 0.0),
    "key": (0.0, 0.0, 0.0, 0.0, 0.9, 0.1),
    "door": (0.0, 0.0, 0.0, 0.0, 0.9, 0.1),
    PERIOD: (0.0, 0.0, 0.0, 0.0, 0.0, 1.0),
}
BOOK_TARGET = ("red", "key", PERIOD, EOS)

# Source vocabulary of the chapter: token -> embedding in units of a.
BOOK_SOURCE_VOCAB_UNITS: dict[str, tuple[int, int]] = {"红色": (1, 0), "蓝色": (0, 0), "钥匙": (-1, 1), "。": (0, -1)}

COLOURS = {"red": "红色", "blue": "蓝色", "green": "绿色", "yellow": "黄色"}
NOUNS = {"key": "钥匙", "door": "门", "box": "盒子", "lamp": "灯"}


def tokens_text(tokens: list[str] | tuple[str, ...]) -> str:
    """Tokens as a reader sees them in a prompt: space-separated."""
    return " ".join(tokens)


# Greedy decoding (chapter 13.4): stop after EOS or after this many predictions, and say which.
MAX_STEPS = 8
STOPPED_BY_EOS, STOPPED_BY_CAP = "EOS", "cap"
_LISTED_STOP_ALIASES: dict[str, tuple[str, ...]] = {
    STOPPED_BY_EOS: (
        "eos",
        "<eos>",
        "</s>",
        "EOS",
        "遇到EOS",
        "遇到 EOS",
        "选到EOS",
        "选到 EOS",
        "by EOS",
        "because of EOS",
        "chose EOS",
        "EOS 停止",
        "EOS停止",
        "因为EOS",
        "因为 EOS",
        "stopped by EOS",
        "stopped at EOS",
        "generated EOS",
        "predicted EOS",
        "the EOS token",
        "EOS token",
        "选到EOS停止",
        "选到 EOS 停止",
        "遇到EOS停止",
        "遇到 EOS 停止",
        "生成EOS",
        "生成 EOS",
        "输出EOS",
        "输出 EOS",
        "预测出EOS",
        "预测出 EOS",
    ),
    STOPPED_BY_CAP: (
        "cap",
        "limit",
        "max_steps",
        "max steps",
        "max",
        "上限",
        "步数上限",
        "达到上限",
        "触及上限",
        "预测上限",
        "the cap",
        "step cap",
        "the step cap",
        "by the cap",
        "hit the cap",
        "reached the cap",
        "step limit",
        "到达上限",
        "到达步数上限",
        "达到步数上限",
        "因为上限",
        "cap(步数上限)",
        "步数上限(cap)",
        "上限(cap)",
        "cap(上限)",
        "stopped by the cap",
        "stopped by cap",
        "reached cap",
        "cap reached",
        "hit cap",
        "limit reached",
        "reached the limit",
        "hit the limit",
        "max steps reached",
        "ran out of steps",
        "最大步数",
        "达到最大步数",
        "到达最大步数",
    ),
}


def _phrases(cores: tuple[str, ...], before: tuple[str, ...], after: tuple[str, ...]) -> set[str]:
    """Every ``before + core + after``; a Latin core inside Chinese words is also taken with a space either side."""
    phrases = set()
    for core in cores:
        chinese = any("\u4e00" <= char <= "\u9fff" for char in "".join(before + after))
        joins = ("", " ") if core.isascii() and chinese else ("",)
        for b in before:
            for a in after:
                for join in joins:
                    phrases.add(f"{b}{join if b else ''}{core}{join if a else ''}{a}")
    return phrases


# How students phrase the stop reason beyond the listed words: "因为选到了 EOS", "EOS was predicted",
# "hit the step cap", "达到 8 步上限". Only affirmative phrases; nothing negated ("没有遇到 EOS") and nothing naming
# both reasons, so no phrase can be read as the other reason. The enum reader indexes the aliases once per table
# (and once more without spaces and brackets), so a read is one look-up.
_EOS_PHRASES = (
    _phrases(
        ("eos", "the eos token", "eos token"),
        (
            "",
            "by ",
            "because of ",
            "stopped by ",
            "stopped at ",
            "chose ",
            "it chose ",
            "predicted ",
            "it predicted ",
            "generated ",
            "it generated ",
            "reached ",
            "hit ",
            "because it chose ",
            "because it predicted ",
            "because it generated ",
        ),
        ("",),
    )
    | _phrases(("eos", "the eos token", "eos token"), ("",), (" was chosen", " was predicted", " was generated"))
    | _phrases(
        ("EOS", "结束符"),
        (
            "",
            "遇到",
            "遇到了",
            "选到",
            "选到了",
            "生成了",
            "输出了",
            "预测出了",
            "因为",
            "因为遇到了",
            "因为选到了",
            "因为生成了",
        ),
        ("", "停止", "而停止", "后停止", "停止了"),
    )
)
_CAP_PHRASES = (
    _phrases(
        (
            "cap",
            "the cap",
            "step cap",
            "the step cap",
            "step limit",
            "the step limit",
            "max steps",
            "max_steps",
            "the maximum number of steps",
            f"{MAX_STEPS} steps",
        ),
        ("", "by ", "hit ", "reached ", "stopped by ", "stopped at ", "because of ", "it hit ", "it reached "),
        ("",),
    )
    | _phrases(("cap", "the cap", "max steps", "max_steps", "step limit", "the step limit"), ("",), (" reached",))
    | _phrases(
        (
            "上限",
            "步数上限",
            "最大步数",
            f"{MAX_STEPS}步上限",
            f"{MAX_STEPS} 步上限",
            "cap",
            f"最大步数{MAX_STEPS}",
            f"步数上限{MAX_STEPS}",
            f"上限{MAX_STEPS}",
            f"{MAX_STEPS}步",
            f"{MAX_STEPS}次",
            f"{MAX_STEPS}次预测",
            f"满{MAX_STEPS}步",
            f"满{MAX_STEPS}次",
            f"满{MAX_STEPS}次预测",
            f"最多{MAX_STEPS}步",
            f"{MAX_STEPS}步的上限",
            f"最大步数{MAX_STEPS}步",
            f"预测满{MAX_STEPS}次",
            f"上限{MAX_STEPS}步",
        ),
        ("", "达到", "到达", "触及", "达到了", "到达了", "因为", "因为达到", "因为达到了", "走满", "做满", "已满"),
        ("", "停止", "而停止", "后停止", "了"),
    )
    # The cap written with its number: "max steps (8)", "the 8-step cap", "all 8 steps" (spacing and brackets are
    # ignored by the enum reader, so "max_steps=8" is "max steps 8").
    | _phrases(
        (
            f"max steps {MAX_STEPS}",
            f"max_steps {MAX_STEPS}",
            f"the max steps {MAX_STEPS}",
            f"maximum steps {MAX_STEPS}",
            f"{MAX_STEPS} steps",
            f"all {MAX_STEPS} steps",
            f"{MAX_STEPS} predictions",
            f"{MAX_STEPS} step cap",
            f"the {MAX_STEPS} step cap",
            f"{MAX_STEPS} step limit",
            f"the {MAX_STEPS} step limit",
            f"the cap of {MAX_STEPS}",
            f"the cap of {MAX_STEPS} steps",
            f"the limit of {MAX_STEPS} steps",
            f"max {MAX_STEPS} steps",
            f"the maximum of {MAX_STEPS} steps",
            f"cap {MAX_STEPS}",
            f"the cap {MAX_STEPS}",
            f"step cap {MAX_STEPS}",
            f"the step cap {MAX_STEPS}",
        ),
        (
            "",
            "reached ",
            "hit ",
            "it reached ",
            "it hit ",
            "stopped by ",
            "stopped at ",
            "stopped after ",
            "after ",
            "ran ",
            "ran all ",
            "because of ",
            "because it reached ",
            "because it hit ",
        ),
        ("",),
    )
    | _phrases(
        (
            f"the cap of {MAX_STEPS} steps",
            f"the {MAX_STEPS} step cap",
            f"max steps {MAX_STEPS}",
            f"the {MAX_STEPS} step limit",
        ),
        ("because ",),
        (" was reached",),
    )
)
STOP_ALIASES: dict[str, tuple[str, ...]] = {
    STOPPED_BY_EOS: tuple(dict.fromkeys([*_LISTED_STOP_ALIASES[STOPPED_BY_EOS], *sorted(_EOS_PHRASES)])),
    STOPPED_BY_CAP: tuple(dict.fromkeys([*_LISTED_STOP_ALIASES[STOPPED_BY_CAP], *sorted(_CAP_PHRASES)])),
}

# What a student writes for "no such step" in a token answer (the token readers have no null).
NO_TOKEN = "none"
