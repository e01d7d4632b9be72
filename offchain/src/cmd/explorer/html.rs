//! The explorer's pages as HTML, rendered from their JSON models (`model.rs`): plain HTML and
//! CSS, no JavaScript. Every string that comes from the chain or a report is escaped.

use serde_json::Value;

use super::super::display::{is_account_key, units, who};
use super::super::events::is_amount_key;
use super::escape::{account, amount, esc, proposal_link, segment, text};
use super::svg;

/// A speedup in ppm as `1.0213x`.
fn speedup(v: &Value) -> String {
    v.as_u64()
        .map_or("–".into(), |p| format!("{:.4}x", p as f64 / 1e6))
}

fn arena_link(v: &Value) -> String {
    let id = text(v);
    format!(r#"<a href="/arena/{}">{}</a>"#, segment(&id), esc(&id))
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#222}\
header{background:#16324f;padding:.6em 1.2em}header a{color:#fff;margin-right:1.2em;text-decoration:none;font-weight:600}\
main{padding:1em 1.6em;max-width:72em}table{border-collapse:collapse;margin:.5em 0 1.5em}\
th,td{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left;vertical-align:top}th{background:#f3f5f8}\
code{font-size:.9em;word-break:break-all}.muted{color:#777}.pass{color:#1a7f37}.fail{color:#c62828}\
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;max-width:60em}\
svg .frame{fill:#fafbfc;stroke:#ccc}svg .axis,svg .legend{font-size:11px;fill:#555}\
svg .b{fill:#1f77b4}svg .c{fill:#ff7f0e}svg .r{fill:#333}svg .interval{fill:#2ca02c;opacity:.25}\
svg .margin{stroke:#c62828;stroke-dasharray:6 4}svg .one{stroke:#999}";

/// A whole page: the navigation (overview, weights, this page's JSON twin) and `body`.
pub fn layout(title: &str, json_href: &str, body: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{t} · Cacheon explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body><header><nav><a href="/">Cacheon explorer</a><a href="/weights">Weights</a><a href="/releases">Releases</a><a href="{j}">JSON</a></nav></header>
<main><h1>{t}</h1>
{body}
</main></body></html>
"#,
        t = esc(title),
        j = esc(json_href),
    )
}

/// One line of a verdict or event list.
fn event_row(e: &Value) -> String {
    let name = text(&e["event"]);
    let class = match name.as_str() {
        "pass_recorded" | "pass_sealed" | "pass_revealed" | "crowned" => "pass",
        "failed" | "fail_recorded" | "expired" | "crown_revoked" | "reveal_missed" => "fail",
        _ => "",
    };
    let mut detail = Vec::new();
    for (k, v) in e.as_object().into_iter().flatten() {
        let shown = match k.as_str() {
            "event" | "block" | "proposal" => continue,
            k if is_account_key(k) => account(v),
            "speedup_ppm" => speedup(v),
            k if is_amount_key(k) => amount(v),
            "evidence" | "pass_evidence" | "fail_evidence" => {
                format!(
                    "<code>{}…</code>",
                    esc(&text(v).chars().take(16).collect::<String>())
                )
            }
            "arena" => arena_link(v),
            _ => esc(&text(v)),
        };
        detail.push(format!("{} {shown}", esc(k)));
    }
    format!(
        r#"<tr><td>#{}</td><td>{}</td><td class="{class}">{}</td><td>{}</td></tr>"#,
        esc(&text(&e["block"])),
        proposal_link(&e["proposal"]),
        esc(&name),
        detail.join(", ")
    )
}

fn events_table(events: &[Value]) -> String {
    if events.is_empty() {
        return r#"<p class="muted">none yet</p>"#.into();
    }
    let rows: String = events.iter().map(event_row).collect();
    format!("<table><tr><th>block</th><th>proposal</th><th>event</th><th>detail</th></tr>{rows}</table>")
}

fn weights_table(weights: &Value) -> String {
    let rows: String = weights
        .as_array()
        .into_iter()
        .flatten()
        .map(|pair| {
            let ppm = pair[1].as_u64().unwrap_or(0);
            format!(
                "<tr><td>{}</td><td>{ppm}</td><td>{:.2} %</td></tr>",
                account(&pair[0]),
                ppm as f64 / 1e4
            )
        })
        .collect();
    format!("<table><tr><th>account</th><th>ppm</th><th>share</th></tr>{rows}</table>")
}

fn index_note(m: &Value) -> String {
    let mut s = format!(
        r#"<p class="muted">chain state at finalized block #{}; history read up to #{}"#,
        esc(&text(&m["block"])),
        esc(&text(&m["indexed_to"]))
    );
    if let Some(from) = m["indexed_from"].as_u64() {
        s.push_str(&format!(
            " from #{from} (the node keeps no state before it: run it with --state-pruning archive for the whole history)"
        ));
    }
    if let Some(e) = m["index_error"].as_str() {
        s.push_str(&format!(" (reading stalled: {})", esc(e)));
    }
    s.push_str("</p>");
    s
}

pub fn overview(m: &Value) -> String {
    let rows: String = m["arenas"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} %</td></tr>",
                arena_link(&a["arena"]),
                esc(&text(&a["backend"])),
                esc(&text(&a["status"])),
                esc(&text(&a["generation"])),
                esc(&text(&a["crowned"])),
                esc(&text(&a["queue"])),
                a["min_margin_ppm"].as_f64().unwrap_or(0.0) / 1e4,
            )
        })
        .collect();
    let recent: Vec<Value> = m["recent_verdicts"].as_array().cloned().unwrap_or_default();
    let weights = match m["weights"].as_object() {
        Some(w) => format!(
            "<p>epoch {} (block #{})</p>{}",
            esc(&text(&w["epoch"])),
            esc(&text(&w["block"])),
            weights_table(&w["weights"])
        ),
        None => r#"<p class="muted">no epoch's weights yet</p>"#.into(),
    };
    let body = format!(
        "{}<h2>Arenas</h2><table><tr><th>arena</th><th>backend</th><th>status</th><th>generation</th>\
         <th>crowned targets</th><th>queued</th><th>margin</th></tr>{rows}</table>\
         <h2>Recent verdicts</h2>{}<h2>Weights</h2>{weights}<p><a href=\"/weights\">every epoch</a></p>",
        index_note(m),
        events_table(&recent)
    );
    layout("The market", "/index.json", &body)
}

pub fn arena(m: &Value) -> String {
    let id = text(&m["arena"]);
    let c = &m["contract"];
    let fields = [
        "hardware",
        "status",
        "min_margin_ppm",
        "max_noise_ppm",
        "noise_multiplier",
        "lease_blocks",
        "max_attempts",
        "required_distinct_validators",
        "validators",
        "model_digest",
        "workload_digest",
        "stock_digest",
    ];
    let contract: String = fields
        .iter()
        .map(|f| {
            format!(
                "<tr><th>{f}</th><td><code>{}</code></td></tr>",
                esc(&text(&c[*f]))
            )
        })
        .collect();
    let targets: Vec<String> = c["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| format!("<code>{}</code>", esc(&text(t))))
        .collect();
    let stack: String = m["incumbents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>#{}</td></tr>",
                esc(&text(&e["target"])),
                proposal_link(&e["proposal"]),
                account(&e["miner"]),
                speedup(&e["speedup_ppm"]),
                esc(&text(&e["crowned_at"]))
            )
        })
        .collect();
    let stack = if stack.is_empty() {
        r#"<p class="muted">nothing crowned: every target runs the arena's stock kernels</p>"#
            .into()
    } else {
        format!("<table><tr><th>target</th><th>proposal</th><th>miner</th><th>speedup</th><th>crowned at</th></tr>{stack}</table>")
    };
    let queue: String = m["queue"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let lease = match p["lease"].as_object() {
                Some(l) => format!(
                    "{} ({}, until #{})",
                    account(&l["validator"]),
                    esc(&text(&l["phase"])),
                    esc(&text(&l["expires_at"]))
                ),
                None => r#"<span class="muted">waiting</span>"#.into(),
            };
            format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{lease}</td></tr>",
                esc(&text(&p["position"])),
                proposal_link(&p["proposal"]),
                esc(&text(&p["target"])),
                account(&p["miner"]),
                esc(&text(&p["status"])),
            )
        })
        .collect();
    let queue = if queue.is_empty() {
        r#"<p class="muted">empty</p>"#.into()
    } else {
        format!("<table><tr><th>#</th><th>proposal</th><th>target</th><th>miner</th><th>status</th><th>lease holder</th></tr>{queue}</table>")
    };
    let body = format!(
        "<p class=\"muted\">at finalized block #{}, generation {}</p><h2>Contract</h2><table>{contract}</table>\
         <p>targets: {}</p><h2>Incumbent stack</h2>{stack}<h2>Queue</h2>{queue}{}",
        esc(&text(&m["block"])),
        esc(&text(&m["generation"])),
        targets.join(" "),
        super::stakes::stakes_html(&m["stakes"])
    );
    layout(
        &format!("Arena {id}"),
        &format!("/arena/{}.json", segment(&id)),
        &body,
    )
}

/// One verdict: who, what, its report (or why it could not be had), the reads plotted.
fn verdict(r: &Value, margin_ppm: Option<u64>) -> String {
    let class = if r["verdict"] == "pass" {
        "pass"
    } else {
        "fail"
    };
    let mut s = format!(
        r#"<h3>{} by {}: <span class="{class}">{}</span> {}</h3>"#,
        esc(&text(&r["role"])),
        account(&r["validator"]),
        esc(&text(&r["verdict"])),
        r["reason"].as_str().map_or_else(
            || format!(
                "attested at {} (the interval's low end)",
                speedup(&r["speedup_ppm"])
            ),
            esc
        ),
    );
    let digest = text(&r["evidence"]);
    s.push_str(&format!("<p>evidence <code>{}</code>", esc(&digest)));
    if let Some(url) = r["endpoint"].as_str() {
        s.push_str(&format!(
            r#" published at <a href="{0}/evidence/{1}.json">{0}/evidence/{1}.json</a>"#,
            esc(url),
            esc(&digest)
        ));
    }
    s.push_str("</p>");
    if let Some(e) = r["report_error"].as_str() {
        s.push_str(&format!(
            r#"<p class="muted">report not shown: {}</p>"#,
            esc(e)
        ));
        return s;
    }
    let rep = &r["report"];
    s.push_str(&format!(
        "<p>report (SHA-256 checked): verdict {}{} on {}, {} ms</p>",
        esc(&text(&rep["verdict"])),
        match (rep["stage"].as_str(), rep["reason"].as_str()) {
            (Some(st), Some(re)) => format!(", {} at {}", esc(re), esc(st)),
            _ => String::new(),
        },
        esc(&text(&rep["machine"])),
        esc(&text(&rep["wall_ms"])),
    ));
    if let Some(d) = rep["detail"].as_str().filter(|d| !d.is_empty()) {
        s.push_str(&format!("<pre>{}</pre>", esc(d)));
    }
    let series = |k: &str| -> Vec<f64> {
        rep[k]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect()
    };
    let (b, c) = (series("baseline_ms"), series("candidate_ms"));
    if !b.is_empty() {
        let iv = &rep["interval"];
        let interval = iv["low"].as_f64().zip(iv["high"].as_f64());
        if let (Some(sp), Some((lo, hi))) = (iv["speedup"].as_f64(), interval) {
            s.push_str(&format!(
                "<p>speedup {sp:.4} (95 % interval {lo:.4} to {hi:.4}) over {} pairs</p>",
                esc(&text(&iv["pairs"]))
            ));
        }
        let margin = rep["min_margin_ppm"].as_u64().or(margin_ppm).unwrap_or(0) as f64 / 1e6;
        s.push_str(&svg::speed_reads(&b, &c, interval, margin));
    }
    s
}

/// The status's own fields where they are short (a FAIL's reason, a drop's displacer); a
/// crown's are its verdicts, shown below.
fn status_detail(m: &Value) -> String {
    let detail = text(&m["status_detail"]);
    if detail.len() > 120 || m["status"] == "crowned" {
        return String::new();
    }
    format!(
        "<tr><th>detail</th><td><code>{}</code></td></tr>",
        esc(&detail)
    )
}

/// The lease holder's attempt as its endpoint published it when the page was made.
fn running(a: &Value) -> String {
    if a.is_null() {
        return String::new();
    }
    let count = match a["total"].as_u64() {
        Some(total) if total > 0 => format!(", {} of {total}", text(&a["done"])),
        _ => String::new(),
    };
    format!(
        "<tr><th>running now</th><td>{}: stage {}{count}, {} s</td></tr>",
        account(&a["validator"]),
        esc(&text(&a["stage"])),
        esc(&text(&a["elapsed_s"]))
    )
}

pub fn proposal(m: &Value) -> String {
    let id = text(&m["proposal"]);
    let verdicts: Vec<Value> = m["verdicts"].as_array().cloned().unwrap_or_default();
    let margin = m["min_margin_ppm"].as_u64();
    let verdicts = if verdicts.is_empty() {
        r#"<p class="muted">no verdict on chain yet</p>"#.to_string()
    } else {
        verdicts.iter().map(|r| verdict(r, margin)).collect()
    };
    let events: Vec<Value> = m["events"].as_array().cloned().unwrap_or_default();
    let body = format!(
        "<table><tr><th>status</th><td>{}</td></tr><tr><th>miner</th><td>{}</td></tr>\
         <tr><th>arena</th><td>{}</td></tr><tr><th>target</th><td><code>{}</code></td></tr>\
         <tr><th>ContentHash</th><td><code>0x{}</code></td></tr><tr><th>revealed at</th><td>#{}</td></tr>\
         <tr><th>attempts</th><td>{}</td></tr>{}{}</table>\
         {}<h2>Verdicts</h2>{verdicts}<h2>Events</h2>{}",
        esc(&text(&m["status"])),
        account(&m["miner"]),
        arena_link(&m["arena"]),
        esc(&text(&m["target"])),
        esc(&text(&m["content_hash"])),
        esc(&text(&m["reveal_block"])),
        esc(&text(&m["attempts"])),
        status_detail(m),
        running(&m["running"]),
        super::stakes::challenge_html(&m["challenge"]),
        events_table(&events)
    );
    layout(
        &format!("Proposal #{id}"),
        &format!("/proposal/{}.json", segment(&id)),
        &body,
    )
}

/// `/account/SS58`: an account as a miner and as a validator.
pub fn account_page(m: &Value) -> String {
    let id = text(&m["account"]);
    let proposals: String = m["proposals"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!(
                "<tr><td>{}</td><td>#{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                proposal_link(&p["proposal"]),
                esc(&text(&p["block"])),
                arena_link(&p["arena"]),
                esc(&text(&p["target"])),
                esc(&text(&p["status"]))
            )
        })
        .collect();
    let proposals = if proposals.is_empty() {
        r#"<p class="muted">no proposal revealed</p>"#.to_string()
    } else {
        format!("<table><tr><th>proposal</th><th>revealed</th><th>arena</th><th>target</th><th>status</th></tr>{proposals}</table>")
    };
    let verdicts: String = m["verdicts"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, n)| format!("<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(&text(n))))
        .collect();
    let fees = &m["fees"];
    let events: Vec<Value> = m["events"].as_array().cloned().unwrap_or_default();
    let body = format!(
        "{}<p><code>{}</code></p><h2>As a miner</h2>{proposals}\
         <table><tr><th>crowns</th><td>{}</td></tr>\
         <tr><th>evaluation fees held</th><td>{}</td></tr>\
         <tr><th>paid to verdicts</th><td>{}</td></tr>\
         <tr><th>returned</th><td>{}</td></tr></table>\
         <h2>As a validator</h2><table><tr><th>verdicts paid</th><td>{}</td></tr>\
         <tr><th>earned from evaluation fees</th><td>{}</td></tr>\
         <tr><th>stalls (leases run out, no decision, stale)</th><td>{}</td></tr>\
         <tr><th>disagreed with another operator</th><td>{}</td></tr></table>\
         <table><tr><th>event</th><th>times</th></tr>{verdicts}</table><h2>Events</h2>{}",
        index_note(m),
        esc(&id),
        esc(&text(&m["crowns"])),
        amount(&fees["held"]),
        amount(&fees["paid"]),
        amount(&fees["returned"]),
        esc(&text(&m["verdicts_paid"])),
        amount(&m["earned"]),
        esc(&text(&m["stalls"])),
        esc(&text(&m["disagreements"])),
        events_table(&events)
    );
    layout(&who(&id), &format!("/account/{}.json", segment(&id)), &body)
}

/// `/releases`: the engine releases marked on chain, each with the speedup its crowns
/// brought.
pub fn releases(m: &Value) -> String {
    let rows: String = m["releases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let proposals: Vec<String> = r["proposals"]
                .as_array()
                .into_iter()
                .flatten()
                .map(proposal_link)
                .collect();
            let speedup = r["speedup"]
                .as_f64()
                .map_or("—".to_string(), |x| format!("{x:.4}x"));
            format!(
                "<tr><td>#{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&text(&r["block"])),
                esc(&text(&r["digest"])),
                arena_link(&r["arena"]),
                proposals.join(", "),
                esc(&speedup),
                account(&r["signer"])
            )
        })
        .collect();
    let body = if rows.is_empty() {
        r#"<p class="muted">no release marked on chain (<code>cacheon release mark</code>)</p>"#
            .to_string()
    } else {
        format!(
            "<table><tr><th>marked</th><th>release digest</th><th>arena</th><th>crowns</th>\
             <th>speedup</th><th>release key</th></tr>{rows}</table>"
        )
    };
    layout(
        "Releases",
        "/releases.json",
        &format!("{}{body}", index_note(m)),
    )
}

pub fn weights(m: &Value) -> String {
    let epochs: Vec<(u64, Vec<(String, u32)>)> = m["epochs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let ws = e["weights"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    let label = who(p[0].as_str().unwrap_or_default());
                    (label, p[1].as_u64().unwrap_or(0) as u32)
                })
                .collect();
            (e["epoch"].as_u64().unwrap_or(0), ws)
        })
        .collect();
    let rows: String = m["epochs"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .map(|e| {
            let paid = e["paid"]
                .as_str()
                .and_then(|p| p.parse().ok())
                .map_or("–".to_string(), units);
            format!(
                "<tr><td>{}</td><td>#{}</td><td>{}</td><td>{}</td></tr>",
                esc(&text(&e["epoch"])),
                esc(&text(&e["block"])),
                weights_table(&e["weights"]),
                esc(&paid)
            )
        })
        .collect();
    let earned: String = m["earnings"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .map(|e| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&text(&e["epoch"])),
                esc(&who(e["operator"].as_str().unwrap_or_default())),
                esc(&text(&e["verdicts"])),
                amount(&e["amount"])
            )
        })
        .collect();
    let body = format!(
        "{}<h2>Shares over epochs</h2>{}<h2>Now</h2><p>epoch {}</p>{}<h2>Every epoch</h2>\
         <table><tr><th>epoch</th><th>block</th><th>weights</th><th>paid</th></tr>{rows}</table>\
         <h2>Evaluation fees earned</h2><p>What each operator's verdicts earned from miners' \
         evaluation fees (the PASSes that crowned, the FAILs that stuck), per epoch.</p>\
         <table><tr><th>epoch</th><th>operator</th><th>verdicts paid</th><th>earned</th></tr>\
         {earned}</table>",
        index_note(m),
        svg::shares(&epochs),
        esc(&text(&m["current"]["epoch"])),
        weights_table(&m["current"]["weights"]),
    );
    layout("Weights", "/weights.json", &body)
}

/// A page saying why there is no page.
pub fn error(title: &str, message: &str) -> String {
    layout(title, "/index.json", &format!("<p>{}</p>", esc(message)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chain_and_report_strings_are_escaped() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        let m = json!({"proposal": 3, "status": "failed", "miner": "x", "arena": "<script>",
            "target": "t", "content_hash": "00", "reveal_block": 1, "attempts": 0,
            "status_detail": "Failed", "events": [], "verdicts": [{
                "role": "final fail", "verdict": "fail", "validator": "v", "reason": "Incorrect",
                "evidence": "ab", "report": {"verdict": "fail", "detail": "<img src=x onerror=alert(1)>"}}]});
        let page = proposal(&m);
        assert!(
            !page.contains("<script>") && !page.contains("<img"),
            "{page}"
        );
        assert!(page.contains("&lt;img src=x"));
    }

    #[test]
    fn the_running_attempt_shows_its_holder_stage_and_count() {
        let m = |running| {
            json!({"proposal": 3, "status": "primary", "miner": "x", "arena": "cpu-tiny",
                "target": "t", "content_hash": "00", "reveal_block": 1, "attempts": 0,
                "events": [], "verdicts": [], "running": running})
        };
        let page = proposal(&m(
            json!({"validator": "5Grw<b>", "stage": "speed", "done": 12,
            "total": 40, "elapsed_s": 31}),
        ));
        assert!(page.contains("running now"), "{page}");
        assert!(page.contains("stage speed, 12 of 40, 31 s"), "{page}");
        assert!(!page.contains("5Grw<b>"), "escaped: {page}");
        assert!(!proposal(&m(Value::Null)).contains("running now"));
    }
}
