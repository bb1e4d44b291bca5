"""Short names of the concept check's misconceptions (one per wrong option's tag), kept apart from the long item bank.

A name is a noun phrase for result pages and the dashboard; the option's feedback says the rest.
"""

from __future__ import annotations

from exercises.i18n import Text

NAMES: dict[str, Text] = {
    # attention-origin
    "attention-from-transformer": Text("注意力出自 Transformer", "Attention credited to the Transformer"),
    "attention-from-seq2seq": Text("注意力出自 seq2seq", "Attention credited to seq2seq"),
    "attention-from-chatgpt": Text("注意力出自 ChatGPT", "Attention credited to ChatGPT"),
    # bleu-gain
    "bleu-from-reversal": Text("错用倒序实验的 BLEU", "BLEU from the reversal experiment"),
    "bleu-no-gain": Text("以为 BLEU 没有提升", "No BLEU gain overall"),
    "bleu-perplexity-mixup": Text("把困惑度当 BLEU", "Perplexity taken for BLEU"),
    # lstm-8000
    "lstm-encoder-plus-decoder": Text("算进了解码器状态", "Counted the decoder's state too"),
    "lstm-bidirectional": Text("以为是双向编码", "Factor 2 taken as two directions"),
    "lstm-gates-as-state": Text("把门当成状态", "Gates counted as state"),
    # capacity-doubling
    "capacity-superlinear": Text("以为容量超线性增长", "Capacity grows faster than d"),
    "capacity-independent-of-d": Text("以为容量与 d 无关", "Capacity independent of d"),
    "capacity-unbounded": Text("以为容量没有上限", "Unlimited capacity"),
    # source-reversal
    "reversal-hurts": Text("以为倒序有害", "Reversal hurts"),
    "reversal-no-effect": Text("以为倒序无影响", "Reversal has no effect"),
    "reversal-attention-figures": Text("错用注意力实验数字", "Attention figures for reversal"),
    # bottleneck-status
    "bottleneck-is-theorem": Text("把猜想当定理", "Hypothesis taken as a theorem"),
    "bottleneck-refuted": Text("以为瓶颈已被推翻", "Bottleneck thought refuted"),
    "seq2seq-always-collapses": Text("以为长句必然崩溃", "Always collapses on long input"),
    # attention-memory
    "attention-memory-fixed": Text("以为仍只读 d 个数", "Memory still d numbers"),
    "attention-memory-weights-only": Text("只数了权重", "Counted only the weights"),
    "attention-memory-quadratic": Text("把计算量当记忆", "Cost taken for memory size"),
    # alignment-learned
    "alignment-supervised": Text("以为对齐需要标注", "Alignment needs labels"),
    "alignment-by-position": Text("以为按位置对齐", "Alignment fixed by position"),
    "alignment-from-dictionary": Text("以为靠词典对齐", "Alignment from a dictionary"),
}
