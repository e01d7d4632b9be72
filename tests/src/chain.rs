//! [`Chain`]: follows a node's finalized blocks over RPC and keeps every Cacheon event it
//! saw, so a test can say what it waits for and, when the wait fails, print the events
//! instead of a bare timeout; it also reads the reward claims from storage.

use std::time::{Duration, Instant};

use cacheon::chain::api;

use crate::CacheonEvent;

/// One Cacheon event seen in a finalized block.
pub struct Seen {
    pub block: u64,
    /// The event's name (`Crowned`, `Retired`, …).
    pub name: String,
    /// The event with its fields, ids as text.
    pub text: String,
    pub event: CacheonEvent,
}

/// Follows a node's finalized blocks over RPC and keeps every Cacheon event in them.
/// Reconnects when the node goes away (a restart) and continues where it was.
pub struct Chain {
    url: String,
    rt: tokio::runtime::Runtime,
    client: Option<cacheon::chain::Client>,
    /// The next block whose events have not been read.
    next: u64,
    pub seen: Vec<Seen>,
}

type At = subxt::client::ClientAtBlock<
    subxt::PolkadotConfig,
    subxt::client::OnlineClientAtBlockImpl<subxt::PolkadotConfig>,
>;

impl Chain {
    pub fn new(url: &str) -> Chain {
        Chain {
            url: url.to_string(),
            rt: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap(),
            client: None,
            next: 1,
            seen: Vec::new(),
        }
    }

    fn client(&mut self) -> Result<cacheon::chain::Client, String> {
        if let Some(c) = &self.client {
            return Ok(c.clone());
        }
        let c = self
            .rt
            .block_on(cacheon::chain::connect(&self.url, Duration::from_secs(5)))
            .map_err(|e| e.to_string())?;
        self.client = Some(c.clone());
        Ok(c)
    }

    fn at_finalized(&mut self) -> Result<At, String> {
        let client = self.client()?;
        let r = self.rt.block_on(client.at_current_block());
        r.map_err(|e| {
            self.client = None;
            e.to_string()
        })
    }

    /// Reads the events of every finalized block not read yet. Returns the finalized
    /// block number, or why the node could not be read (the caller retries).
    pub fn poll(&mut self) -> Result<u64, String> {
        let head = self.at_finalized()?.block_number();
        let client = self.client()?;
        while self.next <= head {
            let n = self.next;
            let events = self.rt.block_on(async {
                let at = client.at_block(n).await.map_err(|e| e.to_string())?;
                at.events().fetch().await.map_err(|e| e.to_string())
            });
            let events = events.inspect_err(|_| self.client = None)?;
            for ev in events.iter() {
                let ev = ev.map_err(|e| e.to_string())?;
                if ev.pallet_name() != "Cacheon" {
                    continue;
                }
                let name = ev.event_name().to_string();
                let event = match ev.decode_as::<api::Event>() {
                    Ok(api::Event::Cacheon(e)) => e,
                    Ok(_) => continue,
                    Err(e) => return Err(format!("decoding {name} in block #{n}: {e}")),
                };
                let text = readable(&format!("{event:?}"));
                eprintln!("  #{n:<5} {text}");
                self.seen.push(Seen {
                    block: n,
                    name,
                    text,
                    event,
                });
            }
            self.next = n + 1;
        }
        Ok(head)
    }

    /// Every Cacheon event seen so far, one per line.
    pub fn events_text(&self) -> String {
        let mut s = String::from("--- Cacheon events seen on chain ---\n");
        for e in &self.seen {
            s.push_str(&format!("#{:<5} {}\n", e.block, e.text));
        }
        s
    }

    /// Polls until an event satisfies `want` (or `timeout` passes: then it panics with every
    /// event seen and `context()`). Prints what it waits for. Returns the event's index in
    /// [`Chain::seen`].
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        want: impl Fn(&Seen) -> bool,
        context: impl Fn() -> String,
    ) -> usize {
        self.wait_for_from(0, what, timeout, want, context)
    }

    /// As [`Chain::wait_for`], looking only at events from index `from` of [`Chain::seen`].
    pub fn wait_for_from(
        &mut self,
        from: usize,
        what: &str,
        timeout: Duration,
        want: impl Fn(&Seen) -> bool,
        context: impl Fn() -> String,
    ) -> usize {
        eprintln!("waiting for: {what} ({} s budget)", timeout.as_secs());
        let start = Instant::now();
        loop {
            let last_error = self.poll().err();
            if let Some(i) = self.seen.iter().skip(from).position(&want) {
                eprintln!("saw: {what} after {:.0} s", start.elapsed().as_secs_f64());
                return from + i;
            }
            if start.elapsed() > timeout {
                panic!(
                    "did not see {what} within {} s{}\n{}\n{}",
                    timeout.as_secs(),
                    last_error
                        .map(|e| format!(" (last RPC error: {e})"))
                        .unwrap_or_default(),
                    self.events_text(),
                    context()
                );
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Waits until the finalized head is above `block`; returns it. Fails with every event
    /// seen and `context()` after `timeout`.
    pub fn wait_head_above(
        &mut self,
        block: u64,
        timeout: Duration,
        context: impl Fn() -> String,
    ) -> u64 {
        eprintln!(
            "waiting for: a finalized block after #{block} ({} s budget)",
            timeout.as_secs()
        );
        let start = Instant::now();
        loop {
            let head = self.poll();
            if let Ok(h) = head {
                if h > block {
                    eprintln!("saw: finalized block #{h}");
                    return h;
                }
            }
            if start.elapsed() > timeout {
                panic!(
                    "the finalized head did not pass #{block} within {} s (last: {head:?})\n{}\n{}",
                    timeout.as_secs(),
                    self.events_text(),
                    context()
                );
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Waits until proposal `id` is crowned; fails at once (with every event seen and
    /// `context()`) if it ends any other way first. Returns the index of its `Crowned` event.
    pub fn wait_crowned(
        &mut self,
        id: u64,
        timeout: Duration,
        context: impl Fn() -> String,
    ) -> usize {
        let what = format!("proposal {id} to be leased, passed by two validators and crowned");
        let at = self.wait_for(
            &what,
            timeout,
            |e| proposal_of(&e.event) == Some(id) && is_end(&e.event),
            &context,
        );
        if !matches!(self.seen[at].event, CacheonEvent::Crowned { .. }) {
            let msg = format!(
                "proposal {id} ended without a crown: {}",
                self.seen[at].text
            );
            self.fail(&msg, &context());
        }
        at
    }

    /// Fails the test with `msg`, every event seen and `context`.
    pub fn fail(&mut self, msg: &str, context: &str) -> ! {
        let _ = self.poll();
        panic!("{msg}\n{}\n{context}", self.events_text())
    }

    /// The active reward claims at the finalized block: (proposal, miner, target, speedup).
    pub fn claims(&mut self) -> Vec<(u64, String, String, u32)> {
        let at = self.at_finalized().expect("read the finalized block");
        self.rt.block_on(async {
            let mut out = Vec::new();
            let mut it = at
                .storage()
                .iter(api::storage().cacheon().claims(), ())
                .await
                .expect("iterate claims");
            while let Some(kv) = it.next().await {
                let kv = kv.expect("a claim");
                let proposal = kv
                    .key()
                    .ok()
                    .and_then(|k| k.part(0))
                    .and_then(|p| p.decode_as::<u64>().ok().flatten())
                    .expect("a claim's proposal id");
                let c = kv.value().decode().expect("decode a claim");
                out.push((
                    proposal,
                    c.miner.to_string(),
                    String::from_utf8_lossy(&c.target.0).into_owned(),
                    c.speedup_ppm,
                ));
            }
            out.sort();
            out
        })
    }
}

/// The proposal an event is about, if any.
pub fn proposal_of(e: &CacheonEvent) -> Option<u64> {
    use CacheonEvent as E;
    match e {
        E::Revealed { proposal, .. }
        | E::QueueWasFull { proposal, .. }
        | E::Withdrawn { proposal }
        | E::Leased { proposal, .. }
        | E::PassRecorded { proposal, .. }
        | E::PassSealed { proposal, .. }
        | E::PassRevealed { proposal, .. }
        | E::RevealMissed { proposal, .. }
        | E::Failed { proposal, .. }
        | E::AttestationsDisagreed { proposal, .. }
        | E::NoDecisionRecorded { proposal, .. }
        | E::LeaseExpired { proposal, .. }
        | E::AttestationStale { proposal, .. }
        | E::PassDropped { proposal, .. }
        | E::ProposalDropped { proposal, .. }
        | E::Expired { proposal, .. }
        | E::ReproductionTimedOut { proposal, .. }
        | E::FailRecorded { proposal, .. }
        | E::DepositSlashed { proposal, .. }
        | E::ContentReclaimed { proposal, .. }
        | E::Crowned { proposal, .. }
        | E::Retired { proposal, .. } => Some(*proposal),
        _ => None,
    }
}

/// Whether the event ends a proposal's way to a crown (the crown included). A disagreement
/// (`AttestationsDisagreed`) or a single disputable FAIL (`FailRecorded`) is not an end:
/// settlement asks another operator, and the proposal ends only with one of these.
fn is_end(e: &CacheonEvent) -> bool {
    use CacheonEvent as E;
    matches!(
        e,
        E::Crowned { .. }
            | E::Failed { .. }
            | E::Expired { .. }
            | E::ReproductionTimedOut { .. }
            | E::Withdrawn { .. }
            | E::ProposalDropped { .. }
            | E::QueueWasFull { .. }
    )
}

/// `{:?}` output with every `BoundedVec([…])` of printable ASCII bytes shown as its text.
fn readable(debug: &str) -> String {
    const OPEN: &str = "BoundedVec([";
    let mut out = String::new();
    let mut rest = debug;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        let Some(end) = after.find("])") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let bytes: Option<Vec<u8>> = after[..end]
            .split(',')
            .map(|b| b.trim().parse::<u8>().ok())
            .collect();
        match bytes {
            Some(b) if !b.is_empty() && b.iter().all(|c| c.is_ascii_graphic()) => {
                out.push('"');
                out.push_str(&String::from_utf8(b).unwrap());
                out.push('"');
            }
            _ => out.push_str(&rest[i..i + OPEN.len() + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}
