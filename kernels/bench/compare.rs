//! `cacheon-cuda-engine-bench --compare A B`: two result files of the benches (`--json-out`,
//! one JSON object a line) side by side, figure by figure, with the ratio B ÷ A. Lines are
//! matched by what they measured (every value that is not a figure: kind, shape, batch,
//! context, op, slot, byte counts…, and how many such lines came before); every
//! non-integer number of a matched pair is a figure. Lines only one file has are listed
//! after the table. Needs no GPU.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// A line's identity: its non-figure values as `key=value`, in key order.
fn identity(fields: &Map<String, Value>) -> String {
    let mut parts = Vec::new();
    for (k, v) in fields {
        let text = match v {
            Value::Number(n) if n.is_f64() => continue,
            Value::Bool(_) | Value::Null => continue,
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        parts.push(format!("{k}={text}"));
    }
    parts.join(" ")
}

/// The short label a table row shows: the kind and the fields that tell rows of one kind
/// apart.
fn label(fields: &Map<String, Value>) -> String {
    let mut text = fields
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("result")
        .to_string();
    for k in ["slot", "shape", "batch", "tokens", "context", "op"] {
        match fields.get(k) {
            Some(Value::String(s)) if k != "shape" => text.push_str(&format!(" {s}")),
            Some(Value::Number(n)) => text.push_str(&format!(" {k} {n}")),
            Some(v @ Value::Array(_)) => text.push_str(&format!(" {v}")),
            _ => {}
        }
    }
    text
}

/// The objects of a result file, keyed by identity and occurrence, in file order.
fn read(name: &str, text: &str) -> Result<Vec<(String, Map<String, Value>)>, String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("{name} line {}: {e}", i + 1))?;
        let Value::Object(fields) = v else {
            return Err(format!("{name} line {}: not a JSON object", i + 1));
        };
        let id = identity(&fields);
        let n = seen.entry(id.clone()).or_default();
        out.push((format!("{id} #{n}"), fields));
        *n += 1;
    }
    Ok(out)
}

/// The side-by-side table of two result files' texts.
pub fn compare(a_name: &str, a_text: &str, b_name: &str, b_text: &str) -> Result<String, String> {
    let a = read(a_name, a_text)?;
    let b = read(b_name, b_text)?;
    let b_index: BTreeMap<&str, &Map<String, Value>> =
        b.iter().map(|(id, f)| (id.as_str(), f)).collect();
    let mut rows: Vec<[String; 5]> = Vec::new();
    let mut only_a = Vec::new();
    for (id, fa) in &a {
        let Some(fb) = b_index.get(id.as_str()) else {
            only_a.push(label(fa));
            continue;
        };
        for (k, va) in fa {
            let (Some(x), Some(y)) = (
                va.as_f64().filter(|_| va.is_f64()),
                fb.get(k).and_then(|v| v.as_f64().filter(|_| v.is_f64())),
            ) else {
                continue;
            };
            let ratio = if x != 0.0 {
                format!("{:.4}", y / x)
            } else {
                "-".into()
            };
            rows.push([
                label(fa),
                k.clone(),
                format!("{x:.4}"),
                format!("{y:.4}"),
                ratio,
            ]);
        }
    }
    let a_ids: std::collections::BTreeSet<&str> = a.iter().map(|(id, _)| id.as_str()).collect();
    let only_b: Vec<String> = b
        .iter()
        .filter(|(id, _)| !a_ids.contains(id.as_str()))
        .map(|(_, f)| label(f))
        .collect();

    let head = ["what", "figure", "A", "B", "B/A"];
    let mut width = head.map(str::len);
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        format!(
            "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {:>w4$}\n",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = width[0],
            w1 = width[1],
            w2 = width[2],
            w3 = width[3],
            w4 = width[4]
        )
    };
    let mut out = format!("A: {a_name}\nB: {b_name}\n(for times, B/A below 1 is B faster; for rates and ratios, above 1)\n\n");
    out.push_str(&line(head));
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    for (name, labels) in [("A", &only_a), ("B", &only_b)] {
        if !labels.is_empty() {
            out.push_str(&format!("\nonly in {name}:\n"));
            for l in labels {
                out.push_str(&format!("  {l}\n"));
            }
        }
    }
    Ok(out)
}

/// [`compare`] of two files.
pub fn compare_files(a: &str, b: &str) -> Result<String, String> {
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    compare(a, &read(a)?, b, &read(b)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"{"engine":"cacheon","kind":"copy","kernel_gbs":2841.0,"bytes":4294967296}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":1,"context":2048,"ms_per_step":1.6327,"graph":true}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":8,"context":2048,"ms_per_step":2.146,"graph":true}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":1,"context":2048,"ms_per_step":1.6317,"graph":true}
{"engine":"cacheon","kind":"prefill","shape":"llama8b-8l","batch":1,"tokens":2048,"ms":11.978}
"#;
    const B: &str = r#"{"engine":"cacheon","kind":"copy","kernel_gbs":2841.0,"bytes":4294967296}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":1,"context":2048,"ms_per_step":1.6348,"graph":true}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":8,"context":2048,"ms_per_step":2.136,"graph":true}
{"engine":"cacheon","kind":"decode","shape":"llama8b-8l","batch":1,"context":2048,"ms_per_step":1.6315,"graph":true}
{"engine":"cacheon","kind":"floor","batch":1,"ratio":0.979}
"#;

    fn row<'a>(table: &'a str, starts: &str) -> Vec<&'a str> {
        table.lines().filter(|l| l.starts_with(starts)).collect()
    }

    #[test]
    fn matched_lines_show_each_figure_with_its_ratio() {
        let t = compare("a.jsonl", A, "b.jsonl", B).unwrap();
        let b8 = row(&t, "decode batch 8 context 2048");
        assert_eq!(b8.len(), 1, "{t}");
        assert!(b8[0].contains("ms_per_step"), "{t}");
        assert!(b8[0].trim_end().ends_with("0.9953"), "{t}");
        let copy = row(&t, "copy ");
        assert!(copy[0].trim_end().ends_with("1.0000"), "{t}");
    }

    #[test]
    fn repeated_runs_pair_in_file_order() {
        let t = compare("a", A, "b", B).unwrap();
        let b1 = row(&t, "decode batch 1 context 2048");
        assert_eq!(b1.len(), 2, "{t}");
        assert!(b1[0].contains("1.6327") && b1[0].contains("1.6348"), "{t}");
        assert!(b1[1].contains("1.6317") && b1[1].contains("1.6315"), "{t}");
    }

    #[test]
    fn lines_of_one_file_only_are_listed_after_the_table() {
        let t = compare("a", A, "b", B).unwrap();
        let (_, tail) = t
            .split_once("only in A:")
            .expect("A's prefill is unmatched");
        assert!(tail.contains("prefill batch 1 tokens 2048"), "{t}");
        let (_, tail) = t.split_once("only in B:").expect("B's floor is unmatched");
        assert!(tail.contains("floor batch 1"), "{t}");
    }

    #[test]
    fn a_line_that_is_not_json_names_its_file_and_line() {
        let e = compare("a", "{\"kind\":\"copy\"}\nnot json\n", "b", "").unwrap_err();
        assert!(e.starts_with("a line 2:"), "{e}");
    }
}
