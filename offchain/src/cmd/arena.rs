//! `cacheon arena [ID]`: an arena's contract as the chain holds it (engine digests, targets,
//! margin, noise, leases, attempts, validators, the evaluation fee), and whether this build of the tool measures
//! the same engine under the same policy, so that a miner knows what a proposal is judged
//! against before committing to it. docs/arenas.md explains each field.

use cacheon::chain::reads;
use cacheon::chain::ChainError;
use cacheon::exit;
use serde_json::json;

use super::proposal::{connect, fail};
use super::Out;
use crate::ChainArgs;

pub async fn arena(out: &Out, id: Option<&str>, c: &ChainArgs) -> i32 {
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let at = match client.at_current_block().await {
        Ok(a) => a,
        Err(e) => return fail(out, ChainError::Unavailable(e.to_string())),
    };
    let mut arenas = match reads::arena_summaries(&at).await {
        Ok(a) => a,
        Err(e) => return fail(out, e),
    };
    if let Some(id) = id {
        arenas.retain(|a| a.id == id);
        if arenas.is_empty() {
            return out.error(&format!("the chain has no arena `{id}`"), exit::USAGE);
        }
    }
    let block = at.block_number();
    for a in arenas {
        // What this build would measure there, and whether the chain agrees.
        let local = cacheon::arena::arena(&a.id);
        let agreement = match &local {
            None => Some("this build does not know the arena".to_string()),
            Some(l) => l.disagreement(&a.contract.view),
        };
        let workload = local.map(|l| l.workload);
        let c = &a.contract;
        let v = json!({
            "block": block,
            "arena": a.id,
            "generation": a.generation,
            "contract": c,
            "evaluation_fee": a.evaluation_fee,
            "queue": a.queue,
            "incumbents": a.incumbents.iter().map(|(t, p)| json!({"target": t, "proposal": p})).collect::<Vec<_>>(),
            "this_build_agrees": agreement.is_none(),
            "disagreement": agreement,
            "workload": workload,
        });
        out.emit(v, || {
            let pct = |ppm: u32| ppm as f64 / 1e4;
            let mut s = format!(
                "{} (finalized block #{block}, generation {}, {})\n  hardware {}, {} validator(s), {} queued, {} crowned target(s)\n  margin {:.1} %, noise bound {:.1} % (x{}), leases of {} blocks, {} attempt(s), {} distinct validator(s) to crown\n  model    {}\n  workload {}\n  stock    {}\n  targets  {}\n",
                a.id,
                a.generation,
                c.status,
                c.hardware,
                c.validators,
                a.queue,
                a.incumbents.len(),
                pct(c.min_margin_ppm),
                pct(c.max_noise_ppm),
                c.noise_multiplier,
                c.lease_blocks,
                c.max_attempts,
                c.required_distinct_validators,
                c.model_digest,
                c.workload_digest,
                c.stock_digest,
                c.targets.join(", "),
            );
            match &a.evaluation_fee {
                Some(f) => s.push_str(&format!(
                    "  evaluation fee {} a verdict ({:.1} s median attempt at {} a second), {} held per proposal\n",
                    super::display::units(f.per_verdict as i128),
                    f.attempt_ms as f64 / 1e3,
                    super::display::units(f.price_per_second as i128),
                    super::display::units((f.per_verdict * c.required_distinct_validators.max(1) as u128) as i128),
                )),
                None => s.push_str("  no evaluation fee: validators measure here for free\n"),
            }
            if let Some(w) = workload {
                s.push_str(&format!(
                    "  this build's workload: model {}, {} prompt tokens, {} decode steps{}\n",
                    w.model,
                    w.prompt_len,
                    w.decode_steps,
                    if w.corpus.is_some() { ", prompts from the arena's corpus" } else { ", random prompts" }
                ));
            }
            match &agreement {
                None => s.push_str("  this build measures the same engine under the same policy"),
                Some(why) => s.push_str(&format!("  THIS BUILD DISAGREES: {why}")),
            }
            s
        });
    }
    exit::OK
}
