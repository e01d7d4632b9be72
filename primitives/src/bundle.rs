//! The canonical bundle encoding (DESIGN 3).
//!
//! A bundle is a set of source files. Its canonical bytes are the SCALE encoding of
//! `Vec<BundleFile>` sorted by path bytes with no duplicates; its [`ContentHash`] is the
//! SHA-256 of those bytes. [`decode_bundle`] is the only way in: it refuses anything that is not
//! exactly canonical, so two different byte strings can never name the same set of files.

use alloc::string::String;
use alloc::vec::Vec;
use codec::{Compact, Decode, Encode};

use crate::ContentHash;

/// One file of a bundle: a relative `/`-separated path and its bytes. The one bundle file
/// type of the project: the chain decodes it, the tools read it from disk and the engine's
/// stock kernels are embedded as it. A path is a `String`, SCALE-encoded exactly as its
/// bytes would be (a compact length, then the bytes); bytes that are not UTF-8 do not
/// decode (`Malformed`), and the path rules allow only ASCII anyway.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Encode, Decode)]
pub struct BundleFile {
    pub path: String,
    pub data: Vec<u8>,
}

impl BundleFile {
    pub fn new(path: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        BundleFile {
            path: path.into(),
            data: data.into(),
        }
    }
}

/// Size limits a bundle must respect.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BundleLimits {
    /// Most canonical bytes in all (the chain's `MaxBundleBytes`).
    pub max_bytes: u32,
    /// Most files.
    pub max_files: u32,
    /// Longest path in bytes.
    pub max_path_len: u32,
}

impl BundleLimits {
    /// The design's defaults: 512 KiB, 64 files, 255-byte paths.
    pub const DEFAULT: BundleLimits = BundleLimits {
        max_bytes: 512 * 1024,
        max_files: 64,
        max_path_len: 255,
    };
}

impl Default for BundleLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Why bytes are not a canonical bundle. `file` is the index of the offending file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BundleError {
    /// More canonical bytes than `max_bytes`.
    TooLarge { bytes: u64, max: u32 },
    /// More files than `max_files`.
    TooManyFiles { files: u64, max: u32 },
    /// A bundle must hold at least one file.
    Empty,
    /// The bytes are not a SCALE `Vec<BundleFile>`.
    Malformed,
    /// Bytes follow the encoded file list.
    TrailingBytes,
    /// A path is empty, absolute, has an empty, `.` or `..` component, or a byte outside
    /// `[A-Za-z0-9._-]` and `/`.
    BadPath { file: u32 },
    /// A path is longer than `max_path_len`.
    PathTooLong { file: u32 },
    /// Paths are not in strictly increasing byte order.
    NotSorted { file: u32 },
    /// Two files have the same path.
    DuplicatePath { file: u32 },
    /// A path is also used as a directory by another file (`a` and `a/b.c`).
    PathConflict { file: u32 },
    /// A file has a binary extension (`.so .o .a .cubin .fatbin .ptx .pyc`).
    BinaryExtension { file: u32 },
    /// A file starts with the ELF magic or contains a NUL byte.
    BinaryContent { file: u32 },
}

impl core::fmt::Display for BundleError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooLarge { bytes, max } => write!(f, "bundle is {bytes} bytes, the limit is {max}"),
            Self::TooManyFiles { files, max } => write!(f, "bundle has {files} files, the limit is {max}"),
            Self::Empty => write!(f, "bundle has no files"),
            Self::Malformed => write!(f, "bytes are not a SCALE-encoded file list"),
            Self::TrailingBytes => write!(f, "bytes follow the encoded file list"),
            Self::BadPath { file } => write!(
                f,
                "file #{file}: path must be relative, '/'-separated, components of [A-Za-z0-9._-] other than '.' and '..'"
            ),
            Self::PathTooLong { file } => write!(f, "file #{file}: path is longer than the limit"),
            Self::NotSorted { file } => write!(f, "file #{file}: paths are not sorted by bytes"),
            Self::DuplicatePath { file } => write!(f, "file #{file}: duplicate path"),
            Self::PathConflict { file } => write!(f, "file #{file}: path is also a directory of another file"),
            Self::BinaryExtension { file } => write!(f, "file #{file}: binary file extension"),
            Self::BinaryContent { file } => write!(f, "file #{file}: binary content (ELF magic or NUL byte)"),
        }
    }
}

const BINARY_EXTENSIONS: [&[u8]; 7] = [
    b".so", b".o", b".a", b".cubin", b".fatbin", b".ptx", b".pyc",
];

/// Checks one path against the bundle path rules.
pub fn check_path(path: &[u8], file: u32, limits: &BundleLimits) -> Result<(), BundleError> {
    if path.len() > limits.max_path_len as usize {
        return Err(BundleError::PathTooLong { file });
    }
    if path.is_empty() {
        return Err(BundleError::BadPath { file });
    }
    for component in path.split(|b| *b == b'/') {
        let ok = !component.is_empty()
            && component != b"."
            && component != b".."
            && component
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !ok {
            return Err(BundleError::BadPath { file });
        }
    }
    Ok(())
}

/// Checks that a file's contents are source text, not a binary.
pub fn check_contents(path: &[u8], data: &[u8], file: u32) -> Result<(), BundleError> {
    let lower: Vec<u8> = path.iter().map(|b| b.to_ascii_lowercase()).collect();
    if BINARY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext)) {
        return Err(BundleError::BinaryExtension { file });
    }
    if data.starts_with(b"\x7fELF") || data.contains(&0) {
        return Err(BundleError::BinaryContent { file });
    }
    Ok(())
}

/// Decodes and fully validates canonical bundle bytes.
///
/// Checks run cheapest first: total size, then the announced file count (read before anything
/// is allocated), then the decode, then every path and file.
pub fn decode_bundle(bytes: &[u8], limits: &BundleLimits) -> Result<Vec<BundleFile>, BundleError> {
    if bytes.len() > limits.max_bytes as usize {
        return Err(BundleError::TooLarge {
            bytes: bytes.len() as u64,
            max: limits.max_bytes,
        });
    }
    let mut input = bytes;
    let Compact(count) = Compact::<u64>::decode(&mut input).map_err(|_| BundleError::Malformed)?;
    if count > limits.max_files as u64 {
        return Err(BundleError::TooManyFiles {
            files: count,
            max: limits.max_files,
        });
    }
    if count == 0 {
        return Err(BundleError::Empty);
    }
    let mut files = Vec::with_capacity(count as usize);
    for _ in 0..count {
        files.push(BundleFile::decode(&mut input).map_err(|_| BundleError::Malformed)?);
    }
    if !input.is_empty() {
        return Err(BundleError::TrailingBytes);
    }
    check_files(&files, limits)?;
    Ok(files)
}

/// Validates a file list as a bundle would be validated after decoding.
pub fn check_files(files: &[BundleFile], limits: &BundleLimits) -> Result<(), BundleError> {
    if files.is_empty() {
        return Err(BundleError::Empty);
    }
    if files.len() > limits.max_files as usize {
        return Err(BundleError::TooManyFiles {
            files: files.len() as u64,
            max: limits.max_files,
        });
    }
    for (i, f) in files.iter().enumerate() {
        let index = i as u32;
        check_path(f.path.as_bytes(), index, limits)?;
        if i > 0 {
            match files[i - 1].path.cmp(&f.path) {
                core::cmp::Ordering::Less => {}
                core::cmp::Ordering::Equal => {
                    return Err(BundleError::DuplicatePath { file: index })
                }
                core::cmp::Ordering::Greater => return Err(BundleError::NotSorted { file: index }),
            }
        }
        check_contents(f.path.as_bytes(), &f.data, index)?;
    }
    for (i, f) in files.iter().enumerate() {
        let is_dir_of = |other: &BundleFile| {
            other.path.len() > f.path.len()
                && other.path.starts_with(f.path.as_str())
                && other.path.as_bytes()[f.path.len()] == b'/'
        };
        if files.iter().any(is_dir_of) {
            return Err(BundleError::PathConflict { file: i as u32 });
        }
    }
    Ok(())
}

/// Sorts, validates and encodes files into canonical bundle bytes.
pub fn canonical_bytes(
    mut files: Vec<BundleFile>,
    limits: &BundleLimits,
) -> Result<Vec<u8>, BundleError> {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    check_files(&files, limits)?;
    let bytes = files.encode();
    if bytes.len() > limits.max_bytes as usize {
        return Err(BundleError::TooLarge {
            bytes: bytes.len() as u64,
            max: limits.max_bytes,
        });
    }
    Ok(bytes)
}

/// The ContentHash: SHA-256 of canonical bytes.
pub fn content_hash(canonical: &[u8]) -> ContentHash {
    sp_crypto_hashing::sha2_256(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commitment::tests::hex;
    use alloc::vec;

    fn file(path: &str, data: &str) -> BundleFile {
        BundleFile::new(path, data.as_bytes())
    }

    /// Golden vector shared with the off-chain tools, computed independently in Python
    /// (`hashlib.sha256` over hand-written SCALE bytes; see docs/encodings.md).
    pub const GOLDEN_BUNDLE_HEX: &str = "08386b65726e656c732f73696c752e633c766f6964206628766f6964297b7d0a346d616e69666573742e746f6d6c70616269203d202263616368656f6e2d736c6f742d6162692d7631220a";
    pub const GOLDEN_BUNDLE_HASH: &str =
        "c31a81a9cf8caa51bda1b1379574c43091df946eebb35239443466e07d510d26";

    fn golden_files() -> Vec<BundleFile> {
        // Given out of order on purpose: canonical_bytes sorts.
        vec![
            file("manifest.toml", "abi = \"cacheon-slot-abi-v1\"\n"),
            file("kernels/silu.c", "void f(void){}\n"),
        ]
    }

    #[test]
    fn golden_bundle() {
        let bytes = canonical_bytes(golden_files(), &BundleLimits::DEFAULT).unwrap();
        assert_eq!(hex(&bytes), GOLDEN_BUNDLE_HEX);
        assert_eq!(hex(&content_hash(&bytes)), GOLDEN_BUNDLE_HASH);
        let mut sorted = golden_files();
        sorted.reverse();
        assert_eq!(
            decode_bundle(&bytes, &BundleLimits::DEFAULT).unwrap(),
            sorted
        );
    }

    #[test]
    fn refuses_non_canonical_forms() {
        let l = BundleLimits::DEFAULT;
        let mut unsorted = golden_files().encode();
        assert_eq!(
            decode_bundle(&unsorted, &l),
            Err(BundleError::NotSorted { file: 1 })
        );
        let dup = vec![file("a.c", "x"), file("a.c", "y")].encode();
        assert_eq!(
            decode_bundle(&dup, &l),
            Err(BundleError::DuplicatePath { file: 1 })
        );
        let conflict = vec![file("a", "x"), file("a-b.c", "y"), file("a/b.c", "z")].encode();
        assert_eq!(
            decode_bundle(&conflict, &l),
            Err(BundleError::PathConflict { file: 0 })
        );
        let mut good = canonical_bytes(golden_files(), &l).unwrap();
        good.push(0);
        assert_eq!(decode_bundle(&good, &l), Err(BundleError::TrailingBytes));
        unsorted.truncate(10);
        assert_eq!(decode_bundle(&unsorted, &l), Err(BundleError::Malformed));
        assert_eq!(
            decode_bundle(&Vec::<BundleFile>::new().encode(), &l),
            Err(BundleError::Empty)
        );
        assert_eq!(decode_bundle(&[], &l), Err(BundleError::Malformed));
    }

    #[test]
    fn refuses_bad_paths() {
        let l = BundleLimits::DEFAULT;
        for bad in [
            "", "/abs.c", "a//b.c", "./a.c", "a/../b.c", "..", "a/", "sp ace.c", "nul\0.c", "é.c",
            "a\\b.c",
        ] {
            let bytes = vec![file(bad, "x")].encode();
            assert_eq!(
                decode_bundle(&bytes, &l),
                Err(BundleError::BadPath { file: 0 }),
                "{bad:?}"
            );
        }
        let long = "a".repeat(256);
        assert_eq!(
            decode_bundle(&vec![file(&long, "x")].encode(), &l),
            Err(BundleError::PathTooLong { file: 0 })
        );
        let ok = "a".repeat(255);
        assert!(decode_bundle(&vec![file(&ok, "x")].encode(), &l).is_ok());
    }

    #[test]
    fn refuses_binaries() {
        let l = BundleLimits::DEFAULT;
        for ext in [
            "k.so", "k.o", "k.a", "k.cubin", "k.fatbin", "k.PTX", "k.pyc",
        ] {
            let bytes = vec![file(ext, "text")].encode();
            assert_eq!(
                decode_bundle(&bytes, &l),
                Err(BundleError::BinaryExtension { file: 0 }),
                "{ext}"
            );
        }
        let elf = vec![BundleFile {
            path: "k.c".into(),
            data: b"\x7fELF\x02\x01".to_vec(),
        }]
        .encode();
        assert_eq!(
            decode_bundle(&elf, &l),
            Err(BundleError::BinaryContent { file: 0 })
        );
        let nul = vec![BundleFile {
            path: "k.c".into(),
            data: b"int x;\0".to_vec(),
        }]
        .encode();
        assert_eq!(
            decode_bundle(&nul, &l),
            Err(BundleError::BinaryContent { file: 0 })
        );
    }

    #[test]
    fn refuses_oversized_bundles_before_decoding() {
        let l = BundleLimits {
            max_bytes: 64,
            ..BundleLimits::DEFAULT
        };
        let big = vec![file("a.c", &"x".repeat(100))].encode();
        assert!(matches!(
            decode_bundle(&big, &l),
            Err(BundleError::TooLarge { .. })
        ));
        // A hostile count prefix announcing 2^40 files is refused without allocating.
        let mut hostile = Compact(1u64 << 40).encode();
        hostile.extend_from_slice(&[0; 8]);
        assert_eq!(
            decode_bundle(&hostile, &BundleLimits::DEFAULT),
            Err(BundleError::TooManyFiles {
                files: 1 << 40,
                max: 64
            })
        );
        let many: Vec<_> = (0..65)
            .map(|i| file(&alloc::format!("f{i:03}.c"), "x"))
            .collect();
        assert!(matches!(
            decode_bundle(&many.encode(), &BundleLimits::DEFAULT),
            Err(BundleError::TooManyFiles { .. })
        ));
        // A file announcing a huge length fails as malformed, not by allocating it.
        let mut huge_file = Compact(1u64).encode();
        huge_file.extend(Compact(3u32).encode());
        huge_file.extend_from_slice(b"a.c");
        huge_file.extend(Compact(u32::MAX).encode());
        assert_eq!(
            decode_bundle(&huge_file, &BundleLimits::DEFAULT),
            Err(BundleError::Malformed)
        );
    }

    proptest::proptest! {
        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let _ = decode_bundle(&bytes, &BundleLimits::DEFAULT);
        }

        #[test]
        fn canonical_round_trip(names in proptest::collection::btree_set("[a-z]{1,8}(/[a-z0-9_]{1,8}){0,2}\\.c", 1..10)) {
            let files: Vec<_> = names.iter().map(|n| file(n, n)).collect();
            let bytes = canonical_bytes(files.clone(), &BundleLimits::DEFAULT).unwrap();
            let back = decode_bundle(&bytes, &BundleLimits::DEFAULT).unwrap();
            proptest::prop_assert_eq!(canonical_bytes(back, &BundleLimits::DEFAULT).unwrap(), bytes);
        }
    }
}
