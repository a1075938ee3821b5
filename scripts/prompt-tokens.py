#!/usr/bin/env python3
"""Count the prompt tokens of `droidscore agent prompts` dumps with a GGUF
model's own vocabulary, as its chat template lays the messages out.

    droidscore agent prompts --out DIR
    python3 scripts/prompt-tokens.py MODEL.gguf DIR/requests.jsonl

Needs `pip install gguf tokenizers`. The tokenizer is rebuilt from the
GGUF's `tokenizer.ggml.tokens` and `.merges` as a byte-level BPE with
GPT-2's split (what SmolLM2's `smollm` pre-tokenizer is); the template is
ChatML (`<|im_start|>role\\n…<|im_end|>\\n`, then `<|im_start|>assistant\\n`).
A server's `usage.prompt_tokens` is the figure of record: this is for
measuring a prompt design without one (mistral.rs 0.8.1 splits SmolLM2's
text Qwen2-style, so its counts can differ by a few tokens).
"""
import json
import statistics
import sys

from gguf import GGUFReader
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers


def field_strings(reader, key):
    field = reader.fields[key]
    return [bytes(field.parts[i]).decode("utf-8") for i in field.data]


def tokenizer_from_gguf(path):
    reader = GGUFReader(path)
    tokens = field_strings(reader, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in field_strings(reader, "tokenizer.ggml.merges")]
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    specials = [t for t in tokens if t.startswith("<|") and t.endswith("|>")]
    tok.add_special_tokens([AddedToken(t, special=True) for t in specials])
    return tok


def text_of(content):
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def chatml(messages):
    out = ""
    for m in messages:
        out += f"<|im_start|>{m['role']}\n{text_of(m['content'])}<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


def quantile(values, q):
    values = sorted(values)
    pos = q * (len(values) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def main():
    model, dump = sys.argv[1], sys.argv[2]
    tok = tokenizer_from_gguf(model)
    counts, chars = [], []
    for line in open(dump, encoding="utf-8"):
        body = json.loads(line)["body"]
        counts.append(len(tok.encode(chatml(body["messages"])).ids))
        chars.append(sum(len(text_of(m["content"])) + 1 for m in body["messages"]))
    ratio = sum(chars) / (sum(counts) - 13 * len(counts))
    print(f"{len(counts)} steps: prompt tokens per step median {quantile(counts, 0.5):.0f}, "
          f"p90 {quantile(counts, 0.9):.0f}, max {max(counts)}; "
          f"{ratio:.2f} characters a token besides the template's 13")


if __name__ == "__main__":
    main()
