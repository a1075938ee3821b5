//! Reading a GGUF file's header and metadata before mistral.rs loads it: a
//! missing, truncated or foreign file is an error naming the file before the
//! port opens, and the metadata says what the model is (architecture, name,
//! context length, llama.cpp's file type) for `/health` and every result.

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A scalar or string metadata value; arrays are counted, not kept.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
    Bool(bool),
    Text(String),
    /// An array of this many items (the vocabulary, merges, …).
    Array(u64),
}

impl Value {
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// What a GGUF file says about itself.
#[derive(Debug, Clone)]
pub struct Header {
    pub version: u32,
    pub tensors: u64,
    pub metadata: BTreeMap<String, Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a GGUF file (it starts with {magic:?}, not \"GGUF\")")]
    NotGguf { path: PathBuf, magic: [u8; 4] },
    #[error("{path}: GGUF version {version} is not one this reader knows (2 or 3)")]
    Version { path: PathBuf, version: u32 },
    #[error("{path}: corrupt GGUF metadata at key {index}: {why}")]
    Corrupt {
        path: PathBuf,
        index: u64,
        why: String,
    },
}

/// llama.cpp's `general.file_type` (`enum llama_ftype`) as llama.cpp names it.
pub fn file_type_name(code: i128) -> &'static str {
    match code {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        32 => "BF16",
        _ => "unknown",
    }
}

impl Header {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.get(key)
    }

    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture").and_then(Value::as_text)
    }

    /// The file type as llama.cpp names it (`Q4_1`), when the file says.
    pub fn file_type(&self) -> Option<&'static str> {
        self.get("general.file_type")
            .and_then(Value::as_int)
            .map(file_type_name)
    }

    /// `<arch>.context_length`.
    pub fn context_length(&self) -> Option<i128> {
        let arch = self.architecture()?;
        self.get(&format!("{arch}.context_length"))
            .and_then(Value::as_int)
    }
}

/// Read the header and metadata of the GGUF file at `path`.
pub fn read_header(path: &Path) -> Result<Header, GgufError> {
    let io = |source| GgufError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut r = BufReader::new(file);
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic).map_err(io)?;
    if &magic != b"GGUF" {
        return Err(GgufError::NotGguf {
            path: path.to_owned(),
            magic,
        });
    }
    let version = read_u32(&mut r).map_err(io)?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::Version {
            path: path.to_owned(),
            version,
        });
    }
    let tensors = read_u64(&mut r).map_err(io)?;
    let count = read_u64(&mut r).map_err(io)?;
    let mut metadata = BTreeMap::new();
    for index in 0..count {
        let corrupt = |why: String| GgufError::Corrupt {
            path: path.to_owned(),
            index,
            why,
        };
        let key = read_string(&mut r, len).map_err(|e| corrupt(e.to_string()))?;
        let kind = read_u32(&mut r).map_err(|e| corrupt(e.to_string()))?;
        let value = read_value(&mut r, kind, len).map_err(|e| corrupt(format!("{key}: {e}")))?;
        metadata.insert(key, value);
    }
    Ok(Header {
        version,
        tensors,
        metadata,
    })
}

fn read_u32(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn invalid(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why)
}

/// A length-prefixed string; a length past the end of the file is corruption.
fn read_string(r: &mut impl Read, file_len: u64) -> std::io::Result<String> {
    let n = read_u64(r)?;
    if n > file_len {
        return Err(invalid(format!(
            "a string of {n} bytes in a file of {file_len}"
        )));
    }
    let mut b = vec![0u8; n as usize];
    r.read_exact(&mut b)?;
    String::from_utf8(b).map_err(|e| invalid(e.to_string()))
}

/// Size in bytes of a fixed-size GGUF scalar type.
fn scalar_size(kind: u32) -> Option<u64> {
    Some(match kind {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        10..=12 => 8,
        _ => return None,
    })
}

fn read_value<R: Read + Seek>(r: &mut R, kind: u32, file_len: u64) -> std::io::Result<Value> {
    let mut b = [0u8; 8];
    Ok(match kind {
        0 => {
            r.read_exact(&mut b[..1])?;
            Value::Int(b[0].into())
        }
        1 => {
            r.read_exact(&mut b[..1])?;
            Value::Int((b[0] as i8).into())
        }
        2 => {
            r.read_exact(&mut b[..2])?;
            Value::Int(u16::from_le_bytes([b[0], b[1]]).into())
        }
        3 => {
            r.read_exact(&mut b[..2])?;
            Value::Int(i16::from_le_bytes([b[0], b[1]]).into())
        }
        4 => Value::Int(read_u32(r)?.into()),
        5 => Value::Int((read_u32(r)? as i32).into()),
        6 => Value::Float(f32::from_bits(read_u32(r)?).into()),
        7 => {
            r.read_exact(&mut b[..1])?;
            Value::Bool(b[0] != 0)
        }
        8 => Value::Text(read_string(r, file_len)?),
        9 => {
            let item = read_u32(r)?;
            let n = read_u64(r)?;
            match (item, scalar_size(item)) {
                (_, Some(size)) => {
                    let skip = n
                        .checked_mul(size)
                        .filter(|s| *s <= file_len)
                        .ok_or_else(|| invalid(format!("an array of {n} items")))?;
                    r.seek(SeekFrom::Current(skip as i64))?;
                }
                (8, None) => {
                    for _ in 0..n {
                        let len = read_u64(r)?;
                        if len > file_len {
                            return Err(invalid(format!("a string of {len} bytes")));
                        }
                        r.seek(SeekFrom::Current(len as i64))?;
                    }
                }
                (other, None) => {
                    return Err(invalid(format!("an array of type {other}")));
                }
            }
            Value::Array(n)
        }
        10 => Value::Int(read_u64(r)?.into()),
        11 => Value::Int((read_u64(r)? as i64).into()),
        12 => Value::Float(f64::from_bits(read_u64(r)?)),
        other => return Err(invalid(format!("value type {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal GGUF v3 file: two metadata keys, no tensors.
    fn tiny(extra: &[u8]) -> Vec<u8> {
        let mut f = b"GGUF".to_vec();
        f.extend(3u32.to_le_bytes());
        f.extend(0u64.to_le_bytes());
        f.extend(3u64.to_le_bytes());
        let key = |f: &mut Vec<u8>, k: &str| {
            f.extend((k.len() as u64).to_le_bytes());
            f.extend(k.as_bytes());
        };
        key(&mut f, "general.architecture");
        f.extend(8u32.to_le_bytes());
        f.extend(5u64.to_le_bytes());
        f.extend(b"llama");
        key(&mut f, "general.file_type");
        f.extend(4u32.to_le_bytes());
        f.extend(3u32.to_le_bytes());
        key(&mut f, "tokenizer.ggml.tokens");
        f.extend(9u32.to_le_bytes());
        f.extend(8u32.to_le_bytes());
        f.extend(2u64.to_le_bytes());
        for t in ["<s>", "hi"] {
            f.extend((t.len() as u64).to_le_bytes());
            f.extend(t.as_bytes());
        }
        f.extend(extra);
        f
    }

    fn write(name: &str, bytes: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("droidscore-gguf-{name}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn the_header_names_the_architecture_and_file_type_and_counts_arrays() {
        let path = write("ok", &tiny(&[]));
        let h = read_header(&path).unwrap();
        assert_eq!(h.architecture(), Some("llama"));
        assert_eq!(h.file_type(), Some("Q4_1"));
        assert_eq!(h.get("tokenizer.ggml.tokens"), Some(&Value::Array(2)));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_foreign_or_truncated_file_is_an_error_naming_it() {
        let path = write("foreign", b"PK\x03\x04 not a model");
        let err = read_header(&path).unwrap_err().to_string();
        assert!(
            err.contains(path.to_str().unwrap()) && err.contains("not a GGUF file"),
            "{err}"
        );
        let mut cut = tiny(&[]);
        cut.truncate(cut.len() - 4);
        std::fs::write(&path, &cut).unwrap();
        let err = read_header(&path).unwrap_err().to_string();
        assert!(err.contains("corrupt GGUF metadata at key 2"), "{err}");
        std::fs::remove_file(&path).unwrap();
        let err = read_header(&path).unwrap_err().to_string();
        assert!(err.contains(path.to_str().unwrap()), "{err}");
    }
}
