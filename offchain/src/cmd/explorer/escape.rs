//! Escaping for the explorer's pages and their SVG charts: every string that comes from the
//! chain or a report goes through [`esc`]; chain values (accounts, amounts, proposal ids) as
//! escaped HTML fragments, for every page.

use serde_json::Value;

use super::super::display::{units, who};

/// `s` safe inside HTML text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A JSON value as text: strings bare, `null` as a dash, the rest as JSON.
pub fn text(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// An account by name where it is a dev account, linked to its page.
pub fn account(v: &Value) -> String {
    match v.as_str() {
        Some(ss58) if !ss58.is_empty() => format!(
            r#"<a href="/account/{}">{}</a>"#,
            segment(ss58),
            esc(&who(ss58))
        ),
        _ => esc(&text(v)),
    }
}

/// An amount in planck (a JSON string) in UNIT.
pub fn amount(v: &Value) -> String {
    esc(&v
        .as_str()
        .and_then(|a| a.parse().ok())
        .map_or(text(v), units))
}

/// `s` as one URL path segment: unreserved characters kept, every other byte percent-encoded.
pub fn segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

pub fn proposal_link(v: &Value) -> String {
    let id = text(v);
    format!(r#"<a href="/proposal/{}">#{}</a>"#, segment(&id), esc(&id))
}
