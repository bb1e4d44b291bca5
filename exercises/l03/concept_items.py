"""The item bank of l03.concept-check: facts from the lesson and chapter, each wrong option tied to a misconception."""

from __future__ import annotations

from dataclasses import dataclass

from exercises.i18n import Text


@dataclass(frozen=True)
class WrongOption:
    """A wrong option: its stable misconception tag, its text, and the feedback for choosing it."""

    tag: str
    text: Text
    feedback: Text


@dataclass(frozen=True)
class ConceptItem:
    """One multiple-choice item: a stable id, the question, the right option and three wrong ones.

    The id names the item's topic (sometimes its answer), so it stays inside the engine: the variant data that the
    student sees carries the item's place in the bank instead (``concept_check.SHOWN_IDS``).
    """

    id: str
    question: Text
    right: Text
    wrong: tuple[WrongOption, WrongOption, WrongOption]


def _text(zh: str, en: str) -> Text:
    """Shorthand for a bilingual text."""
    return Text(zh, en)


def _wrong(tag: str, option: Text, feedback: Text) -> WrongOption:
    """Shorthand for a wrong option."""
    return WrongOption(tag, option, feedback)


ITEMS: tuple[ConceptItem, ...] = (
    ConceptItem(
        "attention-origin",
        _text(  # question
            "神经机器翻译中，让解码器每写一个词都回头查看全部编码状态的做法（注意力）最早由谁、在哪一年提出？",
            "Who first let the decoder of a neural translation model look back at every encoder state at each "
            "output step (attention), and when?",
        ),
        _text(  # right
            "Bahdanau、Cho 和 Bengio，2014 年", "Bahdanau, Cho and Bengio, in 2014"
        ),
        (
            _wrong(
                "attention-from-transformer",
                _text(
                    "Vaswani 等人 2017 年的 Transformer 论文《Attention Is All You Need》",
                    "Vaswani et al., in the 2017 Transformer paper 'Attention Is All You Need'",
                ),
                _text(
                    "你把注意力的出处记成了 Transformer。注意力出自 Bahdanau 等人 2014 年的翻译模型，Transformer 论文自己就引用了它；Transformer "
                    "的新意在于去掉循环、只留注意力。",
                    "You credited attention to the Transformer. Attention comes from Bahdanau et al.'s 2014 "
                    "translation model, which the Transformer paper itself cites; the Transformer's novelty was "
                    "dropping recurrence and keeping only attention.",
                ),
            ),
            _wrong(
                "attention-from-seq2seq",
                _text(
                    "Sutskever、Vinyals 和 Le，2014 年用深层 LSTM 做的 seq2seq 论文",
                    "Sutskever, Vinyals and Le, in their 2014 seq2seq paper with a deep LSTM",
                ),
                _text(
                    "你把 seq2seq 当成了注意力的出处。Sutskever 等人的模型只把一个定长向量交给解码器，正是注意力要解决的那种结构。",
                    "You took the seq2seq paper for the origin of attention. Sutskever et al. hand the decoder one "
                    "fixed-length vector, the very design attention was introduced to fix.",
                ),
            ),
            _wrong(
                "attention-from-chatgpt",
                _text("OpenAI，2022 年随 ChatGPT 一起提出", "OpenAI, together with ChatGPT in 2022"),
                _text(
                    "你把让大众认识某项技术的产品当成了它的出处。ChatGPT 让 Transformer 广为人知，而注意力早在 2014 年就已发表。",
                    "You took the product that made a technique famous for its origin. ChatGPT made Transformers well "
                    "known; attention had been published in 2014.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "bleu-gain",
        _text(  # question
            "Bahdanau 等人 2014 年的表 1（全部测试句子）中，定长向量模型 RNNencdec-50 的 BLEU 是 17.82。同样训练句长下，注意力模型 RNNsearch-50 是多少？",
            "In Table 1 of Bahdanau et al. 2014 (all test sentences) the fixed-vector model RNNencdec-50 scores "
            "BLEU 17.82. What does the attention model RNNsearch-50, trained on the same sentence lengths, score?",
        ),
        _text(  # right
            "26.75", "26.75"
        ),
        (
            _wrong(
                "bleu-from-reversal",
                _text("30.6", "30.6"),
                _text(
                    "30.6 是 Sutskever 等人倒序输入后的 BLEU，是另一个系统、另一组实验。Bahdanau 表 1 中注意力模型的数字是 26.75。",
                    "30.6 is Sutskever et al.'s BLEU with reversed input, a different system and experiment. The "
                    "attention model in Bahdanau's Table 1 scores 26.75.",
                ),
            ),
            _wrong(
                "bleu-no-gain",
                _text(
                    "仍约为 17.8：注意力只对长句有用，平均下来看不出差别",
                    "Still about 17.8: attention only helps long sentences, so the average barely moves",
                ),
                _text(
                    "你以为注意力的提升在全体测试句上会被平均掉。实际上全体测试集的 BLEU 就从 17.82 升到了 26.75，长句上的优势更加明显。",
                    "You assumed the gain from attention averages out over the whole test set. In fact BLEU on all "
                    "test sentences rose from 17.82 to 26.75, and the advantage is larger on long sentences.",
                ),
            ),
            _wrong(
                "bleu-perplexity-mixup",
                _text("4.7", "4.7"),
                _text(
                    "4.7 是 Sutskever 等人倒序输入后的测试困惑度，困惑度越低越好，和 BLEU 不是同一种指标。",
                    "4.7 is the test perplexity of Sutskever et al. with reversed input; perplexity is "
                    "lower-is-better and is not a BLEU score.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "lstm-8000",
        _text(  # question
            "Sutskever 等人 2014 年用 4 层、每层 1000 个单元的 LSTM，说一个句子由 8000 个实数表示。8000 是怎么来的？",
            "Sutskever et al. 2014 used an LSTM with 4 layers of 1000 cells and said a sentence is represented by "
            "8000 real numbers. Where does 8000 come from?",
        ),
        _text(  # right
            "4 层 × 1000 个单元 × 2：每个单元有隐藏状态和细胞状态两个数",
            "4 layers × 1000 cells × 2: each cell keeps a hidden state and a cell state",
        ),
        (
            _wrong(
                "lstm-encoder-plus-decoder",
                _text(
                    "编码器 4000 个数加上解码器 4000 个数", "4000 numbers from the encoder plus 4000 from the decoder"
                ),
                _text(
                    "你把解码器的状态也算进了句子的表示。8000 个数是编码器读完原文后交出的全部状态，即 4 层 × 1000 个单元 × (隐藏状态 + 细胞状态)。",
                    "You added the decoder's state to the sentence representation. The 8000 numbers are everything "
                    "the encoder hands over after reading the source: 4 layers × 1000 cells × (hidden + cell state).",
                ),
            ),
            _wrong(
                "lstm-bidirectional",
                _text(
                    "4 层 × 1000 个单元 × 2 个方向：编码器正读一遍、倒读一遍",
                    "4 layers × 1000 cells × 2 directions: the encoder reads forwards and backwards",
                ),
                _text(
                    "你以为因子 2 来自双向编码。Sutskever 的编码器只按一个方向读（只是把原文倒过来输入）；因子 2 是每个 LSTM 单元的隐藏状态和细胞状态。",
                    "You took the factor 2 for two reading directions. Sutskever's encoder reads in one direction "
                    "only (it just feeds the source reversed); the 2 is each LSTM cell's hidden state and cell state.",
                ),
            ),
            _wrong(
                "lstm-gates-as-state",
                _text("1000 个单元 × 8 个门，每个门的输出都保留下来", "1000 cells × 8 gates, each gate's output kept"),
                _text(
                    "你把门当成了保存的状态。门的值每一步算完即用掉，传到下一步的只有每层每个单元的隐藏状态和细胞状态：4 × 1000 × 2。",
                    "You counted gates as stored state. Gate values are used up within each step; what carries "
                    "forward is each cell's hidden state and cell state in every layer: 4 × 1000 × 2.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "capacity-doubling",
        _text(  # question
            "课内实验把 T 个词向量分别乘上 ±1 钥匙后加进一个 d 维向量。把 d 加倍，能可靠读回（准确率不低于 90%）的最长 T 会怎样？",
            "The lesson's lab binds T word vectors to ±1 keys and adds them into one d-dimensional vector. If d is "
            "doubled, what happens to the longest T that still reads back reliably (at least 90%)?",
        ),
        _text(  # right
            "大约也翻倍：容量随 d 线性增长", "It roughly doubles: capacity grows linearly with d"
        ),
        (
            _wrong(
                "capacity-superlinear",
                _text(
                    "远不止翻倍（约 4 倍），因为维度之间两两组合的数目是 d²",
                    "Far more than double (about 4×), since d² pairs of dimensions combine",
                ),
                _text(
                    "你以为容量随 d 超线性增长。串扰大约随 T/d 增长，所以 d 翻倍，能可靠装下的长度也只大约翻倍。",
                    "You expected capacity to grow faster than d. Crosstalk grows roughly like T/d, so doubling d "
                    "only about doubles the length that fits reliably.",
                ),
            ),
            _wrong(
                "capacity-independent-of-d",
                _text(
                    "不变：可靠长度只取决于句子本身，与 d 无关",
                    "It stays the same: the reliable length depends on the sentence, not on d",
                ),
                _text(
                    "你以为维度不影响容量。d 越大，其他词读回时的串扰越小，可靠长度随 d 成正比增长。",
                    "You assumed the dimension does not matter. A larger d means less crosstalk from the other words, "
                    "so the reliable length grows in proportion to d.",
                ),
            ),
            _wrong(
                "capacity-unbounded",
                _text(
                    "无论 d 多大都没有上限：实数精度无限，任意长的句子都能可靠读回",
                    "There is no limit for any d: real numbers have infinite precision, so any length reads "
                    "back reliably",
                ),
                _text(
                    "数学上一个实数确实能编码任意长的句子，但这种逐元素相乘再相加的线性叠加，读回时的串扰随 T/d 增长；浮点精度有限，训练出的网络也学不到那样精细的编码。",
                    "In exact mathematics one real number could encode any sentence, but with this linear "
                    "superposition the crosstalk at readback grows like T/d; floats are finite and trained networks "
                    "do not learn such fine encodings.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "source-reversal",
        _text(  # question
            "Sutskever 等人 2014 年把每个原文句子倒过来输入（译文顺序不变），观察到了什么？",
            "What did Sutskever et al. 2014 observe when they fed every source sentence in reverse order (target "
            "order unchanged)?",
        ),
        _text(  # right
            "测试困惑度从 5.8 降到 4.7，BLEU 从 25.9 升到 30.6",
            "Test perplexity fell from 5.8 to 4.7 and BLEU rose from 25.9 to 30.6",
        ),
        (
            _wrong(
                "reversal-hurts",
                _text(
                    "BLEU 下降了：倒序打乱了模型需要的语序",
                    "BLEU dropped: reversal scrambles the word order the model needs",
                ),
                _text(
                    "你以为倒序有害。倒序让原文开头的词离译文开头更近，制造了短依赖，困惑度 5.8→4.7，BLEU 25.9→30.6。",
                    "You expected reversal to hurt. Reversing puts the first source words close to the first target "
                    "words, creating short dependencies: perplexity 5.8→4.7, BLEU 25.9→30.6.",
                ),
            ),
            _wrong(
                "reversal-no-effect",
                _text(
                    "没有变化：LSTM 反正会读完整句，顺序无关紧要",
                    "No change: the LSTM reads the whole sentence anyway, so order cannot matter",
                ),
                _text(
                    "你以为读完整句后顺序就无关了。信息经由逐步更新的状态传递，距离远近影响学习难度；倒序带来了明显提升。",
                    "You assumed order stops mattering once the whole sentence is read. Information travels through "
                    "step-by-step state updates, so distance affects how hard it is to learn; reversal helped clearly.",
                ),
            ),
            _wrong(
                "reversal-attention-figures",
                _text("BLEU 从 17.82 升到 26.75", "BLEU rose from 17.82 to 26.75"),
                _text(
                    "17.82→26.75 是 Bahdanau 等人表 1 中定长向量模型与注意力模型的对比，不是倒序实验的数字。",
                    "17.82→26.75 compares the fixed-vector and attention models in Bahdanau et al.'s Table 1; it is "
                    "not the reversal experiment.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "bottleneck-status",
        _text(  # question
            "“定长向量是编码器-解码器的瓶颈”这一说法属于哪一类结论？",
            "'The fixed-length vector is the bottleneck of the encoder–decoder.' What kind of claim is this?",
        ),
        _text(  # right
            "Bahdanau 等人提出的猜想，有实验支持，但不是定理",
            "A hypothesis of Bahdanau et al., backed by experiments but not a theorem",
        ),
        (
            _wrong(
                "bottleneck-is-theorem",
                _text(
                    "已被证明的定理：d 维向量装不下超过 d 个词的句子",
                    "A proved theorem: a d-dimensional vector cannot hold a sentence of more than d words",
                ),
                _text(
                    "并没有这样的定理；精确算术下一个实数就能编码任意句子。这个说法是理论动机加实验证据支持的猜想。",
                    "There is no such theorem; in exact arithmetic a single real number can encode any sentence. The "
                    "claim is a hypothesis motivated by theory and supported by experiments.",
                ),
            ),
            _wrong(
                "bottleneck-refuted",
                _text(
                    "已被推翻：Sutskever 的深层 LSTM 倒序输入后长句不吃亏",
                    "Refuted: Sutskever's deep LSTM with reversed input did fine on long sentences",
                ),
                _text(
                    "那个结果说明大状态加上制造短依赖的技巧能把问题往后推，而不是说瓶颈不存在；这一说法仍是有证据支持的猜想。",
                    "That result shows a large state plus a trick that creates short dependencies can push the "
                    "problem back, not that there is no bottleneck; the claim remains a supported hypothesis.",
                ),
            ),
            _wrong(
                "seq2seq-always-collapses",
                _text(
                    "公认事实：任何编码器-解码器一遇长句就崩溃",
                    "An established fact: every encoder–decoder collapses as soon as sentences get long",
                ),
                _text(
                    "说得太绝对了。Sutskever 的 8000 个数的 LSTM 倒序输入后在长句上表现不差；瓶颈是有证据的猜想，不是无例外的事实。",
                    "That is too absolute. Sutskever's 8000-number LSTM with reversed input held up on long "
                    "sentences; the bottleneck is a hypothesis with evidence, not an exceptionless fact.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "attention-memory",
        _text(  # question
            "用定长向量时，解码器能读到的原文信息是 d 个数。原文有 T 个词、每个编码状态 d 维时，加性注意力让它能从多少个数里读取？",
            "With a fixed vector the decoder can read d numbers about the source. For a source of T words with "
            "d-dimensional encoder states, how many numbers can additive attention read from?",
        ),
        _text(  # right
            "T × d：全部编码状态都保留下来", "T × d: all encoder states are kept"
        ),
        (
            _wrong(
                "attention-memory-fixed",
                _text(
                    "仍是 d 个：注意力只是给同一个摘要向量重新加权",
                    "Still d: attention only re-weights the same summary vector",
                ),
                _text(
                    "你以为注意力仍在读一个压缩摘要。注意力保留了 T 个编码状态，每一步直接到相应位置去取，记忆是 T × d 个数。",
                    "You thought attention still reads one compressed summary. It keeps all T encoder states and "
                    "fetches from the relevant positions at each step, so the memory is T × d numbers.",
                ),
            ),
            _wrong(
                "attention-memory-weights-only",
                _text("T 个：每个原文词一个权重", "T: one weight per source word"),
                _text(
                    "权重只决定看哪里；被读取的内容是 T 个各有 d 个数的编码状态，共 T × d 个数。",
                    "The weights only decide where to look; what is read are the T encoder states of d numbers each, "
                    "T × d numbers in all.",
                ),
            ),
            _wrong(
                "attention-memory-quadratic",
                _text(
                    "T² × d：每个原文词都要和其他每个词比较", "T² × d: every source word is compared with every other"
                ),
                _text(
                    "你把自注意力 n² 的计算量当成了记忆大小。这里解码器每一步对 T 个状态各打一次分，读取的记忆是 T × d 个数。",
                    "You mixed up self-attention's n² cost with the memory size. Here the decoder scores each of the "
                    "T states once per step and reads from T × d numbers.",
                ),
            ),
        ),
    ),
    ConceptItem(
        "alignment-learned",
        _text(  # question
            "在 Bahdanau 等人的模型里，解码器如何知道该看哪些原文词（他们图 3 画出的软对齐）？",
            "In Bahdanau et al.'s model, how does the decoder come to know which source words to look at (the soft "
            "alignment drawn in their Figure 3)?",
        ),
        _text(  # right
            "只从翻译损失中学出来，没有对齐标签",
            "It is learned from the translation loss alone, with no alignment labels",
        ),
        (
            _wrong(
                "alignment-supervised",
                _text("用人工标注的词对齐标签训练", "It is trained on word-alignment labels annotated by people"),
                _text(
                    "你以为对齐需要标注。模型从未见过对齐标签，权重 α 完全由翻译损失训练出来，对齐是副产品。",
                    "You assumed alignment needs labels. The model never sees alignment labels; the weights α are "
                    "trained by the translation loss alone, and the alignment is a by-product.",
                ),
            ),
            _wrong(
                "alignment-by-position",
                _text(
                    "按位置固定：译文第 i 步看原文第 i 个词", "Fixed by position: output step i looks at source word i"
                ),
                _text(
                    "你以为对齐按位置一一对应。不同语言语序不同，权重是每一步按打分重新计算的，可以看向任何位置。",
                    "You assumed a position-by-position match. Word order differs between languages; the weights are "
                    "recomputed from the scores at each step and may point anywhere.",
                ),
            ),
            _wrong(
                "alignment-from-dictionary",
                _text("查双语词典，找到译词对应的原文词", "It looks each word up in a bilingual dictionary"),
                _text(
                    "模型里没有词典。打分 e_ij 由可训练的参数算出，这些参数只靠翻译损失学习。",
                    "There is no dictionary in the model. The scores e_ij come from trainable parameters that learn "
                    "only from the translation loss.",
                ),
            ),
        ),
    ),
)

WRONG_BY_TAG: dict[str, tuple[ConceptItem, WrongOption]] = {
    option.tag: (item, option) for item in ITEMS for option in item.wrong
}
