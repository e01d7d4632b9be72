//! GGUF files, the format llama.cpp distributes models in (version 3, little-endian): a
//! header, typed metadata (`general.architecture`, `llama.block_count`, the tokenizer's
//! tokens and merges, …), tensor descriptions, then the tensors' bytes at aligned offsets.
//! [`Gguf::parse`] reads and bounds-checks all of it (a hostile or cut-off file is an
//! error, never a panic or an allocation its size does not pay for);
//! [`Gguf::tensor_f32`] dequantizes one tensor (F32, F16, Q8_0 and Q4_1: what the
//! SmolLM2 file of the CPU arena holds) exactly as llama.cpp does.

use std::collections::BTreeMap;

/// A metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    Str(String),
    Array(Vec<Value>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Value {
    /// An integer of any width that fits in `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_f32(&self) -> Option<f32> {
        match *self {
            Value::F32(v) => Some(v),
            Value::F64(v) => Some(v as f32),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(v) => Some(v),
            _ => None,
        }
    }
}

/// How a tensor's elements are stored (ggml's type numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorType {
    F32,
    F16,
    /// Blocks of 32: an f16 scale `d` and 32 signed bytes; `x = d·q`.
    Q8_0,
    /// Blocks of 32: f16 `d` and `m`, then 16 bytes of 4-bit `q` (low nibbles are the
    /// first 16 elements, high nibbles the next 16); `x = d·q + m`.
    Q4_1,
    /// Any other ggml type: described, not readable here.
    Other(u32),
}

impl TensorType {
    fn from_raw(raw: u32) -> TensorType {
        match raw {
            0 => TensorType::F32,
            1 => TensorType::F16,
            3 => TensorType::Q4_1,
            8 => TensorType::Q8_0,
            other => TensorType::Other(other),
        }
    }

    /// Bytes of `n` elements, for the types this reader knows (`n` a whole number of
    /// blocks for the quantized ones).
    fn bytes(self, n: u64) -> Option<u64> {
        match self {
            TensorType::F32 => n.checked_mul(4),
            TensorType::F16 => n.checked_mul(2),
            TensorType::Q8_0 => n.is_multiple_of(32).then_some(n / 32 * 34),
            TensorType::Q4_1 => n.is_multiple_of(32).then_some(n / 32 * 20),
            TensorType::Other(_) => None,
        }
    }
}

/// One tensor's description.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInfo {
    pub name: String,
    /// ggml order: `dims[0]` varies fastest (a `[rows, cols]` matrix is `[cols, rows]`).
    pub dims: Vec<u64>,
    pub kind: TensorType,
    /// From the start of the data section.
    pub offset: u64,
}

impl TensorInfo {
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// Why a file is not a GGUF this reader can use.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GgufError {
    #[error("not a GGUF file (its first bytes are not `GGUF`)")]
    Magic,
    #[error("GGUF version {0}: only version 3 is read")]
    Version(u32),
    #[error("the file ends inside {0}")]
    Truncated(&'static str),
    #[error("{what} of {len} is more than the file could hold")]
    TooLarge { what: &'static str, len: u64 },
    #[error("metadata value type {0} does not exist")]
    ValueType(u32),
    #[error("a string is not UTF-8")]
    Utf8,
    #[error("metadata key `{0}` appears twice")]
    DuplicateKey(String),
    #[error("tensor `{name}`: {why}")]
    Tensor { name: String, why: String },
    #[error("no tensor `{0}`")]
    NoTensor(String),
}

/// A parsed GGUF file: metadata and tensor descriptions; the bytes stay the caller's.
#[derive(Clone, Debug)]
pub struct Gguf {
    pub metadata: BTreeMap<String, Value>,
    pub tensors: Vec<TensorInfo>,
    /// Where the data section starts in the file.
    pub data_start: u64,
}

/// Deepest array nesting accepted (real files use one level).
const MAX_DEPTH: u32 = 4;

/// Most items of one metadata array (a vocabulary of 49,152 tokens is a large one).
const MAX_ARRAY: u64 = 1 << 22;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], GgufError> {
        let n = usize::try_from(n).map_err(|_| GgufError::Truncated(what))?;
        let end = self.at.checked_add(n).ok_or(GgufError::Truncated(what))?;
        let out = self
            .bytes
            .get(self.at..end)
            .ok_or(GgufError::Truncated(what))?;
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GgufError> {
        Ok(self.take(N as u64, what)?.try_into().expect("N bytes"))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A count of items at least `min_bytes` each: refused when the rest of the file
    /// could not hold them (so no allocation is sized by a number the file does not pay).
    fn count(&mut self, what: &'static str, min_bytes: u64) -> Result<u64, GgufError> {
        let len = self.u64(what)?;
        let left = (self.bytes.len() - self.at) as u64;
        if len.saturating_mul(min_bytes.max(1)) > left {
            return Err(GgufError::TooLarge { what, len });
        }
        Ok(len)
    }

    fn string(&mut self, what: &'static str) -> Result<String, GgufError> {
        let len = self.count(what, 1)?;
        let raw = self.take(len, what)?;
        String::from_utf8(raw.to_vec()).map_err(|_| GgufError::Utf8)
    }

    fn value(&mut self, kind: u32, depth: u32) -> Result<Value, GgufError> {
        const W: &str = "a metadata value";
        Ok(match kind {
            0 => Value::U8(self.array::<1>(W)?[0]),
            1 => Value::I8(self.array::<1>(W)?[0] as i8),
            2 => Value::U16(u16::from_le_bytes(self.array(W)?)),
            3 => Value::I16(i16::from_le_bytes(self.array(W)?)),
            4 => Value::U32(u32::from_le_bytes(self.array(W)?)),
            5 => Value::I32(i32::from_le_bytes(self.array(W)?)),
            6 => Value::F32(f32::from_le_bytes(self.array(W)?)),
            7 => Value::Bool(self.array::<1>(W)?[0] != 0),
            8 => Value::Str(self.string("a string")?),
            9 if depth < MAX_DEPTH => {
                let item = self.u32("an array's item type")?;
                let len = self.count("an array", 1)?;
                if len > MAX_ARRAY {
                    return Err(GgufError::TooLarge {
                        what: "an array",
                        len,
                    });
                }
                let mut items = Vec::with_capacity(len.min(1 << 20) as usize);
                for _ in 0..len {
                    items.push(self.value(item, depth + 1)?);
                }
                Value::Array(items)
            }
            10 => Value::U64(u64::from_le_bytes(self.array(W)?)),
            11 => Value::I64(i64::from_le_bytes(self.array(W)?)),
            12 => Value::F64(f64::from_le_bytes(self.array(W)?)),
            other => return Err(GgufError::ValueType(other)),
        })
    }
}

impl Gguf {
    /// Reads the header, the metadata and the tensor descriptions of `bytes` (a whole
    /// file), and checks that every tensor this reader can decode lies inside the file.
    pub fn parse(bytes: &[u8]) -> Result<Gguf, GgufError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4, "the magic")? != b"GGUF" {
            return Err(GgufError::Magic);
        }
        let version = r.u32("the version")?;
        if version != 3 {
            return Err(GgufError::Version(version));
        }
        // Each tensor description takes at least 24 bytes, each key-value at least 13.
        let n_tensors = r.count("the tensor count", 24)?;
        let n_kv = r.count("the metadata count", 13)?;
        let mut metadata = BTreeMap::new();
        for _ in 0..n_kv {
            let key = r.string("a metadata key")?;
            let kind = r.u32("a metadata type")?;
            let value = r.value(kind, 0)?;
            if metadata.insert(key.clone(), value).is_some() {
                return Err(GgufError::DuplicateKey(key));
            }
        }
        let mut tensors = Vec::with_capacity(n_tensors as usize);
        for _ in 0..n_tensors {
            let name = r.string("a tensor name")?;
            let n_dims = r.u32("a tensor's rank")?;
            if n_dims > 8 {
                return Err(GgufError::Tensor {
                    name,
                    why: format!("rank {n_dims}"),
                });
            }
            let dims = (0..n_dims)
                .map(|_| r.u64("a tensor's dims"))
                .collect::<Result<Vec<_>, _>>()?;
            let kind = TensorType::from_raw(r.u32("a tensor's type")?);
            let offset = r.u64("a tensor's offset")?;
            tensors.push(TensorInfo {
                name,
                dims,
                kind,
                offset,
            });
        }
        // A power of two up to 1 MiB (llama.cpp writes 32).
        let align = match metadata.get("general.alignment") {
            None => 32,
            Some(v) => {
                let a = v.as_u64().unwrap_or(0);
                if !a.is_power_of_two() || a > 1 << 20 {
                    return Err(GgufError::TooLarge {
                        what: "general.alignment",
                        len: a,
                    });
                }
                a
            }
        };
        let data_start = (r.at as u64).div_ceil(align) * align;
        let gguf = Gguf {
            metadata,
            tensors,
            data_start,
        };
        for t in &gguf.tensors {
            if !matches!(t.kind, TensorType::Other(_)) {
                gguf.span(t, bytes.len() as u64)?;
            }
        }
        Ok(gguf)
    }

    /// The tensor called `name`.
    pub fn tensor(&self, name: &str) -> Result<&TensorInfo, GgufError> {
        self.tensors
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| GgufError::NoTensor(name.to_string()))
    }

    /// Where a tensor's bytes lie in a file of `file_len` bytes.
    fn span(&self, t: &TensorInfo, file_len: u64) -> Result<std::ops::Range<usize>, GgufError> {
        let bad = |why: String| GgufError::Tensor {
            name: t.name.clone(),
            why,
        };
        let n = t
            .dims
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or_else(|| bad("its element count overflows".into()))?;
        let len = t
            .kind
            .bytes(n)
            .ok_or_else(|| bad(format!("{:?} of {n} elements is not readable here", t.kind)))?;
        let start = self.data_start.checked_add(t.offset);
        let end = start.and_then(|s| s.checked_add(len));
        match (start, end) {
            (Some(s), Some(e)) if e <= file_len => Ok(s as usize..e as usize),
            _ => Err(bad(format!(
                "its {len} bytes at offset {} lie outside the file",
                t.offset
            ))),
        }
    }

    /// The tensor `name` of `bytes` (the file `parse` read) as f32, in ggml order.
    pub fn tensor_f32(&self, bytes: &[u8], name: &str) -> Result<Vec<f32>, GgufError> {
        let t = self.tensor(name)?;
        let raw = &bytes[self.span(t, bytes.len() as u64)?];
        Ok(dequantize(t.kind, raw))
    }
}

/// Elements of `raw`, stored as `kind` (whose length [`Gguf::parse`] checked).
fn dequantize(kind: TensorType, raw: &[u8]) -> Vec<f32> {
    let f16 = |b: &[u8]| half::f16::from_le_bytes([b[0], b[1]]).to_f32();
    match kind {
        TensorType::F32 => raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        TensorType::F16 => raw.chunks_exact(2).map(f16).collect(),
        TensorType::Q8_0 => raw
            .chunks_exact(34)
            .flat_map(|block| {
                let d = f16(&block[..2]);
                block[2..].iter().map(move |&q| q as i8 as f32 * d)
            })
            .collect(),
        TensorType::Q4_1 => raw
            .chunks_exact(20)
            .flat_map(|block| {
                let (d, m) = (f16(&block[..2]), f16(&block[2..4]));
                let qs = &block[4..];
                let low = qs.iter().map(|&b| b & 0x0f);
                let high = qs.iter().map(|&b| b >> 4);
                low.chain(high).map(move |q| d * q as f32 + m)
            })
            .collect(),
        TensorType::Other(_) => unreachable!("span refuses types this reader cannot decode"),
    }
}
