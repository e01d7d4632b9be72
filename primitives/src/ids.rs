//! Short ASCII identifiers: arenas (`h200-llama8b`), targets and slots (`activation.silu_and_mul`).

/// Longest arena, target or slot id in bytes.
pub const MAX_ID_LEN: u32 = 48;

/// An id is 1..=`MAX_ID_LEN` bytes of `[a-z0-9._-]`, starting with a letter or digit.
pub fn is_valid_id(id: &[u8]) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN as usize
        && id[0].is_ascii_alphanumeric()
        && id.iter().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(is_valid_id(b"activation.silu_and_mul"));
        assert!(is_valid_id(b"h200-llama8b"));
        assert!(!is_valid_id(b""));
        assert!(!is_valid_id(b".hidden"));
        assert!(!is_valid_id(b"Upper"));
        assert!(!is_valid_id(b"with space"));
        assert!(!is_valid_id(&[b'a'; MAX_ID_LEN as usize + 1]));
        assert!(is_valid_id(&[b'a'; MAX_ID_LEN as usize]));
    }
}

/// Longest evidence endpoint a validator may publish, in bytes.
pub const MAX_ENDPOINT_BYTES: u32 = 200;

/// Whether `url` may be published as a validator's evidence endpoint: at most
/// `MAX_ENDPOINT_BYTES` of an `http://` URL (what `cacheon` fetches), printable ASCII
/// without spaces, and without `?`, `#`, `%` or `@` (the fetched path is always
/// `<endpoint>/evidence/<digest>.json`: no query, fragment, escape or credentials).
pub fn is_valid_endpoint(url: &[u8]) -> bool {
    url.len() <= MAX_ENDPOINT_BYTES as usize
        && url.strip_prefix(b"http://").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .iter()
                    .all(|b| (0x21..=0x7e).contains(b) && !b"?#%@".contains(b))
        })
}
