//! `cacheon`: the Cacheon command line. See `cacheon --help`.

mod cmd;

use std::path::PathBuf;

use cacheon::arena::LaneBackend;
use clap::{Args, Parser, Subcommand};

const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify: the bundle passed every screen; for watch: crowned)
  1  the bundle failed a screen, or the watched proposal ended without a crown
  2  bad usage or unreadable input
  3  no decision: our side failed (no GPU, a lane could not run)
  4  the chain refused the transaction
  5  the node could not be reached, or finality did not come in time";

/// Cacheon: propose faster GPU kernels for a validator-owned inference engine.
///
/// A bundle is a folder with a manifest.toml and kernel sources. Check it locally with
/// `scan` (static rules) and `verify` (built and run against the trusted reference in an
/// isolated lane), see its ContentHash with `pack`, then `commit`, `reveal` and `watch` it on
/// chain.
#[derive(Parser)]
#[command(name = "cacheon", version, after_help = EXIT_CODES)]
struct Cli {
    /// Print one JSON object (or one per line for streams) instead of human output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

/// What a miner proposes, with whose key, to which node, and where the salt is kept.
#[derive(Args, Clone)]
pub struct ProposalArgs {
    /// The bundle folder.
    pub dir: PathBuf,
    /// The arena to propose in (cpu-tiny, cpu-smollm2, cpu-tp2, h200-llama8b).
    #[arg(long, default_value = "cpu-tiny")]
    pub arena: String,
    /// Target id (default: the manifest's competition target).
    #[arg(long)]
    pub target: Option<String>,
    #[command(flatten)]
    pub key: KeyArgs,
    #[command(flatten)]
    pub chain: ChainArgs,
    #[command(flatten)]
    pub state: cmd::StateArgs,
}

#[derive(Args, Clone)]
pub struct ChainArgs {
    /// WebSocket RPC endpoint of a Cacheon node.
    #[arg(long, default_value = "ws://127.0.0.1:9944", env = "CACHEON_URL")]
    pub url: String,
    /// Seconds to wait for the node and for finality.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

#[derive(Args, Clone)]
pub struct KeyArgs {
    /// Secret URI of the signing key: `//Charlie` on a dev chain, a mnemonic, or a 0x seed.
    #[arg(long, env = "CACHEON_SURI", hide_env_values = true)]
    pub suri: Option<String>,
    /// File holding the secret URI (instead of --suri).
    #[arg(long)]
    pub key_file: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// List the slots: ABIs (C and CUDA prototypes), shape symbols, checks, tolerances,
    /// verification shapes, and the targets (singletons and atomic groups).
    ///
    /// With `--arena`, what each target is worth there: the share of a workload read its
    /// slots take and the largest end-to-end speedup a proposal could give (all of that
    /// time gone), against the arena's margin. `cpu-tiny` is measured on this machine
    /// now; `h200-llama8b` weighs a read from a committed measurement (a prefill and a
    /// decode step on an H100).
    Slots {
        /// Arena whose workload to weigh the targets in (cpu-tiny, cpu-smollm2, cpu-tp2,
        /// h200-llama8b).
        #[arg(long)]
        arena: Option<String>,
    },
    /// Static screen only: bundle rules, manifest against the arena, source policy, launch
    /// geometry. Builds and runs nothing.
    Scan {
        /// The bundle folder.
        dir: PathBuf,
        /// Arena to screen for (default: the arena of the manifest's backend).
        #[arg(long)]
        arena: Option<String>,
    },
    /// Every screen before timing: scan, then build, ABI, verification against the trusted
    /// reference (poisoned outputs, guard bands, input checks, special values, each case
    /// called twice) and, on CUDA, graph replays: all inside an isolated lane process.
    Verify {
        /// The bundle folder.
        dir: PathBuf,
        /// Where the kernels run: `cpu` (the cpu-tiny arena) or `cuda` (h200-llama8b).
        #[arg(long, value_enum, default_value_t = LaneBackend::Cpu)]
        device: LaneBackend,
        /// Ranks the arena's engine is split over: 1 (a whole engine), or 2 on the CPU
        /// (cpu-tp2: each rank's shard shapes, and the collective calls at every rank
        /// index of that world).
        #[arg(long, default_value_t = 1, value_name = "N")]
        world_size: usize,
        /// Seed for the verification inputs (default: fresh random).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// One whole qualification attempt offline, as a validator runs it: the screens, then
    /// speed reads of the arena's workload on a baseline lane (the incumbent) and a
    /// candidate lane (incumbent + this bundle), interleaved until the speedup's 95 %
    /// interval is decided against 1 + margin, then the audit of every candidate call in a
    /// model run and the pristine reference. Exit 0 on PASS, 1 on FAIL, 3 on no decision.
    Qualify {
        /// Arena: cpu-tiny (C kernels on this CPU), cpu-tp2 (the same model split over two
        /// rank processes, two cores), cpu-smollm2 (the real model) or h200-llama8b (CUDA
        /// kernels on GPU 0).
        #[arg(long, default_value = "cpu-tiny")]
        arena: String,
        /// The bundle folder.
        #[arg(long)]
        bundle: PathBuf,
        /// Incumbent bundles above the genesis stack, in crown order (default: none).
        #[arg(long, num_args = 1..)]
        stack: Vec<PathBuf>,
        /// Secret seed (default: fresh random).
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        evidence: cmd::EvidenceArgs,
    },
    /// Print a bundle's ContentHash (SHA-256 of its canonical bytes) and size.
    Pack {
        /// The bundle folder.
        dir: PathBuf,
        /// Also write the canonical bytes to this file.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write canonical bundle bytes (a `pack --out` file) into a new folder.
    Unpack {
        /// File with canonical bundle bytes.
        file: PathBuf,
        /// Folder to create (must not exist).
        dir: PathBuf,
    },
    /// Commit, wait out the reveal delay, reveal, and watch the proposal to its end: the
    /// whole submission in one command. Run it again after a crash or Ctrl-C and it picks up
    /// where it stopped (the salt is saved before the commitment is sent; a proposal
    /// already revealed is watched). Before a new commitment it prints the quote: deposits
    /// held, evaluation fee and transaction fees, and the balance needed; an account that
    /// cannot pay gets exit 4 and nothing is sent. Exit 0 once crowned, 1 when it ends
    /// otherwise.
    Submit {
        #[command(flatten)]
        proposal: ProposalArgs,
        /// Give up watching after this many seconds.
        #[arg(long, default_value_t = 1800)]
        for_secs: u64,
        /// Send without asking: the quote (deposits held, fees spent) is printed first
        /// either way. Without it, a terminal is asked and a script's run sends nothing.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Commit to a bundle on chain (step 1 of 2; the salt is kept in the state folder).
    Commit {
        #[command(flatten)]
        proposal: ProposalArgs,
    },
    /// Reveal a committed bundle (step 2 of 2): waits for the reveal delay, then queues the
    /// proposal and prints its id.
    Reveal {
        /// The bundle folder (must have the bytes that were committed).
        dir: PathBuf,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
        #[command(flatten)]
        state: cmd::StateArgs,
    },
    /// Withdraw a queued proposal (the bundle deposit comes back, the fee does not).
    Withdraw {
        proposal: u64,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Challenge a standing crown (anyone may), holding the chain's challenge bond until the
    /// outcome. Operators other than those whose PASSes crowned it re-qualify its bundle
    /// against the incumbent stack without it. Two FAILs that find it wrong (a wrong
    /// result, or a build, ABI, policy, cheating or copy finding; NotFaster is a speed
    /// opinion and does not count) revoke it: its slot falls back to the arena's stock, its
    /// reward claim ends, the crowning operators' bonds are slashed and part of that goes
    /// to the challenger, whose bond comes back. Two PASSes reject the challenge (the bond
    /// pays those two operators); otherwise it expires at its deadline and the bond comes
    /// back. Prints the challenge id, the bond held and the deadline; `cacheon status
    /// PROPOSAL` follows it.
    Challenge {
        /// The crowned proposal.
        proposal: u64,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// An operator's bond in an arena: its validator keys lease (proposals and challenges)
    /// there only while it covers the arena's required bond, and a revoked crown its PASS
    /// made costs it its stake there. Signed by the operator's own account.
    #[command(subcommand)]
    Operator(cmd::operator::OperatorCommand),
    /// Integrate a standing crown (a maintainer's act; docs/release.md): its bundle's files
    /// from the chain, checked against the ContentHash, its verification cases run here for
    /// fresh seeds (pinned, the contribution's own tests), written to --into DIR with a
    /// record binding them to the crown, signed by a maintainer key. Refused for a crown
    /// revoked, superseded or displaced.
    Integrate {
        proposal: u64,
        /// The contribution's directory (must not exist).
        #[arg(long)]
        into: PathBuf,
        /// Verification seeds to run and pin.
        #[arg(long, default_value_t = 2)]
        seeds: u32,
        /// Who may sign (default: the keys built in, offchain/release-keys.toml).
        #[arg(long)]
        keys: Option<PathBuf>,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Engine releases from integrated contributions: `build` (signed by a release key)
    /// and `verify` (signature, digests, rebuild, crowns). See docs/release.md.
    #[command(subcommand)]
    Release(cmd::release::ReleaseCommand),
    /// An arena's contract as the chain holds it (engine digests, targets, margin, noise,
    /// leases, attempts, validators), and whether this build measures the same engine under
    /// the same policy. Without an id, every arena. See docs/arenas.md.
    Arena {
        id: Option<String>,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// What an account did, from the chain's events since block 1: as a miner, every
    /// proposal it revealed with its status now, its crowns, and what its evaluation fees
    /// held, paid to verdicts and got back; as a validator, its verdicts by kind and what
    /// they earned. The explorer's `/account/SS58` page shows the same.
    History {
        /// An SS58 account, or a dev account's secret URI (`//Charlie`).
        account: String,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Show a proposal, or (without one) the arenas, their queues and incumbent stacks.
    /// A proposal's verdicts name their validators and evidence digests; with --from
    /// (a validator's endpoint, repeatable) each report is fetched, checked against its
    /// digest, kept in the evidence folder and summed up: stage, reason, the failing case
    /// or build log, the speed interval and reads.
    Status {
        proposal: Option<u64>,
        /// Validators' endpoints to fetch the verdicts' reports from, e.g.
        /// http://127.0.0.1:9616 (their --prometheus-port).
        #[arg(long)]
        from: Vec<String>,
        #[command(flatten)]
        evidence: cmd::EvidenceArgs,
        /// Seconds to wait for each endpoint.
        #[arg(long, default_value_t = 30)]
        fetch_timeout: u64,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// A web explorer of the chain: the arenas and their contracts, each arena's incumbent
    /// stack (speedups, miners) and queue (lease holders), recent verdicts with their
    /// evidence reports and speed reads plotted, the weights of every epoch with each
    /// miner's share plotted. Server-side HTML and CSS, no JavaScript; every page has a
    /// JSON twin at its path with `.json` (`/index.json` for the overview). Runs until
    /// Ctrl-C; prints the address it serves (`--json`: one line with `url`).
    Explorer {
        /// Address to serve on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:8780")]
        listen: String,
        #[command(flatten)]
        evidence: cmd::EvidenceArgs,
        /// Seconds to wait for a validator's endpoint when fetching a report.
        #[arg(long, default_value_t = 5)]
        fetch_timeout: u64,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// One attempt's report by its digest: from the evidence folder, or with --from fetched
    /// from a validator's HTTP endpoint, refused unless its SHA-256 is DIGEST (the digest the
    /// chain's verdict events name), and kept in the evidence folder. Prints verdict, stage,
    /// reason, the failing case or build log, the speed interval and reads (`--json`: the
    /// report). Exit 0 checked, 1 the bytes do not match the digest, 2 no such report (or
    /// not published there), 5 the endpoint is unreachable.
    Evidence {
        /// The report's digest (64 hex digits, as in the verdict events).
        digest: String,
        /// A validator's endpoint, e.g. http://127.0.0.1:9616 (its --prometheus-port).
        #[arg(long)]
        from: Option<String>,
        #[command(flatten)]
        evidence: cmd::EvidenceArgs,
        /// Seconds to wait for the endpoint.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
    },
    /// Follow a proposal block by block until it is crowned or ends (exit 0 on a crown).
    Watch {
        proposal: u64,
        #[command(flatten)]
        chain: ChainArgs,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 600)]
        for_secs: u64,
    },
    /// Run a validator: follow finalized blocks, lease proposals of the served arenas in
    /// reveal order, qualify each (as `qualify` does) on the bundle bytes from chain storage,
    /// store the report, attest, and confirm the attestation in a finalized block. Safe to
    /// kill at any point: restarted, it never attests twice and leaves an interrupted
    /// attempt to its lease expiry.
    Validator {
        /// Arenas to serve (the key must be registered for them on chain).
        #[arg(long = "arena", default_value = "cpu-tiny")]
        arenas: Vec<String>,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
        /// Folder for the attempt index (SQLite) and the evidence store.
        #[arg(long)]
        data_dir: PathBuf,
        /// Serve Prometheus metrics on 127.0.0.1:PORT/metrics, and the reports of attested
        /// attempts on /evidence/<digest>.json (`cacheon evidence` fetches and checks them).
        #[arg(long)]
        prometheus_port: Option<u16>,
        /// Publish on chain where miners reach this validator's evidence (the URL at which
        /// the --prometheus-port endpoint is served, e.g. behind a reverse proxy):
        /// `cacheon status N` then fetches the reports of its verdicts from there. Set at
        /// start when the chain holds another; an empty value withdraws it.
        #[arg(long, value_name = "URL")]
        public_url: Option<String>,
    },
    /// The main job on embedded defaults: starts a dev chain (cacheon-node --dev --tmp) and
    /// the dev chain's three validators (Alice, Bob, Dave) on an arena (the CPU arena of SmolLM2-135M, the real
    /// model, by default); a miner (Charlie) packs, commits and reveals a faster kernel; shows the
    /// lease, both attestations, the crown, the next epoch's weights and the payout as they
    /// happen; then stops everything.
    Demo {
        /// The node binary (default: cacheon-node beside this binary, then on PATH).
        #[arg(long)]
        node: Option<PathBuf>,
        /// The arena: cpu-smollm2 (the real model), cpu-tiny (synthetic, faster), or
        /// h200-llama8b (CUDA kernels on GPU 0, both validators on the one GPU:
        /// scripts/gpu-crown.sh runs it on a GPU machine).
        #[arg(long, default_value = "cpu-smollm2")]
        arena: String,
        /// The miner's bundle (default: examples/cpu/matmul-avx2 on cpu-smollm2,
        /// examples/cpu/attention-onepass on cpu-tiny; h200-llama8b has no default).
        #[arg(long)]
        bundle: Option<PathBuf>,
        /// Milliseconds between dev blocks.
        #[arg(long, default_value_t = 500)]
        block_ms: u64,
        /// Keep the node and validator logs in this folder (default: a temp dir, removed).
        #[arg(long)]
        keep_logs: Option<PathBuf>,
    },
    /// Answer one prompt with the engine on a real model (SmolLM2-135M-Instruct, the GGUF
    /// file setup fetches) and the stock CPU kernels: greedy, in the model's chat format,
    /// printed as it is generated, then prefill and decode tokens per second.
    Generate {
        /// What to ask.
        prompt: String,
        /// The arena whose model to run (an arena with a model file: cpu-smollm2).
        #[arg(long, conflicts_with = "model")]
        arena: Option<String>,
        /// A Llama GGUF file (default: SmolLM2 in the model cache).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Run an engine release (a directory `cacheon release build` wrote): verified
        /// against the embedded release keys, its kernels built here and checked byte for
        /// byte, on its arena's model.
        #[arg(long, conflicts_with_all = ["model", "arena"])]
        release: Option<PathBuf>,
        /// Most tokens to generate (generation also stops at the end of the answer).
        #[arg(long, default_value_t = 128)]
        max_tokens: usize,
        /// Feed the prompt as it is, without the chat format.
        #[arg(long)]
        raw: bool,
    },
    /// Internal: the lane process that runs candidate code (started by `verify`).
    #[command(hide = true)]
    Lane {
        #[arg(long, value_enum)]
        backend: LaneBackend,
    },
    /// Internal: one sandboxed NVRTC compile of a miner's CUDA source (started by a lane).
    #[command(hide = true, name = "nvrtc-child")]
    NvrtcChild { dir: PathBuf },
}

fn main() {
    let cli = Cli::parse();
    if !matches!(
        cli.command,
        Command::Lane { .. } | Command::NvrtcChild { .. }
    ) {
        tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_env("CACHEON_LOG").unwrap_or_else(|_| {
                    if matches!(cli.command, Command::Validator { .. }) {
                        "info"
                    } else {
                        "warn"
                    }
                    .into()
                }),
            )
            .with_writer(std::io::stderr)
            .init();
    }
    let out = cmd::Out { json: cli.json };
    let code = match cli.command {
        Command::Lane { backend } => cacheon::lane::child::run(backend),
        Command::NvrtcChild { dir } => cacheon_kernels::cuda::nvrtc::serve_child(&dir),
        Command::Generate {
            prompt,
            arena,
            model,
            release,
            max_tokens,
            raw,
        } => {
            let model = match arena.as_deref().map(|a| {
                cacheon::arena::arena(a)
                    .and_then(|x| x.model_path())
                    .ok_or_else(|| format!("`{a}` is not an arena with a model file (cpu-smollm2)"))
            }) {
                Some(Ok(path)) => Some(path),
                Some(Err(e)) => std::process::exit(out.error(&e, cacheon::exit::USAGE)),
                None => model,
            };
            cmd::generate::generate(
                &out,
                model.as_deref(),
                release.as_deref(),
                &prompt,
                max_tokens,
                raw,
            )
        }
        Command::Slots { arena } => cmd::bundle::slots(&out, arena.as_deref()),
        Command::Scan { dir, arena } => cmd::bundle::scan(&out, &dir, arena.as_deref()),
        Command::Verify {
            dir,
            device,
            world_size,
            seed,
        } => cmd::bundle::verify(&out, &dir, device, world_size, seed),
        Command::Demo {
            node,
            arena,
            bundle,
            block_ms,
            keep_logs,
        } => cmd::block_on(cmd::demo::demo(
            &out,
            node.as_deref(),
            &arena,
            bundle.as_deref(),
            block_ms,
            keep_logs.as_deref(),
        )),
        Command::Validator {
            arenas,
            key,
            chain,
            data_dir,
            prometheus_port,
            public_url,
        } => cmd::block_on(cmd::validator::validator(
            &out,
            &arenas,
            &key,
            &chain,
            data_dir,
            prometheus_port,
            public_url,
        )),
        Command::Qualify {
            arena,
            bundle,
            stack,
            seed,
            evidence,
        } => cmd::validator::qualify(&out, &arena, &bundle, &stack, seed, &evidence),
        Command::Pack { dir, out: file } => cmd::bundle::pack(&out, &dir, file.as_deref()),
        Command::Unpack { file, dir } => cmd::bundle::unpack(&out, &file, &dir),
        Command::Submit {
            proposal: p,
            for_secs,
            yes,
        } => cmd::block_on(cmd::submit::submit(&out, &p, for_secs, yes)),
        Command::Commit { proposal: p } => cmd::block_on(cmd::proposal::commit(
            &out, &p.dir, &p.arena, p.target, &p.key, &p.chain, &p.state,
        )),
        Command::Reveal {
            dir,
            key,
            chain,
            state,
        } => cmd::block_on(cmd::proposal::reveal(&out, &dir, &key, &chain, &state)),
        Command::Withdraw {
            proposal,
            key,
            chain,
        } => cmd::block_on(cmd::proposal::withdraw(&out, proposal, &key, &chain)),
        Command::Challenge {
            proposal,
            key,
            chain,
        } => cmd::block_on(cmd::challenge::challenge(&out, proposal, &key, &chain)),
        Command::Operator(command) => cmd::operator::run(&out, command),
        Command::Integrate {
            proposal,
            into,
            seeds,
            keys,
            key,
            chain,
        } => cmd::release::integrate(&out, proposal, &into, seeds, keys.as_deref(), &key, &chain),
        Command::Release(command) => cmd::release::run(&out, command),
        Command::Arena { id, chain } => {
            cmd::block_on(cmd::arena::arena(&out, id.as_deref(), &chain))
        }
        Command::History { account, chain } => {
            cmd::block_on(cmd::history::history(&out, &account, &chain))
        }
        Command::Status {
            proposal,
            from,
            evidence,
            fetch_timeout,
            chain,
        } => {
            let fetch = cmd::evidence::Fetch {
                from,
                store: evidence.dir(),
                timeout: std::time::Duration::from_secs(fetch_timeout),
            };
            cmd::block_on(cmd::proposal::status(&out, proposal, &fetch, &chain))
        }
        Command::Explorer {
            listen,
            evidence,
            fetch_timeout,
            chain,
        } => {
            let fetch = cmd::evidence::Fetch {
                from: Vec::new(),
                store: evidence.dir(),
                timeout: std::time::Duration::from_secs(fetch_timeout),
            };
            cmd::block_on(cmd::explorer::explorer(&out, &listen, fetch, &chain))
        }
        Command::Evidence {
            digest,
            from,
            evidence,
            timeout,
        } => cmd::evidence::evidence(&out, &digest, from.as_deref(), evidence.dir(), timeout),
        Command::Watch {
            proposal,
            chain,
            for_secs,
        } => cmd::block_on(cmd::proposal::watch(&out, proposal, &chain, for_secs)),
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use cmd::operator::OperatorCommand;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("cacheon").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn operator_amounts_are_read_in_unit() {
        let cli = parse(&["operator", "bond", "cpu-tiny", "2.5", "--suri", "//Alice"]).unwrap();
        let Command::Operator(OperatorCommand::Bond { arena, amount, .. }) = cli.command else {
            panic!("operator bond");
        };
        assert_eq!((arena.as_str(), amount), ("cpu-tiny", 2_500_000_000_000));
        let cli = parse(&["operator", "unbond", "cpu-tiny", "1000 UNIT"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Operator(OperatorCommand::Unbond {
                amount: 1_000_000_000_000_000,
                ..
            })
        ));
        let err = parse(&["operator", "bond", "cpu-tiny", "-5"])
            .err()
            .unwrap();
        assert_eq!(err.exit_code(), 2);
        assert!(
            parse(&["operator", "withdraw"]).is_err(),
            "the arena is needed"
        );
        let cli = parse(&["--json", "operator", "show", "--account", "5Grw"]).unwrap();
        assert!(cli.json);
        assert!(matches!(
            cli.command,
            Command::Operator(OperatorCommand::Show { arena: None, .. })
        ));
    }

    #[test]
    fn a_challenge_names_one_proposal() {
        let cli = parse(&["challenge", "7", "--suri", "//Ferdie"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Challenge { proposal: 7, .. }
        ));
        assert!(parse(&["challenge", "seven"]).is_err());
        assert!(parse(&["challenge"]).is_err());
    }
}
