//! What an arena's page shows of stakes and challenges: the operators' bonds against the
//! arena's required bond, the open challenges of its crowns (who re-qualifies, who answered
//! what), and the crowns revoked (from the event index: a revocation leaves no state but the
//! proposal's status). The model part reads the chain; the HTML part renders it.

use cacheon::chain::{stakes, At};
use serde_json::{json, Value};

use super::escape::{account, amount, esc, proposal_link, text};
use super::index::Index;

/// The arena's bonds, open challenges and revoked crowns, for its page's model.
pub async fn arena_stakes(at: &At, arena: &str, index: &Index) -> Result<Value, String> {
    let e = |e: cacheon::chain::ChainError| e.to_string();
    let required = stakes::required_bond(at, arena).await.map_err(e)?;
    let bonds: Vec<Value> = stakes::bonds_in(at, arena)
        .await
        .map_err(e)?
        .into_iter()
        .map(|(operator, bonded)| {
            json!({"operator": operator.to_string(), "bonded": bonded.to_string(),
                   "covers_required": bonded >= required})
        })
        .collect();
    let now = at.block_number();
    let challenges: Vec<Value> = stakes::open_challenges(at, arena)
        .await
        .map_err(e)?
        .iter()
        .map(|(id, c)| stakes::challenge_json(*id, c, now))
        .collect();
    Ok(json!({
        "required_bond": required.to_string(),
        "bonds": bonds,
        "open_challenges": challenges,
        "revoked": revoked_in(index, arena),
    }))
}

/// The `crown_revoked` events of the arena's proposals (the index knows each proposal's
/// arena from its reveal), newest first.
fn revoked_in(index: &Index, arena: &str) -> Vec<Value> {
    let in_arena = |proposal: &Value| {
        index
            .events
            .iter()
            .any(|e| e["event"] == "revealed" && &e["proposal"] == proposal && e["arena"] == arena)
    };
    index
        .events
        .iter()
        .rev()
        .filter(|e| e["event"] == "crown_revoked" && in_arena(&e["proposal"]))
        .cloned()
        .collect()
}

/// The arena page's sections: bonds, open challenges, revoked crowns.
pub fn stakes_html(m: &Value) -> String {
    format!(
        "<h2>Operator bonds</h2>{}<h2>Open challenges</h2>{}<h2>Revoked crowns</h2>{}",
        bonds_table(m),
        challenges_table(&m["open_challenges"]),
        revoked_table(&m["revoked"])
    )
}

fn bonds_table(m: &Value) -> String {
    let rows: String = m["bonds"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                account(&b["operator"]),
                amount(&b["bonded"]),
                if b["covers_required"] == true {
                    "yes"
                } else {
                    r#"<span class="fail">no: leases nothing</span>"#
                }
            )
        })
        .collect();
    let required = format!(
        "<p>required bond: {} (an operator's keys lease here only while its bond covers it)</p>",
        amount(&m["required_bond"])
    );
    if rows.is_empty() {
        return format!(r#"{required}<p class="muted">no operator has bonded here</p>"#);
    }
    format!("{required}<table><tr><th>operator</th><th>bonded</th><th>covers the required bond</th></tr>{rows}</table>")
}

/// A proposal page's open challenge of its crown, if it has one.
pub fn challenge_html(challenge: &Value) -> String {
    if !challenge.is_object() {
        return String::new();
    }
    format!(
        "<h2>Open challenge</h2>{}",
        challenges_table(&json!([challenge]))
    )
}

fn challenges_table(challenges: &Value) -> String {
    let rows: String = challenges
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let mut turns: Vec<String> = c["leases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| {
                    format!(
                        "{} re-qualifying until #{}",
                        account(&l["validator"]),
                        esc(&text(&l["expires_at"]))
                    )
                })
                .collect();
            turns.extend(c["answers"].as_array().into_iter().flatten().map(|a| {
                format!(
                    r#"{} answered <span class="{}">{}</span> {}"#,
                    account(&a["validator"]),
                    if a["verdict"] == "pass" { "pass" } else { "fail" },
                    esc(&text(&a["verdict"])),
                    esc(&a["reason"].as_str().map_or_else(
                        || format!("{} ppm", text(&a["speedup_ppm"])),
                        str::to_string
                    ))
                )
            }));
            if turns.is_empty() {
                turns.push(r#"<span class="muted">not leased yet</span>"#.into());
            }
            format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>#{}</td><td>{}</td></tr>",
                esc(&text(&c["challenge"])),
                proposal_link(&c["proposal"]),
                esc(&text(&c["target"])),
                account(&c["challenger"]),
                amount(&c["bond"]),
                esc(&text(&c["deadline"])),
                turns.join("<br>")
            )
        })
        .collect();
    if rows.is_empty() {
        return r#"<p class="muted">none</p>"#.into();
    }
    format!("<table><tr><th>challenge</th><th>crown</th><th>target</th><th>challenger</th><th>bond</th><th>deadline</th><th>re-qualifications</th></tr>{rows}</table>")
}

fn revoked_table(revoked: &Value) -> String {
    let rows: String = revoked
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            format!(
                r#"<tr><td>{}</td><td>#{}</td><td>{}</td><td class="fail">{}</td><td>{}</td><td>{}</td></tr>"#,
                proposal_link(&r["proposal"]),
                esc(&text(&r["block"])),
                esc(&text(&r["challenge"])),
                esc(&text(&r["reason"])),
                amount(&r["slashed"]),
                amount(&r["challenger_reward"])
            )
        })
        .collect();
    if rows.is_empty() {
        return r#"<p class="muted">none</p>"#.into();
    }
    format!("<table><tr><th>crown</th><th>revoked at</th><th>challenge</th><th>reason</th><th>slashed</th><th>to the challenger</th></tr>{rows}</table>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arenas_stakes_render_escaped_with_amounts_in_unit() {
        let m = json!({"required_bond": "1000000000000000",
            "bonds": [{"operator": "<b>", "bonded": "1000000000000000", "covers_required": true}],
            "open_challenges": [{"challenge": 0, "proposal": 3, "target": "t<", "challenger": "c",
                "bond": "100000000000000", "deadline": 99, "leases": [],
                "answers": [{"verdict": "fail", "reason": "Incorrect", "validator": "v"}]}],
            "revoked": []});
        let html = stakes_html(&m);
        assert!(
            !html.contains("<b>") && html.contains("&lt;b&gt;"),
            "{html}"
        );
        assert!(html.contains("required bond: 1000 UNIT"), "{html}");
        assert!(html.contains(r#"<a href="/proposal/3">#3</a>"#), "{html}");
        assert!(
            html.contains("answered <span class=\"fail\">fail</span> Incorrect"),
            "{html}"
        );
        assert!(html.ends_with(r#"<h2>Revoked crowns</h2><p class="muted">none</p>"#));
    }

    #[test]
    fn revoked_crowns_are_found_by_their_reveals_arena() {
        let index = Index {
            events: vec![
                json!({"event": "revealed", "proposal": 1, "arena": "cpu-tiny"}),
                json!({"event": "revealed", "proposal": 2, "arena": "cpu-tp2"}),
                json!({"event": "crown_revoked", "proposal": 1, "challenge": 0}),
                json!({"event": "crown_revoked", "proposal": 2, "challenge": 1}),
            ],
            ..Index::default()
        };
        let revoked = revoked_in(&index, "cpu-tiny");
        assert_eq!(revoked.len(), 1);
        assert_eq!(revoked[0]["challenge"], 0);
    }
}
