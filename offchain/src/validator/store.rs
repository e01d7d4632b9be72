//! The validator's attempt index: SQLite in WAL mode, one row per lease it took. A row
//! moves `leased` → `reported` (the report is stored, the verdict known) → `attested`
//! (the attestation is in a finalized block), or to `abandoned` (left to the lease expiry:
//! an attempt interrupted by a crash, a lease that ran out). A primary PASS where two
//! operators must agree is attested sealed: `reported` → `sealed` (the seal is in a
//! finalized block; the salt that opens it was stored before it was sent) → `attested` once
//! the PASS is revealed (or no longer waits for it). With the finalized-block
//! cursor this is what makes the validator safe to kill at any point: it never attests a
//! lease twice, never loses a finished report, and never attests an unfinished attempt.
//! Challenge leases (re-qualifications of a challenged crown) have their own table and
//! the same states: `attested` there means the answer is finalized.

use std::path::Path;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::fingerprint::containment::Signature;

/// Where an attempt stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Leased,
    Reported,
    /// A sealed PASS on chain, waiting to be revealed.
    Sealed,
    Attested,
    Abandoned,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Leased => "leased",
            State::Reported => "reported",
            State::Sealed => "sealed",
            State::Attested => "attested",
            State::Abandoned => "abandoned",
        }
    }

    fn parse(s: &str) -> State {
        match s {
            "leased" => State::Leased,
            "reported" => State::Reported,
            "sealed" => State::Sealed,
            "attested" => State::Attested,
            _ => State::Abandoned,
        }
    }
}

/// One lease this validator took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub proposal: u64,
    pub expires_at: u64,
    pub generation: u32,
    pub phase: String,
    pub arena: String,
    pub state: State,
    /// The SCALE-encoded `Verdict` to attest, once reported.
    pub verdict: Option<Vec<u8>>,
    pub evidence: Option<String>,
    pub attempt_digest: Option<String>,
    pub outcome: Option<String>,
    pub attest_block: Option<u64>,
    /// The salt of a sealed PASS (hex), stored before the seal is sent.
    pub salt: Option<String>,
}

/// Whether `digest` names the evidence of an attempt whose attestation is in a finalized
/// block: what the validator's HTTP endpoint publishes (a report holds the attempt's secret
/// seed, so nothing is served while its lease may still be open). Reads the index at `db`
/// read-only, beside the validator's own connection (WAL).
pub fn is_published(db: &Path, digest: &str) -> rusqlite::Result<bool> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM attempts WHERE evidence = ?1 AND state = 'attested')
             OR EXISTS(SELECT 1 FROM challenge_attempts WHERE evidence = ?1 AND state = 'attested')",
        params![digest],
        |r| r.get(0),
    )
}

/// One challenge lease this validator took: the re-qualification of a crown. It moves
/// through the same states as an [`Attempt`]; `attested` means the answer is in a finalized
/// block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeAttempt {
    pub challenge: u64,
    pub expires_at: u64,
    /// The challenged crown.
    pub proposal: u64,
    pub arena: String,
    pub state: State,
    /// The SCALE-encoded `Verdict` to answer, once reported.
    pub verdict: Option<Vec<u8>>,
    pub evidence: Option<String>,
    pub outcome: Option<String>,
    pub answer_block: Option<u64>,
}

fn row_to_challenge_attempt(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChallengeAttempt> {
    Ok(ChallengeAttempt {
        challenge: r.get::<_, i64>(0)? as u64,
        expires_at: r.get::<_, i64>(1)? as u64,
        proposal: r.get::<_, i64>(2)? as u64,
        arena: r.get(3)?,
        state: State::parse(&r.get::<_, String>(4)?),
        verdict: r.get(5)?,
        evidence: r.get(6)?,
        outcome: r.get(7)?,
        answer_block: r.get::<_, Option<i64>>(8)?.map(|b| b as u64),
    })
}

const CHALLENGE_COLUMNS: &str =
    "challenge, expires_at, proposal, arena, state, verdict, evidence, outcome, answer_block";

pub struct Store {
    conn: Connection,
}

fn row_to_attempt(r: &rusqlite::Row<'_>) -> rusqlite::Result<Attempt> {
    Ok(Attempt {
        proposal: r.get::<_, i64>(0)? as u64,
        expires_at: r.get::<_, i64>(1)? as u64,
        generation: r.get::<_, i64>(2)? as u32,
        phase: r.get(3)?,
        arena: r.get(4)?,
        state: State::parse(&r.get::<_, String>(5)?),
        verdict: r.get(6)?,
        evidence: r.get(7)?,
        attempt_digest: r.get(8)?,
        outcome: r.get(9)?,
        attest_block: r.get::<_, Option<i64>>(10)?.map(|b| b as u64),
        salt: r.get(11)?,
    })
}

const COLUMNS: &str = "proposal, expires_at, generation, phase, arena, state, verdict, evidence, attempt_digest, outcome, attest_block, salt";

impl Store {
    /// Opens (or creates) the index at `path`.
    pub fn open(path: &Path) -> rusqlite::Result<Store> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS cursor (
                 id INTEGER PRIMARY KEY CHECK (id = 0),
                 block INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS attempts (
                 proposal INTEGER NOT NULL,
                 expires_at INTEGER NOT NULL,
                 generation INTEGER NOT NULL,
                 phase TEXT NOT NULL,
                 arena TEXT NOT NULL,
                 state TEXT NOT NULL,
                 verdict BLOB,
                 evidence TEXT,
                 attempt_digest TEXT,
                 outcome TEXT,
                 attest_block INTEGER,
                 updated TEXT NOT NULL DEFAULT (datetime('now')),
                 PRIMARY KEY (proposal, expires_at)
             );
             CREATE TABLE IF NOT EXISTS challenge_attempts (
                 challenge INTEGER NOT NULL,
                 expires_at INTEGER NOT NULL,
                 proposal INTEGER NOT NULL,
                 arena TEXT NOT NULL,
                 state TEXT NOT NULL,
                 verdict BLOB,
                 evidence TEXT,
                 outcome TEXT,
                 answer_block INTEGER,
                 updated TEXT NOT NULL DEFAULT (datetime('now')),
                 PRIMARY KEY (challenge, expires_at)
             );
             CREATE TABLE IF NOT EXISTS fingerprints (
                 content_hash BLOB NOT NULL,
                 version INTEGER NOT NULL,
                 fingerprint BLOB,
                 PRIMARY KEY (content_hash, version)
             );
             CREATE TABLE IF NOT EXISTS signatures (
                 content_hash BLOB NOT NULL,
                 version INTEGER NOT NULL,
                 tokens INTEGER NOT NULL,
                 grams BLOB NOT NULL,
                 PRIMARY KEY (content_hash, version)
             );",
        )?;
        // Indexes made before sealed PASSes have no salt column.
        let has_salt = conn
            .prepare("SELECT 1 FROM pragma_table_info('attempts') WHERE name = 'salt'")?
            .exists([])?;
        if !has_salt {
            conn.execute_batch("ALTER TABLE attempts ADD COLUMN salt TEXT")?;
        }
        Ok(Store { conn })
    }

    /// The last finalized block whose events were processed.
    pub fn cursor(&self) -> rusqlite::Result<Option<u64>> {
        self.conn
            .query_row("SELECT block FROM cursor WHERE id = 0", [], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map(|b| b.map(|b| b as u64))
    }

    pub fn set_cursor(&self, block: u64) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT INTO cursor (id, block) VALUES (0, ?1) ON CONFLICT(id) DO UPDATE SET block = excluded.block",
            params![block as i64],
        )?;
        Ok(())
    }

    /// The cached copy-screen fingerprint of a bundle (this version of the algorithm):
    /// `Some(None)` when the bundle was seen and has none (its manifest does not parse),
    /// `None` when never seen.
    pub fn fingerprint(
        &self,
        content_hash: &[u8; 32],
    ) -> rusqlite::Result<Option<Option<[u8; 32]>>> {
        self.conn
            .query_row(
                "SELECT fingerprint FROM fingerprints WHERE content_hash = ?1 AND version = ?2",
                params![&content_hash[..], crate::fingerprint::VERSION],
                |r| r.get::<_, Option<Vec<u8>>>(0),
            )
            .optional()
            .map(|row| row.map(|fp| fp.and_then(|v| <[u8; 32]>::try_from(v).ok())))
    }

    /// Caches a bundle's fingerprint (kept after the chain drops the bundle's bytes, so
    /// later proposals are still compared with it).
    pub fn record_fingerprint(
        &self,
        content_hash: &[u8; 32],
        fingerprint: Option<[u8; 32]>,
    ) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO fingerprints (content_hash, version, fingerprint) VALUES (?1, ?2, ?3)",
            params![
                &content_hash[..],
                crate::fingerprint::VERSION,
                fingerprint.as_ref().map(|f| &f[..])
            ],
        )?;
        Ok(())
    }

    /// The cached containment signature of a bundle (this version of the algorithm), if
    /// one was computed (a bundle whose manifest does not parse has none).
    pub fn signature(&self, content_hash: &[u8; 32]) -> rusqlite::Result<Option<Signature>> {
        self.conn
            .query_row(
                "SELECT tokens, grams FROM signatures WHERE content_hash = ?1 AND version = ?2",
                params![&content_hash[..], crate::fingerprint::containment::VERSION],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)),
            )
            .optional()
            .map(|row| {
                row.map(|(tokens, grams)| Signature {
                    tokens: tokens as u32,
                    grams: grams
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                        .collect(),
                })
            })
    }

    /// Caches a bundle's containment signature (kept after the chain drops the bytes).
    pub fn record_signature(
        &self,
        content_hash: &[u8; 32],
        signature: &Signature,
    ) -> rusqlite::Result<()> {
        let grams: Vec<u8> = signature
            .grams
            .iter()
            .flat_map(|g| g.to_le_bytes())
            .collect();
        self.conn.execute(
            "INSERT OR REPLACE INTO signatures (content_hash, version, tokens, grams) VALUES (?1, ?2, ?3, ?4)",
            params![
                &content_hash[..],
                crate::fingerprint::containment::VERSION,
                signature.tokens as i64,
                grams
            ],
        )?;
        Ok(())
    }

    /// Records a lease just taken (idempotent).
    pub fn record_lease(
        &self,
        proposal: u64,
        expires_at: u64,
        generation: u32,
        phase: &str,
        arena: &str,
    ) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT OR IGNORE INTO attempts (proposal, expires_at, generation, phase, arena, state)
             VALUES (?1, ?2, ?3, ?4, ?5, 'leased')",
            params![
                proposal as i64,
                expires_at as i64,
                generation as i64,
                phase,
                arena
            ],
        )?;
        Ok(())
    }

    /// Records a finished attempt's report (only from `leased`).
    pub fn record_report(
        &self,
        proposal: u64,
        expires_at: u64,
        verdict: &[u8],
        evidence: &str,
        attempt_digest: &str,
        outcome: &str,
    ) -> rusqlite::Result<bool> {
        let n = self.conn.execute(
            "UPDATE attempts SET state = 'reported', verdict = ?3, evidence = ?4, attempt_digest = ?5,
                 outcome = ?6, updated = datetime('now')
             WHERE proposal = ?1 AND expires_at = ?2 AND state = 'leased'",
            params![proposal as i64, expires_at as i64, verdict, evidence, attempt_digest, outcome],
        )?;
        Ok(n == 1)
    }

    /// The salt that will open this reported attempt's sealed PASS: kept before the seal
    /// is sent, so a crash between the two never leaves a seal nobody can open. Returns the
    /// salt stored, which is `salt` unless one was stored already (a retried attestation
    /// reuses it: its seal may be on chain).
    pub fn keep_salt(
        &self,
        proposal: u64,
        expires_at: u64,
        salt: &str,
    ) -> rusqlite::Result<String> {
        self.conn.execute(
            "UPDATE attempts SET salt = ?3, updated = datetime('now')
             WHERE proposal = ?1 AND expires_at = ?2 AND salt IS NULL",
            params![proposal as i64, expires_at as i64, salt],
        )?;
        self.conn.query_row(
            "SELECT salt FROM attempts WHERE proposal = ?1 AND expires_at = ?2",
            params![proposal as i64, expires_at as i64],
            |r| r.get(0),
        )
    }

    pub fn mark(
        &self,
        proposal: u64,
        expires_at: u64,
        state: State,
        attest_block: Option<u64>,
    ) -> rusqlite::Result<()> {
        self.conn.execute(
            "UPDATE attempts SET state = ?3, attest_block = COALESCE(?4, attest_block), updated = datetime('now')
             WHERE proposal = ?1 AND expires_at = ?2",
            params![proposal as i64, expires_at as i64, state.as_str(), attest_block.map(|b| b as i64)],
        )?;
        Ok(())
    }

    pub fn in_state(&self, state: State) -> rusqlite::Result<Vec<Attempt>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM attempts WHERE state = ?1 ORDER BY proposal, expires_at"
        ))?;
        let rows = stmt.query_map(params![state.as_str()], row_to_attempt)?;
        rows.collect()
    }

    pub fn get(&self, proposal: u64, expires_at: u64) -> rusqlite::Result<Option<Attempt>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM attempts WHERE proposal = ?1 AND expires_at = ?2"),
                params![proposal as i64, expires_at as i64],
                row_to_attempt,
            )
            .optional()
    }

    /// Records a challenge lease just taken (idempotent).
    pub fn record_challenge_lease(
        &self,
        challenge: u64,
        expires_at: u64,
        proposal: u64,
        arena: &str,
    ) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT OR IGNORE INTO challenge_attempts (challenge, expires_at, proposal, arena, state)
             VALUES (?1, ?2, ?3, ?4, 'leased')",
            params![challenge as i64, expires_at as i64, proposal as i64, arena],
        )?;
        Ok(())
    }

    /// Records a finished re-qualification's report (only from `leased`).
    pub fn record_challenge_report(
        &self,
        challenge: u64,
        expires_at: u64,
        verdict: &[u8],
        evidence: &str,
        outcome: &str,
    ) -> rusqlite::Result<bool> {
        let n = self.conn.execute(
            "UPDATE challenge_attempts SET state = 'reported', verdict = ?3, evidence = ?4,
                 outcome = ?5, updated = datetime('now')
             WHERE challenge = ?1 AND expires_at = ?2 AND state = 'leased'",
            params![
                challenge as i64,
                expires_at as i64,
                verdict,
                evidence,
                outcome
            ],
        )?;
        Ok(n == 1)
    }

    pub fn mark_challenge(
        &self,
        challenge: u64,
        expires_at: u64,
        state: State,
        answer_block: Option<u64>,
    ) -> rusqlite::Result<()> {
        self.conn.execute(
            "UPDATE challenge_attempts SET state = ?3, answer_block = COALESCE(?4, answer_block),
                 updated = datetime('now')
             WHERE challenge = ?1 AND expires_at = ?2",
            params![
                challenge as i64,
                expires_at as i64,
                state.as_str(),
                answer_block.map(|b| b as i64)
            ],
        )?;
        Ok(())
    }

    pub fn challenges_in_state(&self, state: State) -> rusqlite::Result<Vec<ChallengeAttempt>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {CHALLENGE_COLUMNS} FROM challenge_attempts WHERE state = ?1
             ORDER BY challenge, expires_at"
        ))?;
        let rows = stmt.query_map(params![state.as_str()], row_to_challenge_attempt)?;
        rows.collect()
    }

    pub fn get_challenge(
        &self,
        challenge: u64,
        expires_at: u64,
    ) -> rusqlite::Result<Option<ChallengeAttempt>> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {CHALLENGE_COLUMNS} FROM challenge_attempts
                     WHERE challenge = ?1 AND expires_at = ?2"
                ),
                params![challenge as i64, expires_at as i64],
                row_to_challenge_attempt,
            )
            .optional()
    }

    pub fn all(&self) -> rusqlite::Result<Vec<Attempt>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM attempts ORDER BY proposal, expires_at"
        ))?;
        let rows = stmt.query_map([], row_to_attempt)?;
        rows.collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_moves_forward_only_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.sqlite");
        {
            let s = Store::open(&path).unwrap();
            assert_eq!(s.cursor().unwrap(), None);
            s.set_cursor(7).unwrap();
            s.set_cursor(9).unwrap();
            s.record_lease(3, 100, 0, "primary", "cpu-tiny").unwrap();
            s.record_lease(3, 100, 0, "primary", "cpu-tiny").unwrap();
            assert!(s.record_report(3, 100, b"v", "ab", "cd", "pass").unwrap());
            assert!(
                !s.record_report(3, 100, b"v", "ab", "cd", "pass").unwrap(),
                "only once"
            );
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.cursor().unwrap(), Some(9));
        let r = s.in_state(State::Reported).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].verdict.as_deref(), Some(&b"v"[..]));
        s.mark(3, 100, State::Attested, Some(12)).unwrap();
        assert_eq!(s.get(3, 100).unwrap().unwrap().attest_block, Some(12));
        assert!(s.in_state(State::Reported).unwrap().is_empty());
    }

    #[test]
    fn a_sealed_pass_keeps_its_first_salt_and_stays_unpublished_until_revealed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.sqlite");
        let digest = "cd".repeat(32);
        {
            // An index made before sealed PASSes: no salt column.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE attempts (proposal INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                     generation INTEGER NOT NULL, phase TEXT NOT NULL, arena TEXT NOT NULL,
                     state TEXT NOT NULL, verdict BLOB, evidence TEXT, attempt_digest TEXT,
                     outcome TEXT, attest_block INTEGER,
                     updated TEXT NOT NULL DEFAULT (datetime('now')),
                     PRIMARY KEY (proposal, expires_at));
                 INSERT INTO attempts (proposal, expires_at, generation, phase, arena, state)
                     VALUES (1, 50, 0, 'primary', 'cpu-tiny', 'attested');",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.get(1, 50).unwrap().unwrap().salt, None, "old rows read");
        s.record_lease(5, 300, 2, "primary", "cpu-tiny").unwrap();
        assert!(s
            .record_report(5, 300, b"v", &digest, "ef", "pass")
            .unwrap());
        assert_eq!(s.keep_salt(5, 300, "11").unwrap(), "11");
        // A retry after a crash must open the seal that may already be on chain.
        assert_eq!(s.keep_salt(5, 300, "22").unwrap(), "11");
        s.mark(5, 300, State::Sealed, Some(40)).unwrap();
        drop(s);
        let s = Store::open(&path).unwrap();
        let sealed = s.in_state(State::Sealed).unwrap();
        assert_eq!((sealed.len(), sealed[0].salt.as_deref()), (1, Some("11")));
        assert!(
            !is_published(&path, &digest).unwrap(),
            "a sealed PASS's report is not served before its reveal"
        );
        s.mark(5, 300, State::Attested, None).unwrap();
        assert!(is_published(&path, &digest).unwrap());
        assert_eq!(s.get(5, 300).unwrap().unwrap().attest_block, Some(40));
    }

    #[test]
    fn a_challenge_answer_moves_forward_only_and_is_published_once_answered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.sqlite");
        let digest = "ab".repeat(32);
        {
            let s = Store::open(&path).unwrap();
            s.record_challenge_lease(4, 200, 9, "cpu-tiny").unwrap();
            s.record_challenge_lease(4, 200, 9, "cpu-tiny").unwrap();
            assert!(s
                .record_challenge_report(4, 200, b"v", &digest, "fail")
                .unwrap());
            assert!(
                !s.record_challenge_report(4, 200, b"w", &digest, "pass")
                    .unwrap(),
                "only once"
            );
            assert!(!is_published(&path, &digest).unwrap(), "not answered yet");
            // A proposal attempt under the same numbers is another row of another table.
            assert!(s.get(4, 200).unwrap().is_none());
        }
        let s = Store::open(&path).unwrap();
        let reported = s.challenges_in_state(State::Reported).unwrap();
        assert_eq!(reported.len(), 1);
        assert_eq!(
            (reported[0].proposal, reported[0].verdict.as_deref()),
            (9, Some(&b"v"[..]))
        );
        s.mark_challenge(4, 200, State::Attested, Some(31)).unwrap();
        let answered = s.get_challenge(4, 200).unwrap().unwrap();
        assert_eq!(
            (answered.state, answered.answer_block),
            (State::Attested, Some(31))
        );
        assert!(is_published(&path, &digest).unwrap());
        assert!(s.challenges_in_state(State::Reported).unwrap().is_empty());
    }
}
