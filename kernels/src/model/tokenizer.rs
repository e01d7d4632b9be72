//! The model's tokenizer as its GGUF file describes it: GPT-2-style byte-level BPE
//! (`tokenizer.ggml.model = "gpt2"`) with the vocabulary, merges and control tokens from
//! the metadata, and the `smollm` pre-tokenizer (digits one by one, then the GPT-2 split:
//! contractions, letter runs, number runs and other runs each with at most one leading
//! space, whitespace runs that leave the last space to the word after them). The chat
//! format is ChatML, as the file's template writes it.
//!
//! Control tokens (`<|im_start|>`, `<|im_end|>`, …) are recognized in the text by their
//! spelling; everything else goes through the pre-tokenizer and BPE. Decoding is the
//! inverse byte mapping, with control tokens written as their spelling.

use std::collections::HashMap;

use super::gguf::{Gguf, Value};

/// Why a GGUF file's tokenizer cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenizerError {
    #[error("the file has no `{0}`")]
    Missing(&'static str),
    #[error("unsupported tokenizer: {0}")]
    Unsupported(String),
    #[error("merge {rank} (`{merge}`): {why}")]
    Merge {
        rank: usize,
        merge: String,
        why: &'static str,
    },
}

/// The GGUF token type of control tokens.
const CONTROL: u64 = 3;

/// A byte-level BPE tokenizer.
#[derive(Clone, Debug)]
pub struct Tokenizer {
    /// Token text by id (byte-level characters, or a control token's spelling).
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
    /// `(left, right)` → `(rank, merged)`.
    merges: HashMap<(u32, u32), (u32, u32)>,
    /// Control tokens, longest spelling first.
    control: Vec<(String, u32)>,
    byte_char: [char; 256],
    char_byte: HashMap<char, u8>,
    /// The token that starts a ChatML turn.
    pub bos: u32,
    /// The token that ends one (generation stops there).
    pub eos: u32,
}

fn strings<'a>(g: &'a Gguf, key: &'static str) -> Result<Vec<&'a str>, TokenizerError> {
    g.metadata
        .get(key)
        .and_then(Value::as_array)
        .ok_or(TokenizerError::Missing(key))?
        .iter()
        .map(|v| v.as_str().ok_or(TokenizerError::Missing(key)))
        .collect()
}

fn id(g: &Gguf, key: &'static str) -> Result<u32, TokenizerError> {
    g.metadata
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or(TokenizerError::Missing(key))
}

/// GPT-2's byte ↔ character map: printable Latin-1 bytes stand for themselves, the others
/// for the characters from U+0100 on, in byte order.
fn byte_chars() -> [char; 256] {
    let mut out = ['\0'; 256];
    let mut next = 256u32;
    for (b, slot) in out.iter_mut().enumerate() {
        let printable = (b'!'..=b'~').contains(&(b as u8))
            || (0xA1..=0xAC).contains(&b)
            || (0xAE..=0xFF).contains(&b);
        *slot = if printable {
            char::from(b as u8)
        } else {
            next += 1;
            char::from_u32(next - 1).expect("below the surrogates")
        };
    }
    out
}

impl Tokenizer {
    /// The tokenizer of a GGUF file (GPT-2 BPE with the `smollm` pre-tokenizer).
    pub fn from_gguf(g: &Gguf) -> Result<Tokenizer, TokenizerError> {
        let text = |key: &'static str| {
            g.metadata
                .get(key)
                .and_then(Value::as_str)
                .ok_or(TokenizerError::Missing(key))
        };
        let model = text("tokenizer.ggml.model")?;
        let pre = text("tokenizer.ggml.pre")?;
        if model != "gpt2" || pre != "smollm" {
            return Err(TokenizerError::Unsupported(format!(
                "model `{model}`, pre-tokenizer `{pre}` (only gpt2 with smollm)"
            )));
        }
        let tokens: Vec<String> = strings(g, "tokenizer.ggml.tokens")?
            .into_iter()
            .map(str::to_string)
            .collect();
        let types = g
            .metadata
            .get("tokenizer.ggml.token_type")
            .and_then(Value::as_array)
            .ok_or(TokenizerError::Missing("tokenizer.ggml.token_type"))?;
        if types.len() != tokens.len() || tokens.len() > u32::MAX as usize {
            return Err(TokenizerError::Unsupported(
                "token types do not match the tokens".into(),
            ));
        }
        let ids: HashMap<String, u32> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let mut merges = HashMap::new();
        for (rank, m) in strings(g, "tokenizer.ggml.merges")?.into_iter().enumerate() {
            let bad = |why| TokenizerError::Merge {
                rank,
                merge: m.to_string(),
                why,
            };
            let (l, r) = m.split_once(' ').ok_or_else(|| bad("not two tokens"))?;
            let (Some(&li), Some(&ri)) = (ids.get(l), ids.get(r)) else {
                return Err(bad("a part is not in the vocabulary"));
            };
            let merged = *ids
                .get(&format!("{l}{r}"))
                .ok_or_else(|| bad("the merged token is not in the vocabulary"))?;
            merges.entry((li, ri)).or_insert((rank as u32, merged));
        }
        let mut control: Vec<(String, u32)> = types
            .iter()
            .enumerate()
            .filter(|(_, t)| t.as_u64() == Some(CONTROL))
            .map(|(i, _)| (tokens[i].clone(), i as u32))
            .collect();
        control.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        let byte_char = byte_chars();
        let (bos, eos) = (
            id(g, "tokenizer.ggml.bos_token_id")?,
            id(g, "tokenizer.ggml.eos_token_id")?,
        );
        if bos as usize >= tokens.len() || eos as usize >= tokens.len() {
            return Err(TokenizerError::Unsupported(
                "bos or eos outside the vocabulary".into(),
            ));
        }
        Ok(Tokenizer {
            char_byte: byte_char
                .iter()
                .enumerate()
                .map(|(b, &c)| (c, b as u8))
                .collect(),
            tokens,
            ids,
            merges,
            control,
            byte_char,
            bos,
            eos,
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The token ids of `text`; control tokens spelled in it are recognized.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            // The earliest control token (the longest at that place), else the end.
            let hit = self
                .control
                .iter()
                .filter_map(|(s, id)| rest.find(s.as_str()).map(|at| (at, s.len(), *id)))
                .min_by_key(|&(at, len, _)| (at, std::cmp::Reverse(len)));
            let plain_end = hit.map_or(rest.len(), |(at, _, _)| at);
            for piece in pre_tokenize(&rest[..plain_end]) {
                self.bpe(piece, &mut out);
            }
            match hit {
                Some((at, len, id)) => {
                    out.push(id);
                    rest = &rest[at + len..];
                }
                None => break,
            }
        }
        out
    }

    /// One pre-token through BPE: its bytes as byte characters, then the lowest-ranked
    /// adjacent pair merged until no pair has a merge. A byte the vocabulary has no token
    /// for (SmolLM2 lacks some control bytes) is dropped, as llama.cpp and Hugging Face
    /// `tokenizers` drop it.
    fn bpe(&self, piece: &str, out: &mut Vec<u32>) {
        let mut syms: Vec<u32> = piece
            .bytes()
            .filter_map(|b| {
                self.ids
                    .get(&self.byte_char[b as usize].to_string())
                    .copied()
            })
            .collect();
        loop {
            let best = syms
                .windows(2)
                .enumerate()
                .filter_map(|(i, w)| self.merges.get(&(w[0], w[1])).map(|&(r, m)| (r, i, m)))
                .min();
            let Some((_, i, merged)) = best else { break };
            syms[i] = merged;
            syms.remove(i + 1);
        }
        out.extend(syms);
    }

    /// The text of `ids`; control tokens as their spelling, invalid UTF-8 replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            let Some(t) = self.tokens.get(id as usize) else {
                continue;
            };
            if self.control.iter().any(|(_, c)| *c == id) {
                bytes.extend_from_slice(t.as_bytes());
            } else {
                bytes.extend(t.chars().filter_map(|c| self.char_byte.get(&c).copied()));
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The id of a token's exact text, if the vocabulary has it.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// A user message in the model's ChatML format, with the file's default system
    /// message, ready for the assistant's answer.
    pub fn chat_prompt(&self, user: &str) -> String {
        format!(
            "<|im_start|>system\n{DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"
        )
    }
}

/// The system message SmolLM2's chat template adds when a conversation has none.
pub const DEFAULT_SYSTEM: &str =
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

/// `\p{L}` (general category Letter: Rust's `is_alphabetic` also takes combining marks).
fn is_letter(c: char) -> bool {
    static LETTER: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^\p{L}$").expect("a valid pattern"));
    c.is_alphabetic() && LETTER.is_match(c.encode_utf8(&mut [0; 4]))
}

/// The `smollm` pre-tokenizer: digits one by one, and the GPT-2 split of what lies between
/// them (`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`).
pub fn pre_tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c.is_numeric() {
            gpt2_split(&text[start..i], &mut out);
            out.push(&text[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    gpt2_split(&text[start..], &mut out);
    out
}

/// The GPT-2 pattern over one fragment (which has no digits).
fn gpt2_split<'a>(s: &'a str, out: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let at = |k: usize| chars.get(k).map(|&(_, c)| c);
    let byte = |k: usize| chars.get(k).map_or(s.len(), |&(b, _)| b);
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k].1;
        // Contractions: 's 't 'm 'd 're 've 'll.
        if c == '\'' {
            let two: String = [at(k + 1), at(k + 2)].iter().flatten().collect();
            let len = if ["re", "ve", "ll"].contains(&two.as_str()) {
                3
            } else if matches!(at(k + 1), Some('s' | 't' | 'm' | 'd')) {
                2
            } else {
                0
            };
            if len > 0 {
                out.push(&s[byte(k)..byte(k + len)]);
                k += len;
                continue;
            }
        }
        // An optional single space, then a run of one class.
        let lead = usize::from(c == ' ' && at(k + 1).is_some_and(|n| !n.is_whitespace()));
        if let Some(first) = at(k + lead).filter(|n| !n.is_whitespace()) {
            let class = |x: char| {
                if is_letter(x) {
                    0
                } else if x.is_numeric() {
                    1
                } else {
                    2
                }
            };
            let cls = class(first);
            let mut end = k + lead + 1;
            while at(end).is_some_and(|x| !x.is_whitespace() && class(x) == cls) {
                end += 1;
            }
            out.push(&s[byte(k)..byte(end)]);
            k = end;
            continue;
        }
        // A whitespace run: to its end when nothing follows it; else all but its last
        // character, which goes with the next word if it is a space, or alone.
        let mut end = k;
        while at(end).is_some_and(char::is_whitespace) {
            end += 1;
        }
        if end < chars.len() && end - k > 1 {
            out.push(&s[byte(k)..byte(end - 1)]);
            k = end - 1;
        } else if end < chars.len() {
            // One whitespace character before a word: not a space (a space would have
            // led the word above), so it stands alone.
            out.push(&s[byte(k)..byte(end)]);
            k = end;
        } else {
            out.push(&s[byte(k)..byte(end)]);
            k = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_tokenizer_follows_the_gpt2_pattern_with_single_digits() {
        assert_eq!(
            pre_tokenize("Hello world, it's 2024!\n\n  Done  "),
            [
                "Hello", " world", ",", " it", "'s", " ", "2", "0", "2", "4", "!", "\n\n ",
                " Done", "  "
            ]
        );
        assert_eq!(pre_tokenize("a\nb"), ["a", "\n", "b"]);
        assert_eq!(pre_tokenize("x  y"), ["x", " ", " y"]);
        assert_eq!(pre_tokenize("don't  'll"), ["don", "'t", " ", " '", "ll"]);
        assert_eq!(
            pre_tokenize("über-naïve €5"),
            ["über", "-", "naïve", " €", "5"]
        );
    }

    #[test]
    fn gpt2_byte_map_is_a_bijection_onto_printable_characters() {
        let m = byte_chars();
        assert_eq!(m[b'A' as usize], 'A');
        assert_eq!(m[b' ' as usize], 'Ġ');
        assert_eq!(m[b'\n' as usize], 'Ċ');
        let set: std::collections::HashSet<char> = m.iter().copied().collect();
        assert_eq!(set.len(), 256);
    }
}
