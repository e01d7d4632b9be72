//! `cacheon explorer`: the market at a glance, as a small web server (axum on the command's
//! tokio runtime). Pages are plain HTML rendered on the server from the chain, read through
//! subxt: the present (arenas, contracts, stacks, queues, leases) at the latest finalized
//! block, the past (verdicts, weights per epoch) from an index of finalized blocks' events
//! kept in the background (`index.rs`). Every page has a JSON twin at the same path with
//! `.json` (`/index.json` for the overview): the model the HTML is rendered from.
//!
//! - `/`: the arenas, the latest verdicts, the latest weights
//! - `/arena/ID`: the contract, the incumbent stack (target, proposal, miner, speedup), the
//!   queue with its lease holders, the operators' bonds, the open challenges and the revoked
//!   crowns
//! - `/proposal/N`: the record, an open challenge of its crown, each verdict with its report (fetched from the endpoint its
//!   validator published, checked against the digest on chain, kept in the evidence folder)
//!   and the speed reads plotted, the proposal's events
//! - `/releases`: the engine releases marked on chain by a trusted release key
//!   (docs/release.md), each with the speedup its crowns brought
//! - `/weights`: every epoch's weight vector and payout, each account's share plotted

mod escape;
mod html;
mod index;
mod model;
mod stakes;
mod svg;

// `cacheon history` reads the same index and tells the same account history.
pub(super) use index::{catch_up, Index};
pub(super) use model::{account_history, with_statuses};

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use cacheon::chain::Client;
use cacheon::exit;
use serde_json::{json, Value};
use tokio::sync::RwLock;

use super::evidence::Fetch;
use super::Out;
use crate::ChainArgs;

/// Reports whose fetch failed lately: digest → when, and why.
type Failures =
    Arc<std::sync::Mutex<std::collections::HashMap<String, (std::time::Instant, String)>>>;

/// What every page handler reads.
#[derive(Clone)]
pub struct AppState {
    client: Client,
    index: Arc<RwLock<index::Index>>,
    /// Where reports are kept and how long an endpoint may take.
    fetch: Fetch,
    failed: Failures,
}

/// Serves the explorer on `listen` until interrupted (Ctrl-C).
pub async fn explorer(out: &Out, listen: &str, fetch: Fetch, c: &ChainArgs) -> i32 {
    let client = match super::proposal::connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => return out.error(&format!("cannot listen on {listen}: {e}"), exit::USAGE),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return out.error(&format!("cannot listen on {listen}: {e}"), exit::USAGE),
    };
    let index = Arc::new(RwLock::new(index::Index::default()));
    tokio::spawn(index::follow(client.clone(), index.clone()));
    let state = AppState {
        client,
        index,
        fetch,
        failed: Failures::default(),
    };
    out.emit(
        json!({"event": "listening", "url": format!("http://{addr}/"), "node": c.url}),
        || {
            format!(
                "explorer at http://{addr}/ (reading {}); Ctrl-C stops it",
                c.url
            )
        },
    );
    let served = axum::serve(listener, router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
    match served {
        Ok(()) => exit::OK,
        Err(e) => out.error(
            &format!("the explorer stopped: {e}"),
            exit::CHAIN_UNAVAILABLE,
        ),
    }
}

fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(overview))
        .route("/index.json", get(overview_json))
        .route("/weights", get(weights))
        .route("/weights.json", get(weights_json))
        .route("/releases", get(releases))
        .route("/releases.json", get(releases_json))
        .route("/arena/{id}", get(arena))
        .route("/proposal/{id}", get(proposal))
        .route("/account/{id}", get(account))
        .fallback(not_found)
        .with_state(state)
}

/// `name` without a trailing `.json`, and whether it had one (the JSON twin was asked for).
fn twin(name: &str) -> (&str, bool) {
    match name.strip_suffix(".json") {
        Some(base) => (base, true),
        None => (name, false),
    }
}

/// A page from its model: the JSON twin, or the HTML `render` makes of it; a model error is
/// a 404 or 503 page (or JSON `{"error": ..}`).
fn respond(
    model: Result<Value, model::PageError>,
    json: bool,
    render: fn(&Value) -> String,
) -> Response {
    let (status, body) = match model {
        Ok(m) if json => return axum::Json(m).into_response(),
        Ok(m) => return html(StatusCode::OK, render(&m)),
        Err(model::PageError::NotFound(why)) => (StatusCode::NOT_FOUND, why),
        Err(model::PageError::Chain(why)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the node did not answer: {why}"),
        ),
    };
    if json {
        (status, axum::Json(json!({"error": body}))).into_response()
    } else {
        html(
            status,
            html::error(status.canonical_reason().unwrap_or("error"), &body),
        )
    }
}

/// An HTML page, with headers that keep a browser from running or fetching anything the
/// page did not bring (it shows compiler output a miner wrote).
fn html(status: StatusCode, page: String) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    (status, headers, page).into_response()
}

async fn overview(State(s): State<AppState>) -> Response {
    respond(model::overview(&s).await, false, html::overview)
}

async fn overview_json(State(s): State<AppState>) -> Response {
    respond(model::overview(&s).await, true, html::overview)
}

async fn weights(State(s): State<AppState>) -> Response {
    respond(model::weights(&s).await, false, html::weights)
}

async fn weights_json(State(s): State<AppState>) -> Response {
    respond(model::weights(&s).await, true, html::weights)
}

async fn releases(State(s): State<AppState>) -> Response {
    respond(model::releases(&s).await, false, html::releases)
}

async fn releases_json(State(s): State<AppState>) -> Response {
    respond(model::releases(&s).await, true, html::releases)
}

async fn arena(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    let (id, json) = twin(&id);
    respond(model::arena(&s, id).await, json, html::arena)
}

async fn proposal(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    let (id, json) = twin(&id);
    let model = match id.parse::<u64>() {
        Ok(n) => model::proposal(&s, n).await,
        Err(_) => Err(model::PageError::NotFound(format!("no proposal `{id}`"))),
    };
    respond(model, json, html::proposal)
}

async fn account(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    let (id, json) = twin(&id);
    respond(model::account(&s, id).await, json, html::account_page)
}

async fn not_found() -> Response {
    html(
        StatusCode::NOT_FOUND,
        html::error("Not Found", "no such page: see the overview"),
    )
}
